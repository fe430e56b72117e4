"""The venue service's pages, rendered on the server (no script runs on them but the TV
bracket's live.js, which only loads the page again when /events says it changed): the TV bracket
`/tournament/<id>`, the index, ratings and player histories, league standings, a table's queue
and the director's pages. Same look as /venue and /history (host/web/venue.py), English and
Russian (`?lang=ru`), readable on a 320 px phone. Pure: data in, HTML out. The director's token
is never an argument of a page a TV or a phone is shown.
"""
import html
import urllib.parse

from host.web.venue import STYLE as VENUE_STYLE

STYLE = VENUE_STYLE + """
.bracket{display:flex;gap:1rem;overflow-x:auto;padding-bottom:.5rem}
.col{min-width:8.5rem;flex:1 1 0}.col h3{font-size:1rem;margin:.2rem 0 .5rem;color:#cfe}
.m{background:#124d3a;border-radius:.5rem;padding:.4rem .6rem;margin-bottom:.6rem;border-left:.3rem solid #2c6b55}
.m.playing{border-left-color:#ffd166}.m.done{opacity:.85}.m .id{font-size:.75rem;color:#9cb}
.m .p{display:flex;justify-content:space-between;gap:.6rem}.m .p.w{font-weight:bold;color:#ffd166}
.tag{font-size:.75rem;background:#0b3d2e;padding:0 .35rem;border-radius:.3rem}
.champ{font-size:1.4rem;color:#ffd166}.side{display:flex;flex-wrap:wrap;gap:1.5rem;align-items:flex-start}
form{margin:.3rem 0}input,select,button{font:inherit;padding:.3rem .45rem;max-width:100%;box-sizing:border-box}
button{background:#ffd166;border:0;border-radius:.3rem;color:#111;cursor:pointer}
.bad{color:#ff8a80}.ok{color:#9f9}.narrow{max-width:30rem}
.side>*{min-width:0;max-width:100%}.side li,.m .p span{overflow-wrap:anywhere;min-width:0}
@media (max-width:600px){.col{min-width:9rem;flex:0 0 auto}.bracket{gap:.6rem}}
"""

T = {
    "en": {"venue": "Venue", "tournaments": "Tournaments", "ratings": "Ratings", "waiting": "waiting",
           "running": "running", "finished": "finished", "playing": "playing", "done": "done",
           "winner": "Winner", "on_tables": "On the tables", "next": "Next", "queues": "Queues",
           "queue": "Queue", "join": "Join the queue", "your_name": "Your name", "empty": "(nobody)",
           "table": "Table", "follow": "Follow on your phone", "player": "Player", "rating": "Rating",
           "matches": "Matches", "won": "Won", "lost": "Lost", "history": "History", "opponent": "Opponent",
           "score": "Score", "result": "Result", "after": "Rating after", "win": "won", "loss": "lost",
           "league": "League", "points": "Points", "racks": "Racks", "played": "Played", "none": "(none yet)",
           "walkover": "walkover", "bye": "bye", "game_names": {"eight-ball": "Eight-ball",
           "nine-ball": "Nine-ball", "straight-pool": "Straight pool"}, "lang": "Русский",
           "formats": {"single": "single elimination", "double": "double elimination",
           "round-robin": "round robin", "groups": "groups, then knockout"}, "race": "race to", "joined": "You are in the queue.", "stays": "Winner stays on.",
           "director": "Director", "by": "by",
           "other_venues": "With the league's nights at other venues", "this_venue": "Nights here",
           "venue_matches": "{0}: {1} matches"},
    "ru": {"venue": "Клуб", "tournaments": "Турниры", "ratings": "Рейтинг", "waiting": "ожидает",
           "running": "идёт", "finished": "завершён", "playing": "играется", "done": "сыгран",
           "winner": "Победитель", "on_tables": "На столах", "next": "Следующие", "queues": "Очереди",
           "queue": "Очередь", "join": "Встать в очередь", "your_name": "Ваше имя", "empty": "(никого)",
           "table": "Стол", "follow": "Следить с телефона", "player": "Игрок", "rating": "Рейтинг",
           "matches": "Матчи", "won": "Побед", "lost": "Поражений", "history": "История",
           "opponent": "Соперник", "score": "Счёт", "result": "Итог", "after": "Рейтинг после",
           "win": "победа", "loss": "поражение", "league": "Лига", "points": "Очки", "racks": "Партии",
           "played": "Сыграно", "none": "(пока нет)", "walkover": "неявка", "bye": "без игры",
           "game_names": {"eight-ball": "Восьмёрка", "nine-ball": "Девятка", "straight-pool": "Прямой пул"},
           "lang": "English", "formats": {"single": "олимпийская система", "double": "double elimination (две сетки)",
           "round-robin": "круговая система", "groups": "группы и плей-офф"}, "race": "до", "joined": "Вы в очереди.", "stays": "Победитель остаётся.",
           "director": "Директор", "by": "",
           "other_venues": "Вместе с вечерами лиги в других клубах", "this_venue": "Вечеров здесь",
           "venue_matches": "{0}: матчей {1}"},
}
LABELS_RU = {"Winners round": "Верхняя сетка, тур", "Losers round": "Нижняя сетка, тур",
             "Winners final": "Финал верхней сетки", "Grand final reset": "Суперфинал, вторая встреча",
             "Grand final": "Суперфинал", "Knockout round": "Плей-офф, тур", "Final": "Финал",
             "Group": "Группа", "round": "тур", "Round": "Тур"}


