"""Issue 17: a whole race-to-3 match in each game, played from a phone (headless Chromium at
390x844 with touch) against a running daemon fed by a board on a pty: each game once in English
and once in Russian (the phone and the TV page in that language from the first screen to the
last rack), and nine-ball once more with the house rule `winner_breaks` set on the first screen.

Each test sets the match up on the first screen (names, game, race, the lag, a 10 s shot clock),
plays five racks with board events and taps, and after every rack checks, on MQTT, on the phone
and on the TV page, who breaks the next rack against the seed's rule (GEN.LAG: «В последующих
партиях принято соблюдать очередность. Прежде чем начать решающую партию, производится еще один
розыгрыш»: the breaks alternate, the deciding rack is lagged for) or the house rule (the winner
breaks). The next rack begins by one tap, by the board's confirm button, or by the break itself.
On the way it checks every finding of the issue: no new match offered between racks, refusals in
the player's language without clause codes (and `cmd/result`'s code and texts), words never split
and nothing spilling at 320, 390 and 430 px (the first screen, the table at the break, the foul
buttons, a foul and ball in hand, a pending push-out, a decision, the time-up warning, between
racks, the deciding lag, the match's end), the shot clock only while a shot is due (and its
warning when time runs out), feedback that never covers the score, controls per game, the
pending push-out and the reason of a decision, the shot log and the match's statistics, the
fouls' count gone once the match is over, the TV's QR code over no banner, and (eight-ball)
/history as cards and /venue with addresses and a QR code a phone can follow.
BILLIARDS_PHONE_SCREENSHOTS=docs/phone keeps the screenshots the docs show.
"""
import json
import os
import shutil
import subprocess
import time
import urllib.request

import pytest

from cdp import CHROMIUM, Browser
from phone_shots import Shots
from play_table import Table
from shared_rules.link.names import BUTTON, BUTTON_CONFIRM, MOTION, POCKET, PRESS, RAIL
from tests.host.harness import wait_for

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="needs chromium (apt-get install -y chromium)"),
]

PHONE = {"width": 390, "height": 844, "mobile": True, "scale": 1}
NAMES = ["Anna", "Борис"]
POCKET_NO = {"head-left": 0, "side-left": 1, "foot-left": 2, "foot-right": 3, "side-right": 4, "head-right": 5}
CLAUSE_CODE = r"/\b[A-Z]{2,3}\.[A-Z0-9-]+\b/"

# What the page shows, read from its DOM.
SHOWN = """JSON.stringify((() => {
  const t = id => document.getElementById(id);
  const on = id => !!t(id) && !t(id).hidden && t(id).getClientRects().length > 0;
  const vis = id => on(id) ? t(id).textContent : null;
  return {
    mode: document.body.dataset.mode, shot: document.body.dataset.shot, lang: document.documentElement.lang,
    names: [t('name0').textContent, t('name1').textContent],
    scores: [t('score0').textContent, t('score1').textContent],
    marked: [t('p0').classList.contains('shooting'), t('p1').classList.contains('shooting')],
    setup: on('setup'), score: on('score'), lag: on('lag'), lag_title: vis('lag-title'),
    rackover: on('rackover'), rack_title: vis('rackover-title'), rack_score: vis('rackover-score'),
    rack_next: vis('rackover-next'), next_button: vis('btn-next-rack'),
    rematch: on('btn-rematch'), newgame: on('newgame'), winner: vis('winner'), matchline: vis('matchline'),
    game: t('game').textContent, clock: on('clock'), timeup: vis('timeup'), pushout: vis('pushout'),
    decide: vis('decide-title'), why: vis('decide-why'), callhint: on('callhint'),
    result: vis('result'), result_ok: on('result') ? t('result').dataset.ok === '1' : null,
    balls: [...document.querySelectorAll('#svgballs .ball')].map(b => +b.dataset.ball),
    selected: [...document.querySelectorAll('#svgballs .ball.sel')].map(b => +b.dataset.ball),
    subs: [t('sub0').textContent, t('sub1').textContent],
    log: [...document.querySelectorAll('#log-list li')].map(li => li.textContent),
    stats: Object.fromEntries([...document.querySelectorAll('#stats-body tr')].map(
      tr => [tr.dataset.stat, [...tr.querySelectorAll('td')].map(td => td.textContent)])),
    stats_on: on('stats'),
  };
})())"""

