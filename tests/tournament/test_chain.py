"""Leagues across venues, the service's side without a broker: it publishes its league nights'
results, takes in another venue's (checked, bounded, at most once a second per venue) and counts
them in the standings. tests/tournament/test_league_chain.py runs the same over real bridged
mosquittos."""
import json

import pytest

from host.tournament import chain
from host.tournament.service import VenueService, director_report
from host.tournament.store import Store
from tests.tournament.test_service import Clock


@pytest.fixture
def bar1(tmp_path):
    st = Store(str(tmp_path / "bar1.sqlite3"))
    clock = Clock()
    sent = []
    subs = []
    svc = VenueService(st, lambda topic, payload, retain: sent.append((topic, payload, retain)),
                       venue="bar1", clock=clock, monotonic=clock, discovery_prefix=None)
    svc.subscribe = subs.append
    svc.connected()
    clock.t += 2
    yield svc, st, clock, sent, subs
    st.close()


def night(st, clock, league, results):
    """A league night: a round robin of its players, every match reported by the director."""
    players = sorted({n for r in results for n in r[:2]})
    tid = st.create("Night", "nine-ball", "round-robin", 2, players, ["t1"], league=league)
    st.start(tid)
    from host.tournament import model
    for m in model.show(st.tournament(tid))["matches"]:
        for a, b, winner, score in results:
            if sorted(m["players"]) == sorted([a, b]):
                sc = score if m["players"] == [a, b] else list(reversed(score))
                assert director_report(st, tid, m["id"], winner, sc, "correction", clock())[0]
    return tid


def remote(venue="bar2", league="winter", matches=None, **extra):
    doc = {"league": league, "name": "Winter", "venue": venue, "venue_name": "The Cue Club", "win_points": 1,
           "nights": [{"id": 1, "name": "Night"}],
           "matches": matches if matches is not None else [
               {"night": 1, "match": "R1.1", "players": ["Chen", "Anna"], "winner": "Chen", "score": [2, 0],
                "walkover": False}]}
    doc.update(extra)
    return json.dumps(doc).encode()


def test_a_venue_publishes_its_league_and_counts_another_venues_nights(bar1):
    svc, st, clock, sent, subs = bar1
    lg = st.create_league("Winter")
    svc.changed()
    assert subs == ["billiards-chain/+/league/winter/results"], "a league made meanwhile is subscribed to"
    night(st, clock, lg, [("Anna", "Bob", "Anna", [2, 1])])
    svc.changed()
    mine = [json.loads(p) for t, p, r in sent if t == "billiards-venue/bar1/league/winter/results" and r]
    assert mine[-1]["venue"] == "bar1" and mine[-1]["league"] == "winter"
    assert [(m["players"], m["winner"], m["score"]) for m in mine[-1]["matches"]] == [(["Anna", "Bob"], "Anna", [2, 1])]
    n = len(sent)
    svc.changed()
    assert not [x for x in sent[n:] if "/league/" in x[0]], "published again only when it changes"

    svc.message("billiards-chain/bar2/league/winter/results", remote())
    table = svc.league("winter")
    assert table == svc.league(lg)
    rows = {r["player"]: r for r in table["rows"]}
    assert (rows["Anna"]["played"], rows["Anna"]["won"], rows["Chen"]["won"], rows["Bob"]["won"]) == (2, 1, 1, 0)
    assert table["venues"][0]["venue"] == "bar2" and table["venues"][0]["matches"] == 1
    # Its own results coming back through the bridge do not count twice.
    svc.message("billiards-chain/bar1/league/winter/results", mine[-1] and json.dumps(mine[-1]).encode())
    assert svc.league("winter")["rows"] == table["rows"]
    # An empty retained message withdraws a venue's results.
    clock.t += 2
    svc.message("billiards-chain/bar2/league/winter/results", b"")
    assert svc.league("winter")["venues"] == [] and "Chen" not in [r["player"] for r in svc.league("winter")["rows"]]