def e(x):
    return html.escape("" if x is None else str(x))


def label(text, lang):
    """A round's label in the page's language."""
    if lang != "ru":
        return text
    for en in sorted(LABELS_RU, key=len, reverse=True):
        text = text.replace(en, LABELS_RU[en])
    return text


def page(title, body, lang="en", refresh=None, path="/"):
    other = "ru" if lang == "en" else "en"
    meta = '<meta http-equiv="refresh" content="%d">' % refresh if refresh else ""
    switch = '<p><a href="%s?lang=%s">%s</a></p>' % (e(path), other, T[lang]["lang"])
    return ('<!doctype html><html lang="%s"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width,initial-scale=1">%s<title>%s</title>'
            '<style>%s</style></head><body>%s%s</body></html>' % (lang, meta, e(title), STYLE, body, switch))


def q(lang):
    return "?lang=ru" if lang == "ru" else ""


def table_html(head, rows):
    h = "".join("<th>%s</th>" % e(c) for c in head)
    b = "".join("<tr>%s</tr>" % "".join("<td>%s</td>" % c for c in r) for r in rows)
    return '<div class="scroll"><table><thead><tr>%s</tr></thead><tbody>%s</tbody></table></div>' % (h, b)


def _match_card(m, lang, extra=""):
    t = T[lang]
    sc = m["score"] or [None, None]
    ps = []
    for i, name in enumerate(m["players"]):
        won = m["winner"] is not None and name == m["winner"]
        ps.append('<div class="p%s"><span>%s</span><span>%s</span></div>' % (
            " w" if won else "", e(name or ("—" if m["status"] == "done" else "?")),
            e(sc[i]) if sc[i] is not None else ""))
    tags = []
    if m["table"] and m["status"] == "playing":
        tags.append("%s %s" % (t["table"], m["table"]))
    if m["how"] == "walkover":
        tags.append(t["walkover"])
    elif m["how"] == "bye":
        tags.append(t["bye"])
    tag = " ".join('<span class="tag">%s</span>' % e(x) for x in tags)
    return ('<div class="m %s" data-match="%s" data-status="%s"><div class="id">%s · %s %s %s</div>%s%s</div>'
            % (e(m["status"]), e(m["id"]), e(m["status"]), e(m["id"]), t["race"], e(race_text(m)), tag,
               "".join(ps), extra))


def race_text(m):
    """A match's race as the bracket shows it: "3", or each player's "3/2" when handicapped."""
    each = m.get("races")
    return "%s/%s" % (each[0], each[1]) if isinstance(each, list) and len(each) == 2 else str(m["race"])