# Everything a player could find wrong with the layout at this width: a sideways scroll, a word
# broken over two lines, text spilling out of its box, a box running off the screen, pocket
# labels leaving the drawn table or running into each other.
LAYOUT = """JSON.stringify((() => {
  const W = document.documentElement.clientWidth, out = [];
  if (document.documentElement.scrollWidth > W) out.push('sideways scroll ' + document.documentElement.scrollWidth);
  const visible = el => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden'
    && !el.closest('[hidden]') && !el.closest('details:not([open]) > :not(summary)');
  const boxes = 'button, label, summary, h1, h2, h3, p, li, td, th, a, .banner, .player, .panel, select, input, span';
  for (const el of document.querySelectorAll(boxes)) {
    if (!visible(el)) continue;
    const r = el.getBoundingClientRect();
    if (r.width && (r.left < -1 || r.right > W + 1)) out.push('off screen: ' + (el.id || el.textContent.trim().slice(0, 30)));
    const cs = getComputedStyle(el);
    if (cs.textOverflow !== 'ellipsis' && el.tagName !== 'SELECT' && el.tagName !== 'INPUT'
        && el.scrollWidth > el.clientWidth + 1 && cs.overflowX !== 'auto' && el.clientWidth > 0)
      out.push('spills: ' + (el.id || el.textContent.trim().slice(0, 30)) + ' ' + el.scrollWidth + '>' + el.clientWidth);
  }
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || !visible(el) || el.closest('svg') || el.closest('script, style, option')) continue;
    const re = /[^\\s\\-\\u2010-\\u2015\\/]+/g;
    let m;
    while ((m = re.exec(n.data))) {
      const range = document.createRange();
      range.setStart(n, m.index); range.setEnd(n, m.index + m[0].length);
      const tops = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
      if (tops.size > 1) out.push('split word: ' + m[0]);
    }
  }
  const svg = document.getElementById('pooltable');
  if (svg && visible(svg)) {
    const box = svg.getBoundingClientRect();
    const labels = [...document.querySelectorAll('#pockets text')].map(x => [x.textContent, x.getBoundingClientRect()]);
    for (const [txt, r] of labels) {
      if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1)
        out.push('pocket label off the table: ' + txt);
    }
    for (let i = 0; i < labels.length; i++) for (let j = i + 1; j < labels.length; j++) {
      const a = labels[i][1], b = labels[j][1];
      if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom)
        out.push('pocket labels overlap: ' + labels[i][0] + ' / ' + labels[j][0]);
    }
  }
  return out;
})())"""


def shown(phone):
    return json.loads(phone.eval(SHOWN))


def layout_ok(phone, where):
    """No layout problem at 320, 390 and 430 px wide (the phone is left at 390)."""
    problems = {}
    for width in (320, 430, 390):
        phone.send("Emulation.setDeviceMetricsOverride", {"width": width, "height": 844, "deviceScaleFactor": 1,
                                                          "mobile": True})
        phone.wait_for("document.documentElement.clientWidth === %d" % width)
        time.sleep(0.1)
        found = json.loads(phone.eval(LAYOUT))
        if found:
            problems[width] = found
    assert not problems, (where, problems)


# What a player reads, in each language (the pages' words: host/web/play.js, tv.js; the referee's:
# rules/messages.py). A whole match is played in one language, the TV page in the same one.
SAYS = {
    "en": {"refused": "Refused: %s", "time_up": "Time is up for %s", "wins_match": "%s wins the match %s",
           "wins_game": "%s wins the game", "fouls": "fouls: %d",
           "rack_won": "%s wins rack %d", "rack_score": "%s %d : %d %s · race to 3",
           "breaks": "%s breaks rack %d", "next_rack": "Next rack: %s breaks", "hill_hill": "Hill-hill",
           "lag_decides": "Deciding rack: lag for the break", "deciding_lag": "Deciding rack: who won the lag?",
           "tv_rack": "%s wins rack %d · %d : %d — %s", "tv_lag": "Deciding rack: lag for the break",
           "tv_breaks": "%s breaks rack %d", "foul_by": "Foul by %s: %s"},
    "ru": {"refused": "Отказ: %s", "time_up": "Время на удар вышло: %s", "wins_match": "%s выигрывает матч %s",
           "wins_game": "%s выиграл партию", "fouls": "фолов: %d",
           "rack_won": "%s выигрывает партию %d", "rack_score": "%s %d : %d %s · матч до 3 побед",
           "breaks": "%s разбивает партию %d", "next_rack": "Следующая партия: разбивает %s",
           "hill_hill": "По одной до победы", "lag_decides": "Решающая партия: разыграйте разбитие",
           "deciding_lag": "Решающая партия: кто выиграл розыгрыш?",
           "tv_rack": "%s выигрывает партию %d · %d : %d — %s", "tv_lag": "Решающая партия: розыгрыш разбития",
           "tv_breaks": "%s разбивает партию %d", "foul_by": "Фол, %s: %s"},
}
# The refusals the match meets, as the referee words them for players (no clause codes).
REFUSALS = {
    "nb.push_on_break": {"en": "a push-out is allowed only on the first shot after the break, not on the break itself",
                         "ru": "выставка разрешена первым ударом после разбития, а не самим разбитием"},
    "eb.no_safety_on_break": {"en": "the break is not a called shot; there is no safety on the break",
                              "ru": "разбитие не заказывается, отыгрыша при разбитии нет"},
}
FOUL = "double_hit"                      # entered by a tap in the last rack: a foul in every game
FOUL_NAME = {"en": "double hit", "ru": "двойное касание"}


def until(table, pred, what, timeout=10):
    return wait_for(lambda: table.state() if table.state() and pred(table.state()) else None, timeout, what=what)


def page(phone, cond, timeout=10):
    """What the phone shows once `cond` (JS) holds."""
    phone.wait_for(cond, timeout)
    return shown(phone)


def clear_result(phone):
    phone.eval("document.getElementById('result').hidden = true")


