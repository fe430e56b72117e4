"""The director's pages (behind the director's token; host/tournament/web.py checks it): create,
seed, start, correct, walkover, move. Pure HTML from plain data; every form posts to /director/..."""
from host.tournament import brackets, races, seeding
from host.tournament.pages import T, bracket_html, e, page, _match_card

TD = {"en": {"login": "Director's token", "enter": "Enter", "create": "New tournament", "name": "Name",
             "game": "Game", "format": "Format", "race": "Race", "race_final": "Final's race",
             "winner_breaks": "The winner of a rack breaks the next (house rule)",
             "handicap": "Handicap by rating: the weaker player needs one game less per 100 points",
             "players": "Players (comma separated, in seed order for hand seeding)", "tables": "Tables",
             "seed": "Seeding", "start": "Start", "order": "Seed order (comma separated)", "save": "Save",
             "winner": "Winner", "score": "Score X-Y", "correct": "Record / correct", "walkover": "Walkover to",
             "move": "Move to table", "reopen": "Reopen", "log": "Log", "logout": "Log out", "back": "All tournaments"},
      "ru": {"login": "Токен директора", "enter": "Войти", "create": "Новый турнир", "name": "Название",
             "game": "Игра", "format": "Формат", "race": "До побед", "race_final": "Финал до",
             "winner_breaks": "Победитель партии разбивает следующую (правило клуба)",
             "handicap": "Фора по рейтингу: слабейшему на одну победу меньше за каждые 100 очков",
             "players": "Игроки (через запятую, по посеву при ручном посеве)", "tables": "Столы",
             "seed": "Посев", "start": "Начать", "order": "Порядок посева (через запятую)", "save": "Сохранить",
             "winner": "Победитель", "score": "Счёт X-Y", "correct": "Записать / исправить",
             "walkover": "Неявка, победа", "move": "Перенести на стол", "reopen": "Переиграть", "log": "Журнал", "logout": "Выйти",
             "back": "Все турниры"}}


def _q(lang):
    return "?lang=ru" if lang == "ru" else ""


def login(lang, message=None):
    d = TD[lang]
    msg = '<p class="bad">%s</p>' % e(message) if message else ""
    body = ('<div class="narrow"><h1>%s</h1>%s<form method="post" action="/director/login%s">'
            '<label>%s<br><input name="token" type="password" autocomplete="current-password" required>'
            '</label> <button>%s</button></form><p><small>billiards venue token</small></p></div>'
            % (T[lang]["director"], msg, _q(lang), d["login"], d["enter"]))
    return page(T[lang]["director"], body, lang, path="/director")


def _select(name, options, chosen=None):
    return '<select name="%s">%s</select>' % (name, "".join(
        '<option%s>%s</option>' % (" selected" if o == chosen else "", e(o)) for o in options))


def dashboard(shows, log_lines, lang, message=None, bad=False):
    d = TD[lang]
    msg = '<p class="%s">%s</p>' % ("bad" if bad else "ok", e(message)) if message else ""
    rows = "".join('<li><a href="/director/tournament/%d%s">#%d %s</a> (%s, %s)</li>' % (
        s["id"], _q(lang), s["id"], e(s["name"]), e(s["format"]), e(T[lang][s["status"]])) for s in reversed(shows))
    form = ('<form method="post" action="/director/create%s" class="narrow">'
            '<p><label>%s<br><input name="name" required maxlength="60"></label></p>'
            '<p><label>%s %s</label> <label>%s %s</label></p>'
            '<p><label>%s <input name="race" type="number" min="1" max="1000" value="3" required></label> '
            '<label>%s <input name="race_final" type="number" min="1" max="1000"></label></p>'
            '<p><label><input name="winner_breaks" type="checkbox"> %s</label></p>'
            '<p><label><input name="handicap" type="checkbox"> %s</label></p>'
            '<p><label>%s<br><input name="players" required style="width:100%%"></label></p>'
            '<p><label>%s <input name="tables" value="t1,t2" required></label> <label>%s %s</label></p>'
            '<button>%s</button></form>' % (
                _q(lang), d["name"], d["game"], _select("game", races.GAMES, "nine-ball"), d["format"],
                _select("format", brackets.FORMATS, "double"), d["race"], d["race_final"], d["winner_breaks"], d["handicap"],
                d["players"],
                d["tables"], d["seed"], _select("seed", seeding.METHODS, "rating"), d["create"]))
    logs = "".join("<li>%s</li>" % e(l["text"]) for l in log_lines)
    body = ('<h1>%s</h1>%s<ul>%s</ul><h2>%s</h2>%s<h2>%s</h2><ul>%s</ul>'
            '<form method="post" action="/director/logout"><button>%s</button></form>'
            % (T[lang]["director"], msg, rows, d["create"], form, d["log"], logs, d["logout"]))
    return page(T[lang]["director"], body, lang, path="/director")


def tournament(shown, tables, lang, message=None, bad=False):
    """One tournament for the director: seed order (before the start), start, and per match the
    forms to record or correct a result, give a walkover, or move it to another table."""
    d = TD[lang]
    tid = shown["id"]
    msg = '<p class="%s">%s</p>' % ("bad" if bad else "ok", e(message)) if message else ""
    top = "<h1>%s (#%d)</h1>%s" % (e(shown["name"]), tid, msg)
    if shown["status"] == "waiting":
        top += ('<form method="post" action="/director/seed%s"><input type="hidden" name="id" value="%d">'
                '<label>%s<br><input name="players" value="%s" style="width:100%%"></label> <button>%s</button></form>'
                '<form method="post" action="/director/start%s"><input type="hidden" name="id" value="%d">'
                '<button>%s</button></form>' % (_q(lang), tid, d["order"], e(", ".join(shown["players"])),
                                               d["save"], _q(lang), tid, d["start"]))

    def card(m, lg):
        if None in m["players"] or m["how"] == "bye":
            return _match_card(m, lg)
        hidden = '<input type="hidden" name="id" value="%d"><input type="hidden" name="match" value="%s">' % (
            tid, e(m["id"]))
        forms = ('<form method="post" action="/director/report%s">%s%s<input name="score" size="5" '
                 'placeholder="2-1"> <button>%s</button></form>'
                 '<form method="post" action="/director/walkover%s">%s%s <button>%s</button></form>' % (
                     _q(lg), hidden, _select("winner", m["players"], m["winner"]), d["correct"],
                     _q(lg), hidden, _select("winner", m["players"]), d["walkover"]))
        if m["status"] == "done":
            forms += ('<form method="post" action="/director/reopen%s">%s <button>%s</button></form>' % (
                _q(lg), hidden, d["reopen"]))
        else:
            forms += ('<form method="post" action="/director/move%s">%s%s <button>%s</button></form>' % (
                _q(lg), hidden, _select("table", tables, m["table"]), d["move"]))
        return _match_card(m, lg, forms)
    body = top + bracket_html(shown, lang, card) + '<p><a href="/director%s">%s</a></p>' % (_q(lang), d["back"])
    return page(shown["name"], body, lang, path="/director/tournament/%d" % tid)