def columns(shown):
    """[(round key, label, [matches])] in the order the rounds are first played."""
    cols = {}
    for m in shown["matches"]:
        cols.setdefault(m["round"], (m["round"], m["label"], []))[2].append(m)
    return list(cols.values())


def bracket_html(shown, lang, card=_match_card):
    out = []
    for _key, lab, ms in columns(shown):
        out.append('<div class="col"><h3>%s</h3>%s</div>' % (e(label(lab, lang)), "".join(card(m, lang) for m in ms)))
    return '<div class="bracket">%s</div>' % "".join(out)


def _now_lists(now, lang, tid=None):
    t = T[lang]
    cur = [m for m in now["current"] if tid is None or m["tournament"] == tid]
    nxt = [m for m in now["next"] if tid is None or m["tournament"] == tid]
    li = lambda m: "<li>%s%s</li>" % ("<b>%s</b>: " % e(m["table"]) if m.get("table") else "",
                                      e(" v ".join(m["players"])))
    return ('<div><h2>%s</h2><ul>%s</ul></div><div><h2>%s</h2><ul>%s</ul></div>'
            % (t["on_tables"], "".join(map(li, cur)) or "<li>%s</li>" % t["empty"],
               t["next"], "".join(map(li, nxt[:4])) or "<li>%s</li>" % t["empty"]))


def queues_html(queues, lang, base=""):
    t = T[lang]
    if not queues:
        return ""
    items = "".join('<li><a href="%s/queue/%s%s">%s %s</a>: %s</li>' % (
        e(base), e(urllib.parse.quote(tb)), q(lang), t["table"], e(tb), e(", ".join(n)) or t["empty"])
        for tb, n in sorted(queues.items()))
    return "<div><h2>%s</h2><ul>%s</ul></div>" % (t["queues"], items)


LIVE_REFRESH_S = 30      # the TV page's own refresh when its live script cannot follow /events


def tournament_tv(shown, now, lang, qr_svg=None, follow_url=None, live=None):
    """The TV page: the live bracket, what is on the tables, what is next, the queues, a QR.
    `live`: the service's change number: the page's one script (/tournament.js) loads it again
    when /events says another (docs/tournament.md); None, the page refreshes every 5 s."""
    t = T[lang]
    head = "<h1>%s</h1><p>%s · %s · %s</p>" % (
        e(shown["name"]), e(t["game_names"].get(shown["game"], shown["game"])),
        e(t["formats"].get(shown["format"], shown["format"])),
        e(t[shown["status"]]))
    if shown["winner"]:
        head += '<p class="champ" id="champion">%s: %s</p>' % (t["winner"], e(shown["winner"]))
    qr = ""
    if qr_svg:
        qr = '<div class="qr" title="%s">%s<p><small>%s</small></p></div>' % (e(follow_url), qr_svg, t["follow"])
    side = '<div class="side">%s%s%s</div>' % (_now_lists(now, lang, shown["id"]),
                                               queues_html(now.get("queues") or {}, lang), qr)
    follow = ""
    if live is not None:
        follow = '<div id="live" data-version="%d" hidden></div><script src="/tournament.js"></script>' % live
    return page(shown["name"], head + bracket_html(shown, lang) + side + follow, lang,
                refresh=5 if live is None else LIVE_REFRESH_S, path="/tournament/%d" % shown["id"])