def tap_answer(phone, selector):
    """Tap, wait for the answer to show, and check it covers neither player's name, score or
    turn marker (issue 17, finding 7)."""
    clear_result(phone)
    phone.tap(selector)
    phone.wait_for("!document.getElementById('result').hidden")
    covered = phone.eval("""(() => {
      const r = document.getElementById('result').getBoundingClientRect();
      return ['name0', 'name1', 'score0', 'score1', 'p0', 'p1'].filter(id => {
        const b = document.getElementById(id).getBoundingClientRect();
        return b.height && r.left < b.right && b.left < r.right && r.top < b.bottom && b.top < r.bottom;
      });
    })()""")
    assert covered == [], "the answer covers %s" % covered
    return shown(phone)


def tap_ok(phone, selector):
    s = tap_answer(phone, selector)
    assert s["result_ok"], s["result"]
    return s


def no_clause_codes(browser, where):
    """Nothing a player reads names a rule clause (finding 10): the codes are for referees."""
    found = browser.eval("(document.body.innerText.match(%s) || []).join(' ')" % (CLAUSE_CODE + "g"))
    assert not found, (where, found)


def refusal_shown(phone, table, selector, code, lang):
    """A refused tap: the answer in the player's language, without clause codes; `cmd/result`
    carries the stable code and the text in each language (findings 2, 10)."""
    said = lambda: [a for a in table.results() if a.get("code") == code]
    before = len(said())
    r = tap_answer(phone, selector)
    assert r["result_ok"] is False
    assert r["result"] == SAYS[lang]["refused"] % REFUSALS[code][lang], r["result"]
    no_clause_codes(phone, "a refusal")
    # The phone had its answer over HTTP; the same answer on MQTT may still be on its way.
    answer = wait_for(lambda: len(said()) > before and said(), 10, what="the refusal on cmd/result")[-1]
    assert answer["text"] == {k: REFUSALS[code][k] for k in ("en", "ru")}
    return r


# ------------------------------------------------------------------ the table
def shot(table, rails=2, pocketed=()):
    """One shot as the board reports it; the state once it is judged (or a question is asked)."""
    before = table.state()
    key = (before["rack"], before["shot"], before["phase"])
    table.board.push(MOTION, 0, 1)
    for r in range(rails):
        table.board.push(RAIL, r % 6, 30000)
    for ball, pocket in pocketed:
        table.board.push(POCKET, POCKET_NO[pocket], ball)
    table.board.push(MOTION, 0, 0)
    return until(table, lambda s: not s["shot_open"] and ((s["rack"], s["shot"], s["phase"]) != key or s["needs"]),
                 "the shot judged")


def call(phone, table, ball, pocket):
    """A call by two taps on the drawn table: the ball, then the pocket's hole (a finger aims at
    the hole; a pocket's name runs along the rail beside it)."""
    phone.tap('#svgballs .ball[data-ball="%d"]' % ball)
    phone.wait_for("document.querySelector('#svgballs .ball[data-ball=\"%d\"]').classList.contains('sel')" % ball)
    tap_ok(phone, '#pockets .pocket[data-pocket="%s"] .hit' % pocket)
    until(table, lambda s: s["called"] == {"ball": ball, "pocket": pocket}, "the call")


def foul_by_tap(table, phone, tv, lang, fouler):
    """The referee enters a foul no sensor sees on the shot just played, from the facts panel in
    the player's language; the banners on both pages, nothing of the layout broken (finding 3:
    the foul buttons at 320 px in Russian), the TV's QR code over no banner."""
    phone.tap("#facts > summary")
    phone.wait_for("document.getElementById('facts').open")
    label = phone.eval("document.querySelector('#foul-codes [data-code=\"%s\"]').textContent" % FOUL)
    assert label.lower() == FOUL_NAME[lang], label
    layout_ok(phone, "the foul buttons, " + lang)
    shots_before = table.state()["shot"]
    tap_ok(phone, '#foul-codes [data-code="%s"]' % FOUL)
    s = until(table, lambda s: (s.get("last_foul") or {}).get("codes") == [FOUL] and s["shot"] == shots_before,
              "the foul entered")
    phone.eval("document.getElementById('facts').open = false")
    p = page(phone, "!document.getElementById('foul').hidden")
    assert p["result_ok"] is None or p["result_ok"]
    assert phone.eval("document.getElementById('foul').textContent").lower() == \
        (SAYS[lang]["foul_by"] % (NAMES[fouler], FOUL_NAME[lang])).lower()
    if s["game"] != "eight-ball":              # a game that counts fouls in a row shows the count
        assert SAYS[lang]["fouls"] % 1 in p["subs"][fouler], p["subs"]
    layout_ok(phone, "a foul on the table, " + lang)
    tv.wait_for("!document.getElementById('foul').hidden")
    qr_clear_of_banners(tv)
    return s


def qr_clear_of_banners(tv):
    """No banner of the TV page runs under its QR code (finding 10)."""
    assert tv.eval("""(() => {
      const q = document.getElementById('playqr').getBoundingClientRect();
      return [...document.querySelectorAll('#banners .banner')].filter(b => !b.hidden).every(b => {
        const r = b.getBoundingClientRect();
        return r.right <= q.left || r.bottom <= q.top || r.left >= q.right || r.top >= q.bottom; });
    })()""")