@pytest.mark.parametrize("payload, why", [
    (b"{", "not JSON"),
    (b"[1, 2]", "not a JSON object"),
    (b"x" * (chain.MAX_PAYLOAD + 1), "bytes"),
    (b"[" * 50000 + b"]" * 50000, "not JSON"),
    (remote(venue="bar3"), "says venue"),
    (remote(league="summer"), "says league"),
    (remote(matches=[{"players": ["A", "B"], "winner": "A", "score": [2, 1]}] * (chain.MAX_MATCHES + 1)), "at most"),
    (remote(matches=[{"players": ["A", "A"], "winner": "A"}]), "himself"),
    (remote(matches=[{"players": ["A", "B"], "winner": "C"}]), "winner"),
    (remote(matches=[{"players": ["A", "B" * 33], "winner": "A"}]), "named players"),
    (remote(matches=[{"players": ["A", "B\n"], "winner": "A"}]), "named players"),
    (remote(matches=[{"players": ["A", "B"], "winner": "A", "score": [2, 1e308]}]), "score"),
    (remote(matches=[{"players": ["A", "B"], "winner": "A", "score": [200, 1]}]), "score"),
    (remote(matches=[{"players": ["A", "B"], "winner": "A", "walkover": "yes"}]), "walkover"),
    (remote(matches=["A beat B"]), "not an object"),
    (b'{"league": "winter", "venue": "bar2", "matches": [], "x": NaN}', "not JSON"),
])
def test_bad_results_from_another_venue_change_nothing_and_are_logged(bar1, payload, why):
    svc, st, clock, sent, subs = bar1
    lg = st.create_league("Winter")
    night(st, clock, lg, [("Anna", "Bob", "Anna", [2, 1])])
    svc.message("billiards-chain/bar2/league/winter/results", remote())
    before = svc.league(lg)
    clock.t += 2
    svc.message("billiards-chain/bar2/league/winter/results", payload)
    assert svc.league(lg) == before
    last = st.log_lines(1, "ignored")[0]["text"]
    assert last.startswith("league winter results from venue bar2 ignored:") and why in last, last


def test_another_venue_is_taken_in_once_a_second_and_only_for_leagues_kept_here(bar1):
    svc, st, clock, sent, subs = bar1
    lg = st.create_league("Winter")
    svc.message("billiards-chain/bar2/league/summer/results", remote(league="summer"))
    assert st.chain_results("summer") == []
    for i in range(500):         # a flood: 500 versions in the same second
        svc.message("billiards-chain/bar2/league/winter/results", remote(
            matches=[{"players": ["Chen", "P%d" % i], "winner": "Chen", "score": [2, 0]}]))
    kept = st.chain_results("winter")
    assert len(kept) == 1 and kept[0][0]["matches"][0]["players"] == ["Chen", "P0"]
    clock.t += 1.5
    svc.step()
    assert st.chain_results("winter")[0][0]["matches"][0]["players"] == ["Chen", "P499"], "the latest wins"
    assert len([r for r in st.log_lines(100, "league")]) == 2
    # At most MAX_VENUES other venues per league.
    for v in range(chain.MAX_VENUES + 3):
        svc.message("billiards-chain/v%d/league/winter/results" % v, remote(venue="v%d" % v))
    assert len(st.chain_results("winter")) == chain.MAX_VENUES
    assert "keeps %d other venues" % chain.MAX_VENUES in st.log_lines(1, "ignored")[0]["text"]
    assert lg and svc.league(lg)["venues"]


def test_league_slugs_and_the_standings_command(bar1, tmp_path, capsys):
    svc, st, clock, sent, subs = bar1
    assert chain.slug("Winter League 2026!") == "winter-league-2026" and chain.slug("2026") == "league-2026"
    lg = st.create_league("Winter League")
    with pytest.raises(ValueError):
        st.create_league("winter league")              # the same slug twice
    with pytest.raises(ValueError):
        st.create_league("X", slug="a/b")
    assert st.create_league("Winter League", slug="winter-b") == lg + 1
    svc.message("billiards-chain/bar2/league/winter-league/results", remote(league="winter-league"))
    from host.cli import main
    assert main(["tournament", "standings", "winter-league", "--json", "--db", st.path]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["league"]["slug"] == "winter-league" and out["venues"][0]["venue"] == "bar2"
    assert [r["name"] for r in out["standings"]] == ["Chen", "Anna"]
    assert main(["tournament", "standings", str(lg), "--db", st.path]) == 0
    assert "Chen" in capsys.readouterr().out


def test_a_venues_own_results_stay_within_what_the_others_take():
    long_names = [("Борис-%d" % i).ljust(32, "ж") for i in range(2000)]
    nights = [({"id": 1, "name": "Night"}, [{"id": "R%d" % i, "players": [long_names[2 * i], long_names[2 * i + 1]],
                                              "winner": long_names[2 * i], "score": [3, 1]} for i in range(1000)])]
    doc = chain.results("bar1", {"slug": "winter", "name": "Winter", "win_points": 1}, nights)
    text = chain.encode(doc)
    assert len(text) <= chain.MAX_PAYLOAD < len(json.dumps(doc, ensure_ascii=False).encode())
    kept, why = chain.parse("bar1", "winter", text)
    assert why is None and 500 < len(kept["matches"]) < 1000
    assert kept["matches"][-1]["players"][0] == long_names[1998], "the newest matches are kept"