def index(shows, now, leagues, lang):
    t = T[lang]
    rows = [['<a href="/tournament/%d%s">%s</a>' % (s["id"], q(lang), e(s["name"])), e(s["format"]),
             e(t["game_names"].get(s["game"], s["game"])), e(t[s["status"]]), e(s["winner"] or "")]
            for s in reversed(shows)]
    body = "<h1>%s</h1>" % t["tournaments"]
    body += table_html(["", "", "", "", t["winner"]], rows) if rows else "<p>%s</p>" % t["none"]
    body += '<div class="side">%s%s</div>' % (_now_lists(now, lang), queues_html(now.get("queues") or {}, lang))
    if leagues:
        body += "<h2>%s</h2><ul>%s</ul>" % (t["league"], "".join(
            '<li><a href="/league/%d%s">%s</a></li>' % (l["id"], q(lang), e(l["name"])) for l in leagues))
    body += '<p><a href="/ratings%s">%s</a></p>' % (q(lang), t["ratings"])
    return page(t["venue"], body, lang, refresh=10, path="/")


def ratings_page(rows, lang):
    t = T[lang]
    body = "<h1>%s</h1>" % t["ratings"]
    trs = [['<a href="/player/%s%s">%s</a>' % (e(urllib.parse.quote(r["name"], safe="")), q(lang), e(r["name"])),
            "%d ±%d" % (r["rating"], r["rd"]), e(r["matches"]), e(r["wins"]), e(r["losses"])] for r in rows]
    body += table_html([t["player"], t["rating"], t["matches"], t["won"], t["lost"]], trs) if trs else \
        "<p>%s</p>" % t["none"]
    body += "<p><small>Glicko-2 (Glickman)</small></p>"
    return page(t["ratings"], body, lang, refresh=30, path="/ratings")


def player_page(person, lang):
    t = T[lang]
    body = "<h1>%s</h1><p>%s %d ±%d · %s %d · %s %d</p>" % (
        e(person["name"]), t["rating"], round(person["rating"]), round(person["rd"]), t["won"], person["wins"],
        t["lost"], person["losses"])
    rows = [[e(h["opponent"]), t["win"] if h["won"] else t["loss"],
             e("-".join(map(str, h["score"])) if h["score"] else ""), e(h["after"])]
            for h in reversed(person["history"])]
    body += "<h2>%s</h2>%s" % (t["history"], table_html([t["opponent"], t["result"], t["score"], t["after"]], rows))
    body += '<p><a href="/ratings%s">%s</a></p>' % (q(lang), t["ratings"])
    return page(person["name"], body, lang, path="/player/" + urllib.parse.quote(person["name"], safe=""))


def league_page(lg, lang):
    t = T[lang]
    rows = [[e(r["rank"]), e(r["player"]), e(r["played"]), e(r["won"]), e(r["lost"]), e(r["points"]),
             "%d-%d" % (r["racks_for"], r["racks_against"])] for r in lg["rows"]]
    body = "<h1>%s: %s</h1>" % (t["league"], e(lg["league"]["name"]))
    body += table_html(["#", t["player"], t["played"], t["won"], t["lost"], t["points"], t["racks"]], rows)
    if lg.get("venues"):
        body += '<p>%s: %d. %s:</p><ul class="venues">%s</ul>' % (
            t["this_venue"], len(lg["nights"]), t["other_venues"], "".join(
                "<li>%s</li>" % e(t["venue_matches"].replace("{0}", v["name"]).replace("{1}", str(v["matches"])))
                for v in lg["venues"]))
    return page(lg["league"]["name"], body, lang, refresh=30, path="/league/%d" % lg["league"]["id"])


def queue_page(table, names, lang, message=None, bad=False):
    t = T[lang]
    items = "".join("<li>%s</li>" % e(n) for n in names) or "<li>%s</li>" % t["empty"]
    msg = '<p class="%s">%s</p>' % ("bad" if bad else "ok", e(message)) if message else ""
    body = ('<div class="narrow"><h1>%s %s</h1><p>%s</p>%s<ol>%s</ol>'
            '<form method="post" action="/queue/%s%s"><label>%s<br><input name="name" maxlength="32" required '
            'autocomplete="nickname"></label> <button>%s</button></form></div>'
            % (t["queue"], e(table), t["stays"], msg, items, e(urllib.parse.quote(table)), q(lang),
               t["your_name"], t["join"]))
    return page("%s %s" % (t["queue"], table), body, lang, refresh=None, path="/queue/" + urllib.parse.quote(table))