def play_rack(game, table, phone, tv, lang, winner, push_out=False, foul=False):
    """Play the rack being played to a win for `winner`; the state when it is over. `foul`: the
    breaker (the loser) commits a foul the referee enters by tap on the way."""
    s = table.state()
    b = s["next_break"]["player"] if s["between_racks"] else s["breaker"]
    assert not foul or winner != b
    if game == "eight-ball":
        shot(table, 5, [(1, "foot-left")])                   # a legal break, the breaker goes on
        if foul:
            shot(table, 2)
            foul_by_tap(table, phone, tv, lang, b)           # ball in hand for the winner
            shot(table, 2)                                   # who misses: the breaker is back
        elif winner == b:
            shot(table, 2)                                   # a miss
        shot(table, 2, [(8, "foot-right")])                  # the 8 before the group: that player loses
    elif game == "nine-ball":
        if winner == b:
            shot(table, 8, [(9, "foot-left")])               # the 9 on a legal break
        else:
            shot(table, 8, [(1, "foot-left")])
            if push_out:
                push_out_asked(table, phone, b, lang)
            else:
                shot(table, 2)
                if foul:
                    foul_by_tap(table, phone, tv, lang, b)
            shot(table, 2, [(9, "foot-right")])
    else:
        if winner == b:
            call(phone, table, 3, "foot-left")
            shot(table, 4, [(3, "foot-left")])               # the called ball on the break: the game
        else:
            shot(table, 6)                                   # a safe break
            if foul:
                shot(table, 2)                               # the winner misses
                shot(table, 2)
                foul_by_tap(table, phone, tv, lang, b)       # a point off, the count of fouls shown
            call(phone, table, 3, "foot-left")
            shot(table, 2, [(3, "foot-left")])
    return until(table, lambda s: s["phase"] == "over", "the rack over")


def push_out_asked(table, phone, shooter, lang):
    """Nine-ball: a push-out tapped after a legal break is shown pending; the opponent's choice
    says why it is asked; the opponent plays on."""
    tap_ok(phone, "#btn-push")
    until(table, lambda s: s["push_out"], "push-out announced")
    p = page(phone, "!document.getElementById('pushout').hidden")
    assert NAMES[shooter] in p["pushout"] and NAMES[1 - shooter] in p["pushout"]
    layout_ok(phone, "push-out pending, " + lang)
    s = shot(table, 0)
    assert s["decision"] == {"player": 1 - shooter, "options": ["accept", "pass_back"]}
    assert s["decision_reason"]["clauses"] == ["NB.PUSH"]
    p = page(phone, "!document.getElementById('decide').hidden")
    assert p["lang"] == lang
    assert p["why"] == s["decision_reason"]["text"][lang] and NAMES[1 - shooter] in p["why"]
    assert p["pushout"] is None
    layout_ok(phone, "a decision, " + lang)
    no_clause_codes(phone, "a decision")
    tap_ok(phone, '#options [data-option="accept"]')
    until(table, lambda s: s["decision"] is None and s["shooter"] == 1 - shooter, "the push-out accepted")


def expected_next_breaker(racks, race, winner_breaks):
    """Who breaks the next rack, worked out here from the racks played. The seed's rule: the
    player who did not break the last rack; None (a lag) before the deciding rack. The house
    rule: the winner of the last rack, the deciding one too."""
    if winner_breaks:
        return racks[-1]["winner"]
    won = [sum(1 for r in racks if r["winner"] == p) for p in (0, 1)]
    if won == [race - 1, race - 1]:
        return None
    return 1 - racks[-1]["breaker"]


# ------------------------------------------------------------------ the match
# Who wins each rack: 2-0, 2-1, 2-2 (hill-hill: the deciding rack is lagged for), then 3-2.
WINNERS = [0, 0, 1, 1, 0]
# How each next rack begins: one tap, the board's confirm button, the break itself, a tap after the
# lag. (A called 14.1 break needs its rack begun first: there the break begins a rack its
# breaker does not win, with a safe break.)
STARTS = {"eight-ball": ["tap", "button", "break", "tap"], "nine-ball": ["tap", "button", "break", "tap"],
          "straight-pool": ["break", "button", "tap", "tap"]}


@pytest.fixture
def table(tmp_path, broker):
    t = Table(tmp_path, broker, players="Player 1,Player 2")
    yield t
    t.close()


