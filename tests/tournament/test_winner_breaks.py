"""A tournament that says "winner breaks" (issue 17): the house rule is a named match setting the
venue service sends with every match it assigns; without it, the tables follow the seed's rule."""
import json

from host.tournament import model
from host.cli import build_parser
from host.tournament.cli import create
from host.tournament.service import VenueService
from host.tournament.store import Store


def test_create_with_winner_breaks_and_every_assigned_match_says_so(tmp_path):
    st = Store(str(tmp_path / "t.sqlite3"))
    try:
        args = build_parser().parse_args(["tournament", "create", "Night", "--race", "3", "--players",
                                          "Anna,Bob", "--tables", "t1", "--winner-breaks"])
        tid = create(args, st)
        plain = create(build_parser().parse_args(["tournament", "create", "Day", "--race", "3", "--players",
                                                  "Cid,Dan", "--tables", "t2"]), st)
        t, u = st.tournament(tid), st.tournament(plain)
        assert t["options"]["winner_breaks"] is True and "winner_breaks" not in u["options"]
        assert model.new_game(t, model.matches(t)[0])["winner_breaks"] is True
        assert "winner_breaks" not in model.new_game(u, model.matches(u)[0])

        sent = []
        now = [1000.0]
        svc = VenueService(st, lambda topic, payload, retain: sent.append((topic, payload)),
                           clock=lambda: now[0], monotonic=lambda: now[0], discovery_prefix=None)
        svc.connected()
        now[0] += 2             # past the retained messages' settling time, as the service's own tests
        svc.message("billiards/t1/status", b"online")
        svc.message("billiards/t1/state", json.dumps({"table": "t1", "game": "nine-ball", "players": [],
                                                      "winner": None, "shot": 0, "rack": 1, "phase": "break",
                                                      "link": {"state": "up"}}).encode())
        st.start(tid)
        svc.step()
        bodies = [json.loads(p) for topic, p in sent if topic == "billiards/t1/cmd/new_game"]
        assert bodies and bodies[0]["winner_breaks"] is True and bodies[0]["race_to"] == 3
    finally:
        st.close()


def test_the_referee_takes_what_the_service_sends():
    from shared_rules.rules.referee import Referee
    ref = Referee("t1")
    res = ref.apply({"src": "cmd", "cmd": "new_game", "t_us": 0, "body": {
        "game": "nine-ball", "players": ["Anna", "Bob"], "breaker": 0, "race_to": 3, "winner_breaks": True,
        "id": "venue-x-t1-W1.1", "assignment": "venue-x-t1-W1.1", "unless_playing": True}})
    assert res["ok"] and ref.state()["settings"]["winner_breaks"] is True