def set_up(table, phone, game, shots, lang, winner_breaks=False):
    """The first screen sets the match up: game, names, race, the lag for the break, a shot clock
    (and the house rule, when asked)."""
    p = page(phone, "document.body.dataset.mode === 'setup' && !document.body.classList.contains('readonly')")
    assert p["setup"] and not p["score"] and not p["lag"] and not p["rackover"] and p["lang"] == lang
    layout_ok(phone, "first screen, " + lang)            # "Восьмёрка" within its button (finding 3)
    if lang == "ru":
        assert phone.eval("[...document.getElementById('ng-clock').options].map(o => o.textContent).join('|')") \
            == "нет|10 с|30 с|45 с|60 с|90 с|120 с"            # "60 s" in Russian (finding 10)
        assert phone.eval("document.querySelector('#ng-games input[value=\"eight-ball\"] + span').textContent") \
            == "Восьмёрка"
    elif game == "eight-ball" and not winner_breaks:
        shots("first-screen", top="#setup")
    phone.tap('#ng-games input[value="%s"] + span' % game)
    phone.type_into("#ng-p0", NAMES[0])
    phone.type_into("#ng-p1", NAMES[1])
    # "Who breaks" names the players as they are typed (finding 6).
    assert phone.eval("[...document.getElementById('ng-breaker').options].map(o => o.textContent).slice(0, 2)") \
        == NAMES
    if game == "straight-pool":
        phone.type_into("#ng-target", "1")
        phone.type_into("#ng-sprace", "3")
    else:
        phone.type_into("#ng-race", "3")
    phone.eval("document.getElementById('ng-breaker').value = 'lag'")
    phone.eval("document.getElementById('ng-clock').value = '10'")
    if winner_breaks:
        phone.tap("#ng-winner-breaks")
        assert phone.eval("document.getElementById('ng-winner-breaks').checked")
    tap_ok(phone, "#ng-start")
    s = until(table, lambda s: s["game"] == game and [p["name"] for p in s["players"]] == NAMES, "the match")
    assert s["race_to"] == 3 and s["settings"]["shot_clock"] == 10 and s["settings"]["winner_breaks"] is winner_breaks
    assert [n["cmd"] for n in s["needs"]] == ["lag"]
    assert s["shot_clock"] is None                 # no clock while they rack and lag (finding 5)
    # The table: the lag asked for, and nothing else in the way.
    p = page(phone, "document.body.dataset.mode === 'table' && !document.getElementById('lag').hidden")
    assert p["score"] and not p["setup"] and not p["clock"] and p["names"] == NAMES
    assert "3" in p["game"]                         # the race is in the header, never cut (finding 10)
    return s


def check_between_racks(table, phone, tv, racks, lang, winner_breaks):
    """Between racks, on MQTT, the phone and the TV: the rack score, the race, hill-hill, who
    breaks the next rack by the seed's rule (or the house rule); no new match offered, the
    finished rack not drawn, in the language of the match."""
    say = SAYS[lang]
    s = table.state()
    assert s["between_racks"] and s["phase"] == "over" and s["winner"] is None
    won = [sum(1 for r in racks if r["winner"] == p) for p in (0, 1)]
    assert s["match_score"] == won
    nxt = expected_next_breaker(racks, 3, winner_breaks)
    assert s["next_break"]["player"] == nxt and s["next_break"]["rack"] == len(racks) + 1
    assert s["next_break"]["rule"] == ("winner_breaks" if winner_breaks else "lag" if nxt is None else "alternate")
    assert s["hill_hill"] == (won == [2, 2])
    assert s["shot_clock"] is None
    p = page(phone, "!document.getElementById('rackover').hidden && document.body.dataset.shot === %s"
             % json.dumps(str(s["shot"])))
    w = racks[-1]["winner"]
    assert p["lang"] == lang
    assert not p["rematch"] and not p["setup"]      # no new match offered (finding 1)
    assert p["winner"] is None and p["balls"] == [] and not p["clock"]
    assert p["rack_title"] == say["rack_won"] % (NAMES[w], len(racks))
    assert p["rack_score"].startswith(say["rack_score"] % (NAMES[0], won[0], won[1], NAMES[1]))
    assert (say["hill_hill"] in p["rack_score"] and say["hill_hill"] in p["matchline"]) == (won == [2, 2])
    if nxt is None:
        assert p["rack_next"] == say["lag_decides"] and p["lag_title"] == say["deciding_lag"]
        assert p["next_button"] is None
    else:
        assert p["rack_next"] == say["breaks"] % (NAMES[nxt], len(racks) + 1)
        assert p["next_button"] == say["next_rack"] % NAMES[nxt]
        assert p["marked"] == [nxt == 0, nxt == 1]
    no_clause_codes(phone, "between racks")
    # The TV says it too, in the same language.
    want = say["tv_rack"] % (NAMES[w], len(racks), won[0], won[1], say["tv_lag"] if nxt is None
                             else say["tv_breaks"] % (NAMES[nxt], len(racks) + 1))
    tv.wait_for("!document.getElementById('rackover').hidden && "
                "document.getElementById('rackover').textContent === %s" % json.dumps(want))
    # The LED display: who breaks (or the lag), the race in the score.
    alert = ("HILL-HILL: LAG" if nxt is None else "BREAK: " + NAMES[nxt].upper())[:16]
    display = wait_for(lambda: (lambda d: d["alert"] == alert and d)(json.loads(table.sub.last["billiards/t1/display"])),
                       10, what="the display between racks")
    if s["game"] != "straight-pool":
        assert display["lines"][0].endswith("%d/3" % won[0])
    return s, p


def replacing_asks_first(table, phone):
    """Between racks a new match is only behind "New match", and it asks before it replaces the
    match in progress: "Cancel" changes nothing (finding 1)."""
    before = table.state()
    sent = len(table.results())
    phone.eval("document.getElementById('newgame').open = true")
    phone.tap("#ng-start")
    phone.wait_for("!document.getElementById('confirm').hidden")
    phone.tap("#confirm-no")
    phone.wait_for("document.getElementById('confirm').hidden")
    time.sleep(0.3)
    assert len(table.results()) == sent and table.state()["match_score"] == before["match_score"]
    assert table.state()["between_racks"] and table.state()["match"] == before["match"]
    phone.eval("document.getElementById('newgame').open = false")


def start_next_rack(table, phone, how, s, game):
    """Begin the next rack as said; the state of the new rack (its break pending, or played)."""
    rack = s["rack"]
    if how == "tap":
        tap_ok(phone, "#btn-next-rack")
    elif how == "button":
        table.board.push(BUTTON, BUTTON_CONFIRM, PRESS)
    else:
        return None                  # the break itself begins it: play_rack's first shot
    return until(table, lambda x: x["rack"] == rack + 1 and x["phase"] == "break", "the next rack")


def another_phone_opens_on_the_table(table, tmp_path, lang):
    """A phone that scans the code while a match is under way opens on the table (between racks:
    who breaks next), not on the first screen (finding 6)."""
    other = Browser(str(tmp_path / "another-phone"))
    try:
        other.open(table.base + "/play?lang=%s#t=%s" % (lang, table.play_token()), **PHONE)
        p = page(other, "!document.body.classList.contains('readonly') && document.body.dataset.mode === 'table'"
                        " && !document.getElementById('rackover').hidden")
        assert p["score"] and not p["setup"] and p["names"] == NAMES and p["next_button"]
    finally:
        other.close()


def play_match(game, lang, table, phone, tv, shots, winner_breaks=False, tmp_path=None):
    say = SAYS[lang]
    s = set_up(table, phone, game, shots, lang, winner_breaks)
    # Anna won the lag and breaks; the lag panel goes (finding 10).
    tap_ok(phone, "#lag0")
    until(table, lambda s: s["needs"] == [] and s["breaker"] == 0, "the lag")
    p = page(phone, "document.getElementById('lag').hidden")
    assert p["marked"] == [True, False] and not p["clock"]
    # Controls per game (finding 8): calls in eight-ball and 14.1, none in nine-ball.
    assert p["callhint"] == (game != "nine-ball")
    layout_ok(phone, "the table at the break, " + lang)
    if game == "nine-ball":
        phone.tap('#svgballs .ball[data-ball="1"]')
        phone.tap('#pockets .pocket[data-pocket="foot-left"] .hit')
        time.sleep(0.3)
        assert shown(phone)["selected"] == [] and table.state()["called"] is None
        assert [r for r in table.results() if r["cmd"] == "call"] == []
        # A refusal in the player's words and language (findings 2, 10).
        refusal_shown(phone, table, "#btn-push", "nb.push_on_break", lang)
        if lang == "ru" and not winner_breaks:
            shots("refusal-ru", answer=True)
    if game == "eight-ball":
        # The eight-ball break is not a called shot: refused in words.
        refusal_shown(phone, table, "#btn-safety", "eb.no_safety_on_break", lang)

    racks = []
    for i, winner in enumerate(WINNERS):
        last = i == len(WINNERS) - 1
        state = table.state()
        if state["between_racks"]:          # the break itself begins this rack
            assert state["rack"] == i and state["next_break"]["rule"] != "lag"
            breaker = state["next_break"]["player"]
        else:
            assert state["rack"] == i + 1
            breaker = state["breaker"]
        # Who breaks: the lag's winner the first rack; then the seed's rule (the breaks alternate,
        # the deciding rack goes to the winner of the lag for it) or the house rule (the winner).
        if i == 0:
            assert breaker == 0
        elif winner_breaks:
            assert breaker == racks[-1]["winner"], (i, breaker)
        elif i < 4:
            assert breaker == 1 - racks[-1]["breaker"], (i, breaker)
        else:
            assert breaker == 1                       # Борис breaks the deciding rack (the lag)
        assert state["shot_clock"] is None            # racking: no clock before the break
        s = play_rack(game, table, phone, tv, lang, winner, push_out=(game == "nine-ball" and i == 2), foul=last)
        racks.append({"winner": winner, "breaker": breaker})
        assert s["game_winner"] == winner and s["racks"][-1]["breaker"] == breaker
        if last:
            break
        s, p = check_between_racks(table, phone, tv, racks, lang, winner_breaks)
        if i in (0, 1):
            layout_ok(phone, "between racks, " + lang)
        if i == 0:
            replacing_asks_first(table, phone)
        if i == 1 and game == "eight-ball":
            another_phone_opens_on_the_table(table, tmp_path, lang)
        if i == 0 and game == "eight-ball" and lang == "en" and not winner_breaks:
            shots("between-racks", top="#score")
        if i == 1 and game == "nine-ball" and lang == "ru":
            shots("between-racks-ru", top="#score")
        if i == 3 and not winner_breaks:
            # Hill-hill: the deciding rack is lagged for, and Борис breaks it: in English he wins
            # the lag; in Russian Anna wins it and hands him the break (GEN.LAG: «У победителя
            # розыгрыша есть право начать игру или уступить первый удар сопернику»).
            assert p["lag"] and p["next_button"] is None
            layout_ok(phone, "the deciding lag, " + lang)
            if lang == "en":
                tap_ok(phone, "#lag1")
            else:
                phone.tap("#lag-breaks")
                assert not phone.eval("document.getElementById('lag-breaks').checked")
                tap_ok(phone, "#lag0")
            s = until(table, lambda s: s["next_break"] and s["next_break"]["player"] == 1, "the deciding lag")
            assert s["next_break"]["rule"] == "lag" and s["between_racks"]
            p = page(phone, "!document.getElementById('btn-next-rack').hidden")
            assert p["marked"] == [False, True] and not p["lag"]
        elif i == 3:
            assert not p["lag"] and s["hill_hill"]     # the house rule: no lag for the decider
        start_next_rack(table, phone, STARTS[game][i], s, game)
        if STARTS[game][i] != "break":
            p = page(phone, "document.getElementById('rackover').hidden && document.body.dataset.shot === '0'")
            assert len(p["balls"]) == (9 if game == "nine-ball" else 15) and not p["clock"]
        if i == 3:
            # The deciding rack, on every surface: the phone's match line, the TV, the LED text.
            assert SAYS[lang]["hill_hill"] in page(phone, "document.body.dataset.shot === '0'")["matchline"]
            tv.wait_for("!document.getElementById('hillhill').hidden")
            wait_for(lambda: json.loads(table.sub.last["billiards/t1/display"])["alert"] == "HILL-HILL", 10,
                     what="the LED text in the deciding rack")
        if i == 0:
            clock_after_a_shot(game, table, phone, tv, lang)

    # The match is over: Anna 3-2. A new match is offered now, and only now.
    s = until(table, lambda s: s["winner"] == 0, "the match won")
    assert s["match_score"] == [3, 2] and not s["between_racks"] and s["shot_clock"] is None
    want = [0, 0, 0, 1, 1] if winner_breaks else [0, 1, 0, 1, 1]
    assert [r["breaker"] for r in s["racks"]] == [r["breaker"] for r in racks] == want
    assert s["players"][1]["fouls"] == (0 if game == "eight-ball" else 1)     # the state keeps the count
    p = page(phone, "document.body.dataset.mode === 'over'")
    assert p["winner"] == say["wins_match"] % ("Anna", "3:2") and p["rematch"] and p["setup"]
    assert all(say["fouls"] % 1 not in sub for sub in p["subs"]), p["subs"]   # finding 10: no fouls after the match
    # The shot log and the match's statistics (finding 10).
    assert p["log"] and say["wins_game"] % "Anna" in " ".join(p["log"])
    assert p["stats_on"] and p["stats"]["st_innings"] == [str(x) for x in s["innings"]]
    assert p["stats"]["st_pocketed"] == [str(x["pocketed"]) for x in s["stats"]]
    assert p["stats"]["st_fouls"] == [str(x["fouls"]) for x in s["stats"]]
    tv_log = tv.eval("[...document.querySelectorAll('#log li')].map(li => li.textContent)")
    assert tv_log and tv_log[0] == p["log"][0]
    tv_stats = json.loads(tv.eval("""JSON.stringify(document.getElementById('stats').hidden ? null :
      Object.fromEntries([...document.querySelectorAll('#stats-body tr')].map(
        tr => [tr.dataset.stat, [...tr.querySelectorAll('td')].map(td => td.textContent)])))"""))
    assert tv_stats and tv_stats["st_innings"] == p["stats"]["st_innings"]
    assert tv_stats["st_fouls"] == p["stats"]["st_fouls"] and tv_stats["st_high_run"] == p["stats"]["st_high_run"]
    assert tv.eval("!document.getElementById('winner').hidden && document.getElementById('winner-score').textContent") \
        == "3 : 2"
    no_clause_codes(phone, "the match over")
    no_clause_codes(tv, "the TV at the match's end")
    layout_ok(phone, "match over, " + lang)
    # "Play again": the same match, settings kept (the 10 s clock too), the lag decides the break.
    tap_ok(phone, "#btn-rematch")
    s = until(table, lambda s: s["winner"] is None and s["shot"] == 0 and s["rack"] == 1, "play again")
    assert s["game"] == game and [p["name"] for p in s["players"]] == NAMES and s["race_to"] == 3
    assert s["settings"]["shot_clock"] == 10 and s["settings"]["winner_breaks"] is winner_breaks
    assert [n["cmd"] for n in s["needs"]] == ["lag"] and s["shot_clock"] is None
    assert [x["fouls"] for x in s["players"]] == [0, 0]
    assert page(phone, "document.body.dataset.mode === 'table'")["lag"]
    # Each lag's winner breaks unless told otherwise, whatever the last lag's winner chose.
    assert phone.eval("document.getElementById('lag-breaks').checked")
    return s


def clock_after_a_shot(game, table, phone, tv, lang):
    """The shot clock runs from when the balls stop after a shot; in nine-ball its time runs
    out once and both pages say so (finding 5)."""
    s = shot(table, 8 if game == "nine-ball" else 6, [(2, "side-left")] if game != "straight-pool" else ())
    if s["phase"] == "over":
        return
    assert s["shot_clock"] and s["shot_clock"]["limit_s"] == 10 and s["shot_clock"]["rack"] == 2
    p = page(phone, "!document.getElementById('clock').hidden")
    assert p["clock"]
    if game != "nine-ball":
        shot_undo(table)
        return
    s = until(table, lambda s: (s["shot_clock"] or {}).get("expired") is True, "time up", timeout=20)
    who = NAMES[s["shooter"]]
    p = page(phone, "!document.getElementById('timeup').hidden")
    assert p["timeup"] == SAYS[lang]["time_up"] % who
    layout_ok(phone, "time up, " + lang)
    assert tv.wait_for("!document.getElementById('timeup').hidden && document.getElementById('timeup').textContent") \
        == SAYS[lang]["time_up"] % who
    qr_clear_of_banners(tv)
    warned = [json.loads(e) for e in table.sub.of("billiards/t1/event") if json.loads(e).get("shot_clock")]
    assert len(warned) == 1 and warned[0]["player"] == s["shooter"]
    assert json.loads(table.sub.last["billiards/t1/display"])["alert"].startswith("TIME UP")
    shot_undo(table)


def shot_undo(table):
    """Take the clock's shot back, so the rack goes on as planned (the clock restarts)."""
    from tests.people.play_table import post
    code, _, res = post(table.base, "/api/cmd/undo", {}, token=table.play_token())
    assert code == 200 and res["ok"], res
    until(table, lambda s: s["shot"] == 0, "the shot taken back")


# ------------------------------------------------------------------ the tests
def browsers(table, tmp_path, lang):
    phone = Browser(str(tmp_path / "phone"))
    tv = Browser(str(tmp_path / "tv"))
    tv.open(table.base + "/?lang=" + lang, width=1280, height=720)
    phone.open(table.base + "/play?lang=%s#t=%s" % (lang, table.play_token()), **PHONE)
    return phone, tv


LANGS = ["en", "ru"]


@pytest.mark.clause("GEN.LAG")
@pytest.mark.clause("GEN.SLOW-PLAY")
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("game", ["nine-ball", "straight-pool"])
def test_a_race_to_3_played_from_the_phone(table, tmp_path, game, lang):
    phone, tv = browsers(table, tmp_path, lang)
    try:
        play_match(game, lang, table, phone, tv, Shots(phone, tmp_path))
    finally:
        phone.close()
        tv.close()


def test_the_house_rule_the_winner_breaks_set_on_the_phone(table, tmp_path):
    """The first screen's house rule (`winner_breaks`): the winner of each rack breaks the next,
    the deciding rack too, with no lag for it."""
    phone, tv = browsers(table, tmp_path, "en")
    try:
        play_match("nine-ball", "en", table, phone, tv, Shots(phone, tmp_path), winner_breaks=True)
    finally:
        phone.close()
        tv.close()


@pytest.mark.clause("GEN.LAG")
@pytest.mark.parametrize("lang", LANGS)
def test_an_eight_ball_race_to_3_then_history_and_venue_on_the_phone(table, tmp_path, lang):
    phone, tv = browsers(table, tmp_path, lang)
    shots = Shots(phone, tmp_path)
    try:
        play_match("eight-ball", lang, table, phone, tv, shots, tmp_path=tmp_path)
        # /history: the match, as cards on a phone, in both languages.
        from host.web.access import lan_address
        lan = lan_address()
        wait_for(lambda: "Борис" in urllib.request.urlopen(table.base + "/history.json", timeout=5).read().decode(),
                 10, what="the match in the history")
        for hl in ("en", "ru"):
            phone.send("Page.navigate", {"url": "http://%s:%d/history?lang=%s" % (lan, table.port, hl)})
            phone.wait_for("document.documentElement.lang === %s && !!document.querySelector('td')" % json.dumps(hl))
            layout_ok(phone, "/history " + hl)
            assert phone.eval("getComputedStyle(document.querySelector('table.matches thead')).display") == "none"
        # /venue from the address the phone used: links and QR code it can follow, no token.
        phone.send("Page.navigate", {"url": "http://%s:%d/venue?lang=%s" % (lan, table.port, lang)})
        phone.wait_for("!!document.querySelector('.card[data-table=\"t1\"] .qr img')")
        links = json.loads(phone.eval("JSON.stringify([...document.querySelectorAll('.card a')].map(a => a.href))"))
        assert "http://%s:%d/play" % (lan, table.port) in links and all("127.0.0.1" not in u for u in links), links
        html = phone.eval("document.documentElement.outerHTML")
        assert table.token() not in html and table.play_token() not in html
        layout_ok(phone, "/venue " + lang)
        path = shots("venue-phone" if lang == "en" else "venue-phone-ru", top=".card[data-table=\"t1\"]")
        # Every other page on a phone too: /venue in the other language, the TV page and the phone
        # page without the token (what /venue's link opens: view only), in both languages.
        for url in ("/venue?lang=" + ("ru" if lang == "en" else "en"), "/?lang=en", "/?lang=ru",
                    "/play?lang=en", "/play?lang=ru"):
            phone.send("Page.navigate", {"url": "http://%s:%d%s" % (lan, table.port, url)})
            phone.wait_for("document.readyState === 'complete' && document.body.innerText.includes('Борис')")
            if url.startswith("/play"):
                phone.wait_for("document.body.classList.contains('readonly') && "
                               "!document.getElementById('viewonly').hidden")
            layout_ok(phone, url)
        if shutil.which("zbarimg"):
            out = subprocess.run(["zbarimg", "--quiet", "--raw", path], capture_output=True, text=True, timeout=30)
            assert out.stdout.strip() == "http://%s:%d/play" % (lan, table.port)
    finally:
        phone.close()
        tv.close()
