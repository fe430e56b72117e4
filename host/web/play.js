// Phone page: the table state over SSE (/events, as the TV page), commands over
// POST api/cmd/<name> with the table's token (from the QR code's URL fragment). The referee's
// words (fouls, options, pockets, games, groups) come from vocabulary.json, the one vocabulary.
(function () {
  "use strict";
  // Pockets seen from the head end (where the breaker stands): the foot is at the top.
  var POCKETS = [["head-left", 10, 190], ["side-left", 8, 100], ["foot-left", 10, 10],
                 ["foot-right", 110, 10], ["side-right", 112, 100], ["head-right", 110, 190]];
  var LOG_SHOWN = 8;
  // The page's own words; the referee's come from vocabulary.json (V below).
  var T = {
    en: {
      connecting: "connecting…", live: "live", reconnecting: "reconnecting…",
      viewonly: "View only. Scan the QR code on the table (or on the TV) to play from this phone.",
      table: "Table",
      race: "race to {0}", to_points: "to {0} points", fouls: "fouls: {0}", to_go: "{0} to go", run: "run {0}",
      rack: "Rack {0}", hill_hill: "Hill-hill: the next rack decides", games_won: "games won: {0}",
      foul: "Foul by {0}: {1}", bih: "{0} has ball in hand", bih_kitchen: " (behind the head string)",
      push_pending: "Push-out announced: {0} may play the cue ball anywhere; {1} then chooses",
      time_up: "Time is up for {0}",
      link_down: "Table sensors offline: scores may lag",
      called: "Called: {0}", ball: "ball {0}", in_pocket: " in {0}",
      wins_match: "{0} wins the match {1}", wins_game: "{0} wins the game {1}",
      rack_won: "{0} wins rack {1}", rack_score: "{0} {1} : {2} {3} · race to {4}",
      breaks_next: "{0} breaks rack {1}", next_rack: "Next rack: {0} breaks",
      lag_decides: "Deciding rack: lag for the break",
      next_rack_hint: "Or just break: the break starts the next rack too.",
      racking: "Racking…",
      decide: "{0}, choose:",
      lag_title: "Who won the lag?", deciding_lag: "Deciding rack: who won the lag?", lag_won: "{0} won",
      lag_breaks: "The winner breaks",
      head_end: "▼ head: the break end (kitchen)", foot_end: "▲ foot: the rack end",
      call_hint: "To call: tap a ball, then a pocket.",
      safety: "Safety", push_out: "Push-out", end_shot: "Balls stopped", undo: "Undo last shot",
      facts_title: "Referee: what the sensors cannot see",
      facts_hint: "Enter a foul for the shot just played.",
      jumped_which: "Which ball left the table?", spot_which: "Which pocketed ball goes back (no penalty)?",
      legal_break: "The break was legal", spot: "Spot a ball",
      rack_title: "Straight pool re-rack", rack_fifteenth: "The 15th ball stopped", rack_cue: "The cue ball stopped",
      rack_send: "Enter rack positions",
      rack_clear: "clear of the rack", rack_rack: "inside the rack", rack_apex: "on the apex spot",
      rack_kitchen: "in the kitchen",
      stalemate_title: "Stalemate (re-rack): who won the lag?", stalemate: "{0} won",
      identify_title: "Which ball dropped in the {0} pocket?",
      log_title: "Shots", stats_title: "Match statistics",
      st_pocketed: "Balls pocketed", st_fouls: "Fouls", st_high_run: "High run", st_innings: "Innings",
      st_breaks: "Breaks (legal)", st_bnr: "Break-and-runs", st_run: "Current run",
      setup_title: "Set up a match", to_table: "This match is set: to the table",
      rematch: "Play again", rename: "Only change the names (the game goes on)",
      new_game: "New match", player1: "Player 1", player2: "Player 2", race_to: "Race to (racks)", race_to_p2: "Handicap: the second player races to (empty: the same)",
      sp_race_to: "Games to win the match", target: "Points to win a game",
      shot_clock: "Shot clock", off: "off", seconds: "{0} s", breaker: "Who breaks", by_lag: "Lag for it",
      winner_breaks: "The winner of a rack breaks the next (house rule)",
      miss_option: "Miss option: the opponent may make them shoot again",
      strict_jump: "Any ball off the table is a foul",
      call_required: "Only called balls count", sp_illegal_break: "Illegal opening break",
      spb_penalty: "2 points, opponent plays on", spb_wpa: "2 points, opponent may make them break again",
      start: "Start the match", sticker: "Print the table sticker", queue: "Winner stays on: join the queue",
      cancel: "Cancel", confirm_undo: "Take back the last shot?", yes_undo: "Yes, undo",
      confirm_new: "End this game and start a new one?", yes_new: "Yes, new game",
      ok: "✓ Done", refused: "Refused: {0}",
      e401: "This phone has no access token: scan the QR code on the table.",
      e403: "This access token is not valid for this table (it may have been changed): scan the QR code again.",
      e429: "Too many taps: wait a second and try again.",
      e_net: "No answer from the table: check the Wi-Fi and try again.",
      cue: "cue"
    },
    ru: {
      connecting: "подключение…", live: "на связи", reconnecting: "переподключение…",
      viewonly: "Только просмотр. Отсканируйте QR-код на столе (или на экране), чтобы играть с телефона.",
      table: "Стол",
      race: "до {0} побед", to_points: "до {0} очков", fouls: "фолов: {0}", to_go: "осталось {0}",
      run: "серия {0}", rack: "Партия {0}", hill_hill: "По одной до победы: решающая партия",
      games_won: "выиграно партий: {0}",
      foul: "Фол, {0}: {1}", bih: "{0}: биток с руки", bih_kitchen: " (из дома)",
      push_pending: "Объявлена выставка: {0} ставит биток куда угодно, затем выбирает {1}",
      time_up: "Время на удар вышло: {0}",
      link_down: "Датчики стола не на связи: счёт может отставать",
      called: "Заказ: {0}", ball: "шар {0}", in_pocket: " в {0}",
      wins_match: "{0} выигрывает матч {1}", wins_game: "{0} выигрывает партию {1}",
      rack_won: "{0} выигрывает партию {1}", rack_score: "{0} {1} : {2} {3} · матч до {4} побед",
      breaks_next: "{0} разбивает партию {1}", next_rack: "Следующая партия: разбивает {0}",
      lag_decides: "Решающая партия: разыграйте разбитие",
      next_rack_hint: "Можно просто разбить: разбитие тоже начинает следующую партию.",
      racking: "Расстановка…",
      decide: "{0}, выберите:",
      lag_title: "Кто выиграл розыгрыш разбития?", deciding_lag: "Решающая партия: кто выиграл розыгрыш?",
      lag_won: "{0}", lag_breaks: "Победитель разбивает",
      head_end: "▼ передний борт: разбитие (дом)", foot_end: "▲ задний борт: пирамида",
      call_hint: "Заказ: нажмите шар, затем лузу.",
      safety: "Отыгрыш", push_out: "Выставка", end_shot: "Шары остановились", undo: "Отменить удар",
      facts_title: "Судья: чего не видят датчики",
      facts_hint: "Отметьте фол в только что сыгранном ударе.",
      jumped_which: "Какой шар вылетел за борт?", spot_which: "Какой забитый шар вернуть на стол (без штрафа)?",
      legal_break: "Разбитие было правильным", spot: "Вернуть шар",
      rack_title: "Прямой пул: новая пирамида", rack_fifteenth: "15-й шар остановился", rack_cue: "Биток остановился",
      rack_send: "Отметить положение",
      rack_clear: "вне пирамиды", rack_rack: "в зоне пирамиды", rack_apex: "на точке пирамиды",
      rack_kitchen: "в доме",
      stalemate_title: "Глухая позиция: кто выиграл розыгрыш?", stalemate: "{0}",
      identify_title: "Какой шар упал в лузу: {0}?",
      log_title: "Удары", stats_title: "Статистика матча",
      st_pocketed: "Забито шаров", st_fouls: "Фолы", st_high_run: "Лучшая серия", st_innings: "Подходы",
      st_breaks: "Разбития (правильные)", st_bnr: "Партии с разбития", st_run: "Текущая серия",
      setup_title: "Новый матч", to_table: "Матч уже настроен: к столу",
      rematch: "Сыграть ещё", rename: "Только сменить имена (партия продолжается)",
      new_game: "Новый матч", player1: "Игрок 1", player2: "Игрок 2", race_to: "Матч до (побед)", race_to_p2: "Фора: второй игрок играет до (пусто — так же)",
      sp_race_to: "Партий для победы в матче", target: "Очков для победы в партии",
      shot_clock: "Время на удар", off: "нет", seconds: "{0} с", breaker: "Кто разбивает", by_lag: "Розыгрыш",
      winner_breaks: "Победитель партии разбивает следующую (правило клуба)",
      miss_option: "При промахе соперник может заставить повторить удар",
      strict_jump: "Любой вылет шара за борт — фол",
      call_required: "Засчитываются только заказанные шары", sp_illegal_break: "Неправильное начальное разбитие",
      spb_penalty: "2 очка, соперник продолжает", spb_wpa: "2 очка, соперник может потребовать перебить",
      start: "Начать матч", sticker: "Напечатать наклейку для стола", queue: "Победитель остаётся: встать в очередь",
      cancel: "Отмена", confirm_undo: "Отменить последний удар?", yes_undo: "Да, отменить",
      confirm_new: "Закончить эту партию и начать новую?", yes_new: "Да, новая партия",
      ok: "✓ Принято", refused: "Отказ: {0}",
      e401: "У этого телефона нет ключа доступа: отсканируйте QR-код на столе.",
      e403: "Ключ доступа не подходит к этому столу (возможно, его сменили): отсканируйте QR-код снова.",
      e429: "Слишком часто: подождите секунду и попробуйте снова.",
      e_net: "Стол не отвечает: проверьте Wi-Fi и попробуйте снова.",
      cue: "биток"
    }
  };

  var V = null;                 // the referee's vocabulary (vocabulary.json)
  var lang = "en";
  var token = null;
  var canPlay = false;
  var state = null;
  var log = [];                 // the shot log of the stream's envelope
  var selected = null;          // ball chosen for a call
  var resultTimer = null;
  var confirmAction = null;
  var formFilled = null;        // the match id the form was last filled from
  var expectMatchAfter = null;  // this phone asked for a new match while this one was in play

  function $(id) { return document.getElementById(id); }
  // The race as shown: "5/3" (each player's, a handicap) or "5"; "" for one rack.
  function raceText(s) {
    var e = s.race_to_each;
    if (e && e.length === 2 && e[0] !== e[1]) { return e[0] + "/" + e[1]; }
    return s.race_to > 1 ? String(s.race_to) : "";
  }

  // The race a rematch is played to: each player's again when handicapped.
  function sameRace(s) {
    var e = s.race_to_each;
    return (e && e.length === 2 && e[0] !== e[1]) ? [e[0], e[1]] : (s.race_to || 1);
  }

  function t(key) {
    var s = (T[lang] && T[lang][key] != null) ? T[lang][key] : (T.en[key] != null ? T.en[key] : key);
    for (var i = 1; i < arguments.length; i++) { s = s.split("{" + (i - 1) + "}").join(String(arguments[i])); }
    return s;
  }
  function cap(s) { return s ? s.charAt(0).toUpperCase() + s.slice(1) : s; }
  function vocab(group, key, field) {
    var e = V && V[group] && V[group][key];
    if (!e) { return key; }
    var v = field ? e[field] : e;
    return (v && (v[lang] || v.en)) || key;
  }
  function show(id, text) {
    var el = $(id);
    if (text) { el.textContent = text; el.hidden = false; } else { el.textContent = ""; el.hidden = true; }
  }
  function pname(i) {
    var p = state && (state.players || [])[i];
    return (p && p.name) ? String(p.name) : t(i ? "player2" : "player1");
  }
  function pocketName(p) { return vocab("pockets", p, "short"); }
  function opt(o) { return vocab("options", o); }
  function codeText(c) { return cap(vocab("fouls", c)); }
  function gameName(g) { return vocab("games", g); }
  function storage(key, value) {
    try {
      if (value === undefined) { return window.localStorage.getItem(key); }
      if (value === null) { window.localStorage.removeItem(key); } else { window.localStorage.setItem(key, value); }
    } catch (e) { return null; }
    return null;
  }
  function matchId(s) { return s && s.match && s.match.id != null ? String(s.match.id) : ""; }
  function lagNeeded(s) { return (s.needs || []).some(function (x) { return x.cmd === "lag"; }); }
  function matchScore(s) {
    if (s.match_score && s.match_score.length === 2) { return s.match_score; }
    var ps = s.players || [];
    return [(ps[0] || {}).score || 0, (ps[1] || {}).score || 0];
  }

  // ------------------------------------------------------------- access
  function readToken() {
    var m = /(?:^#|&)t=([A-Za-z0-9_\-]+)/.exec(location.hash || "");
    if (m) {
      token = m[1];
      storage("billiards-token", token);
      // Keep the token out of the address bar (screenshots, sharing the view-only link).
      try { history.replaceState(null, "", location.pathname + location.search); } catch (e) { /* ignore */ }
    } else {
      token = storage("billiards-token");
    }
  }

  function setMode(play, why) {
    canPlay = play;
    document.body.classList.toggle("readonly", !play);
    $("viewonly").hidden = play;
    if (why) { showResult(false, why); }
    if (state) { render(state); }
  }

  function checkToken() {
    if (!token) { setMode(false); return; }
    fetch("api/token", {headers: {"Authorization": "Bearer " + token}, cache: "no-store"})
      .then(function (r) {
        if (r.status === 200) { setMode(true); return; }
        if (r.status === 401 || r.status === 403) {
          storage("billiards-token", null);
          token = null;
          setMode(false, t("e" + r.status));
          return;
        }
        setMode(true);   // rate limited or a hiccup: try commands, they say why if refused
      })
      .catch(function () { setMode(!!token); });
  }

  // ----------------------------------------------------------- commands
  // The answer to a tap: at the foot of the screen, never over the score and the turn; a tap
  // on it dismisses it. "Done" goes in a moment; a refusal stays to be read, until the next
  // shot is judged or 10 s have passed.
  var resultAt = null;
  function showResult(ok, text) {
    var el = $("result");
    el.textContent = text;
    el.className = ok ? "ok" : "bad";
    el.hidden = false;
    el.dataset.ok = ok ? "1" : "0";
    // A refusal is about the shot it was made at; "Done" is about the state the tap made, which
    // may already be a new rack or shot by the time the answer arrives, so it keeps its moment.
    resultAt = !ok && state ? [state.rack, state.shot].join(":") : null;
    if (resultTimer) { clearTimeout(resultTimer); resultTimer = null; }
    resultTimer = setTimeout(function () { el.hidden = true; }, ok ? 1500 : 10000);
  }

  // A refusal in this page's language: the referee's own words for players (`text`), never
  // the clause codes of `error` (kept for referees and programs).
  function refusalText(res) {
    if (res && res.text && (res.text[lang] || res.text.en)) { return res.text[lang] || res.text.en; }
    return (res && res.error) || "";
  }

  function send(name, body, then, failed) {
    if (!token) { showResult(false, t("e401")); return; }
    document.body.dataset.busy = "1";
    var status = 0;
    fetch("api/cmd/" + name, {
      method: "POST", cache: "no-store",
      headers: {"Content-Type": "application/json", "Authorization": "Bearer " + token},
      body: JSON.stringify(body || {})
    }).then(function (r) {
      status = r.status;
      return r.json().catch(function () { return {}; });
    }).then(function (res) {
      document.body.dataset.busy = "";
      if (status === 401 || status === 403) {
        setMode(false, t("e" + status));
        if (failed) { failed(); }
        return;
      }
      if (status === 429) { showResult(false, t("e429")); if (failed) { failed(); } return; }
      // This phone began a new match: the answer carries the new match's token (the old one,
      // and a photo of the old QR code, no longer work).
      if (res && typeof res.token === "string" && /^[A-Za-z0-9_\-]+$/.test(res.token)) {
        token = res.token;
        storage("billiards-token", token);
      }
      if (res && res.ok) {
        showResult(true, t("ok"));
        if (then) { then(); }
      } else {
        showResult(false, t("refused", refusalText(res) || ("HTTP " + status)));
        if (failed) { failed(); }
      }
    }).catch(function () {
      document.body.dataset.busy = "";
      showResult(false, t("e_net"));
      if (failed) { failed(); }
    });
  }

  function ask(text, yes, action) {
    $("confirm-text").textContent = text;
    $("confirm-yes").textContent = yes;
    confirmAction = action;
    $("confirm").hidden = false;
  }

  // ----------------------------------------------------------- drawing
  var SVGNS = "http://www.w3.org/2000/svg";
  function svg(tag, attrs, parent) {
    var el = document.createElementNS(SVGNS, tag);
    for (var k in attrs) { if (Object.prototype.hasOwnProperty.call(attrs, k)) { el.setAttribute(k, attrs[k]); } }
    if (parent) { parent.appendChild(el); }
    return el;
  }
  var ballColor = BilliardsLive.ballColor;

  function drawPockets() {
    var g = $("pockets");
    g.textContent = "";
    POCKETS.forEach(function (p) {
      var grp = svg("g", {"class": "pocket", "data-pocket": p[0], role: "button",
                          "aria-label": vocab("pockets", p[0])}, g);
      svg("circle", {"class": "hole", cx: p[1], cy: p[2], r: 7}, grp);
      svg("circle", {"class": "hit", cx: p[1], cy: p[2], r: 13}, grp);
      // Names a player reads at the table, on the rails where no ball is drawn: the corner
      // pockets' on the short rails, the side pockets' along the long rails.
      var side = p[0].indexOf("side") === 0;
      var label;
      if (side) {
        var x = p[1] < 60 ? 5.2 : 114.8, y = p[2] + 24;
        label = svg("text", {x: x, y: y, transform: "rotate(" + (p[1] < 60 ? -90 : 90) + " " + x + " " + y + ")"}, grp);
      } else {
        label = svg("text", {x: p[1] < 60 ? 33 : 87, y: p[2] < 100 ? 6.8 : 196.8}, grp);
      }
      label.textContent = pocketName(p[0]);
      grp.addEventListener("click", function () { tapPocket(p[0]); });
    });
  }

  function drawBall(parent, n, x, y, r) {
    var grp = svg("g", {"class": "ball", "data-ball": n, role: "button", "aria-label": t("ball", n)}, parent);
    var id = "clip" + n;
    var clip = svg("clipPath", {id: id}, grp);
    svg("circle", {cx: x, cy: y, r: r}, clip);
    if (n > 8) {
      svg("circle", {cx: x, cy: y, r: r, fill: "#fafafa"}, grp);
      svg("rect", {x: x - r, y: y - r * 0.55, width: 2 * r, height: r * 1.1, fill: ballColor(n),
                   "clip-path": "url(#" + id + ")"}, grp);
    } else {
      svg("circle", {cx: x, cy: y, r: r, fill: ballColor(n)}, grp);
    }
    svg("circle", {cx: x, cy: y, r: r * 0.5, fill: "#fff"}, grp);
    var tx = svg("text", {x: x, y: y + 0.3}, grp);
    tx.textContent = String(n);
    svg("circle", {"class": "outline", cx: x, cy: y, r: r + 1.4}, grp);
    svg("circle", {"class": "hit", cx: x, cy: y, r: r + 2}, grp);
    grp.addEventListener("click", function () { tapBall(n); });
    return grp;
  }

  function drawBalls(s) {
    var g = $("svgballs");
    g.textContent = "";
    // Between racks the finished rack is gone from the drawing: the balls are being racked.
    var balls = s.between_racks ? [] : (s.on_table || []).slice().sort(function (a, b) { return a - b; });
    $("racking").textContent = s.between_racks ? t("racking") : "";
    if (selected !== null && balls.indexOf(selected) < 0) { selected = null; }
    var lowest = balls.length ? balls[0] : null;
    var rows = Math.ceil(balls.length / 4);
    balls.forEach(function (n, i) {
      var col = i % 4, row = Math.floor(i / 4);
      var inRow = Math.min(4, balls.length - row * 4);
      // Between the foot pockets and the side pockets, clear of both.
      var el = drawBall(g, n, 60 + (col - (inRow - 1) / 2) * 23, 60 + (row - (rows - 1) / 2) * 24, 10.5);
      if (n === selected) { el.classList.add("sel"); }
      if (s.game === "nine-ball" && n === lowest) { el.classList.add("on"); }
    });
    var called = s.called && s.phase !== "over" ? s.called.pocket : null;
    var needs = (s.needs || []).filter(function (x) { return x.cmd === "identify"; })
      .map(function (x) { return x.pocket; });
    Array.prototype.forEach.call(document.querySelectorAll("#pockets .pocket"), function (p) {
      p.classList.toggle("called", p.dataset.pocket === called);
      p.classList.toggle("needs", needs.indexOf(p.dataset.pocket) >= 0);
    });
  }

  function chips(containerId, numbers, onTap) {
    var box = $(containerId);
    box.textContent = "";
    numbers.forEach(function (n) {
      var b = document.createElement("button");
      b.type = "button";
      b.className = "chip" + (n > 8 ? " stripe" : "") + (n === 0 ? " cue" : "");
      b.style.backgroundColor = ballColor(n);
      b.dataset.ball = String(n);
      b.setAttribute("aria-label", n === 0 ? t("cue") : t("ball", n));
      var sp = document.createElement("span");
      sp.textContent = n === 0 ? "○" : String(n);
      b.appendChild(sp);
      b.addEventListener("click", function () { onTap(n); });
      box.appendChild(b);
    });
  }

  function allBalls(s) {
    var top = s.game === "nine-ball" ? 9 : 15;
    var out = [0];
    for (var i = 1; i <= top; i++) { out.push(i); }
    return out;
  }

  // -------------------------------------------------------------- taps
  // Calls exist in eight-ball and 14.1 only (NB.NO-CALL): in nine-ball the drawn table shows.
  function calls() { return !!state && state.game !== "nine-ball"; }

  function tapBall(n) {
    if (!canPlay || !calls()) { return; }
    selected = selected === n ? null : n;
    if (state) { drawBalls(state); }
  }

  function tapPocket(p) {
    if (!canPlay || !calls()) { return; }
    var body = {pocket: p};
    if (selected !== null) { body.ball = selected; }
    send("call", body, function () { selected = null; });
  }

  // ------------------------------------------------------------- state
  // What the page is for now: setting up a match (none yet, or one not yet begun that this
  // phone has not taken to the table), the table (a match in play), or the end of a match.
  function modeOf(s) {
    if (!s || !s.game) { return "setup"; }
    if (s.winner === 0 || s.winner === 1) { return "over"; }
    if (!canPlay) { return "table"; }               // a phone without the token only watches
    var fresh = s.shot === 0 && (s.rack || 1) === 1 && !lagNeeded(s) && !(s.match && s.match.assignment);
    return fresh && storage("billiards-table-for") !== matchId(s) ? "setup" : "table";
  }

  function render(s) {
    state = s;
    if (!s || typeof s !== "object" || !V) { return; }     // the words first (vocabulary.json)
    if (expectMatchAfter !== null && matchId(s) !== expectMatchAfter) {
      storage("billiards-table-for", matchId(s));       // the match this phone just set up
      expectMatchAfter = null;
    }
    if (resultAt !== null && resultAt !== [s.rack, s.shot].join(":")) { $("result").hidden = true; resultAt = null; }
    var mode = modeOf(s);
    var over = s.phase === "over";
    var between = !!s.between_racks;
    document.body.dataset.shot = s.shot == null ? "" : String(s.shot);
    document.body.dataset.phase = s.phase || "";
    document.body.dataset.mode = mode;
    document.body.dataset.game = s.game || "";
    document.body.classList.toggle("between", between);
    $("table").textContent = s.table ? t("table") + " " + s.table : "";
    var info = s.game ? [gameName(s.game)] : [];
    if (s.game === "straight-pool" && s.target) { info.push(t("to_points", s.target)); }
    if (raceText(s)) { info.push(t("race", raceText(s))); }
    $("game").textContent = info.join(" · ");

    var ms = matchScore(s);
    for (var i = 0; i < 2; i++) {
      var p = (s.players || [])[i] || {};
      $("name" + i).textContent = pname(i);
      $("score" + i).textContent = p.score == null ? "0" : String(p.score);
      var next = between && s.next_break && s.next_break.player === i;
      $("p" + i).classList.toggle("shooting", (!over && s.shooter === i) || next);
      var sub = [];
      if (p.group && !over) { sub.push(vocab("groups", p.group)); }
      if (s.game === "straight-pool" && s.target && !over) { sub.push(t("to_go", Math.max(0, s.target - (p.score || 0)))); }
      if (s.game === "straight-pool" && s.race_to > 1) { sub.push(t("games_won", ms[i])); }
      if (p.fouls && !over) { sub.push(t("fouls", p.fouls)); }
      if (!over && s.shooter === i && s.run > 0) { sub.push(t("run", s.run)); }
      $("sub" + i).textContent = sub.join(" · ");
      $("lag" + i).textContent = t("lag_won", pname(i));
      $("stale" + i).textContent = t("stalemate", pname(i));
      $("stats-name" + i).textContent = pname(i);
    }
    var line = [];
    if (s.game && (s.race_to > 1 || (s.rack || 1) > 1)) { line.push(t("rack", s.rack || 1)); }
    if (s.hill_hill) { line.push(t("hill_hill")); }
    show("matchline", line.join(" · "));

    var win = "";
    if (over && (s.winner === 0 || s.winner === 1)) {
      win = t("wins_match", pname(s.winner), ms[0] + ":" + ms[1]);
    } else if (over && !between && (s.game_winner === 0 || s.game_winner === 1)) {
      win = t("wins_game", pname(s.game_winner), ms[0] + ":" + ms[1]);
    }
    show("winner", win);
    $("btn-rematch").hidden = mode !== "over";

    renderRackOver(s, between, ms);

    var last = s.last_shot || {};
    var foulText = "";
    if (!over && last.fouls && last.fouls.length) {
      var lf = s.last_foul;
      var codes = (lf && lf.codes && lf.codes.length) ? lf.codes : last.fouls;
      var who = (lf && (lf.player === 0 || lf.player === 1)) ? pname(lf.player) : "";
      foulText = t("foul", who, codes.map(codeText).join(", "));
    }
    show("foul", foulText);
    show("bih", !over && s.ball_in_hand && s.shot > 0 && (s.shooter === 0 || s.shooter === 1)
      ? t("bih", pname(s.shooter)) + (s.ball_in_hand === "kitchen" ? t("bih_kitchen") : "") : "");
    show("pushout", !over && s.push_out && (s.shooter === 0 || s.shooter === 1)
      ? t("push_pending", pname(s.shooter), pname(1 - s.shooter)) : "");
    var warn = "";
    if (!over && s.warning) {
      warn = (s.warning.text && (s.warning.text[lang] || s.warning.text.en)) || "";
    }
    show("warning", warn);
    show("link", s.link && s.link.state === "down" ? t("link_down") : "");
    var called = "";
    if (!over && s.called) {
      called = t("called", (s.called.ball != null ? t("ball", s.called.ball) : "") +
        (s.called.pocket ? t("in_pocket", pocketName(s.called.pocket)) : ""));
    }
    show("called", called);

    // A pending decision: only the options offered, and why it is asked.
    var d = !over ? s.decision : null;
    $("decide").hidden = !d;
    if (d) {
      $("decide-title").textContent = t("decide", pname(d.player));
      var why = s.decision_reason && s.decision_reason.text;
      show("decide-why", why ? (why[lang] || why.en) : "");
      var box = $("options");
      box.textContent = "";
      (d.options || []).forEach(function (o) {
        var b = document.createElement("button");
        b.type = "button";
        b.className = "big option";
        b.dataset.option = o;
        b.textContent = opt(o);
        b.addEventListener("click", function () { send("choose", {option: o}); });
        box.appendChild(b);
      });
    }

    // What the sensors could not tell: which ball dropped.
    var need = (s.needs || []).filter(function (x) { return x.cmd === "identify"; })[0];
    $("identify").hidden = !need;
    if (need) {
      $("identify-title").textContent = t("identify_title", pocketName(need.pocket));
      chips("identify-balls", allBalls(s), function (n) { send("identify", {pocket: need.pocket, ball: n}); });
    }
    // The lag: only while the referee asks for it (a match set up "lag for it", a deciding rack).
    $("lag").hidden = !lagNeeded(s) || mode !== "table";
    // Each lag's winner breaks unless they hand it over then: no choice outlives its lag.
    if (!lagNeeded(s)) { $("lag-breaks").checked = true; }
    $("lag-title").textContent = t(between ? "deciding_lag" : "lag_title");

    $("callhint").hidden = !calls() || between;
    $("btn-safety").hidden = s.game === "nine-ball";
    $("btn-push").hidden = s.game !== "nine-ball";
    $("btn-end").hidden = !s.shot_open;
    $("rackbox").hidden = s.game !== "straight-pool";
    chips("jumped-balls", allBalls(s), function (n) {
      send("foul", {code: "jumped_ball", ball: n}, function () { $("jumped-pick").hidden = true; });
    });
    chips("spot-balls", (last.pocketed || []).filter(function (n) { return n > 0; }), function (n) {
      send("spot", {ball: n}, function () { $("spot-pick").hidden = true; });
    });

    drawBalls(s);
    renderLog();
    renderStats(s);
    placeForm(mode);
    if (formFilled !== matchId(s) && s.players && s.players.length === 2) { fillForm(s); }
    tick();
  }

  // Between the racks of a match: who won it, the rack score and the race, who breaks the next
  // rack (or the lag for the deciding one), and one tap to begin it.
  function renderRackOver(s, between, ms) {
    $("rackover").hidden = !between;
    if (!between) { return; }
    var racks = s.racks || [];
    var lastRack = racks.length ? racks[racks.length - 1] : null;
    var w = lastRack ? lastRack.winner : s.game_winner;
    $("rackover-title").textContent = (w === 0 || w === 1) ? t("rack_won", pname(w), lastRack ? lastRack.rack : (s.rack || 1)) : "";
    $("rackover-score").textContent = t("rack_score", pname(0), ms[0], ms[1], pname(1), raceText(s) || s.race_to) +
      (s.hill_hill ? " · " + t("hill_hill") : "");
    var nb = s.next_break || {};
    var known = nb.player === 0 || nb.player === 1;
    $("rackover-next").textContent = known ? t("breaks_next", pname(nb.player), nb.rack || (s.rack || 1) + 1)
      : t("lag_decides");
    $("btn-next-rack").hidden = !known;
    $("btn-next-rack").textContent = known ? t("next_rack", pname(nb.player)) : "";
    $("rackover-hint").hidden = !known;
  }

  function renderLog() {
    BilliardsLive.fillLog($("log-list"), log, lang, LOG_SHOWN);
    $("log").hidden = !log.length;
  }

  function renderStats(s) {
    var st = s.stats || [];
    if (st.length !== 2) { $("stats").hidden = true; $("stats-body").textContent = ""; return; }
    var inn = s.innings || [];
    var bnr = s.break_and_runs || [];
    BilliardsLive.fillStats($("stats-body"), [
      ["st_pocketed", st[0].pocketed, st[1].pocketed], ["st_fouls", st[0].fouls, st[1].fouls],
      ["st_high_run", st[0].high_run, st[1].high_run], ["st_innings", inn[0], inn[1]],
      ["st_breaks", st[0].breaks + " (" + st[0].legal_breaks + ")", st[1].breaks + " (" + st[1].legal_breaks + ")"],
      ["st_bnr", bnr[0], bnr[1]],
      ["st_run", s.shooter === 0 ? s.run : 0, s.shooter === 1 ? s.run : 0]
    ].map(function (r) { return [r[0], t(r[0])].concat(r.slice(1)); }));
    $("stats").hidden = !(s.shot > 0 || (s.rack || 1) > 1);
  }

  function tick() {
    BilliardsLive.clock($("clock"), state, "0:00");
    var sc = state && state.shot_clock;
    var out = sc && !$("clock").hidden && ($("clock").dataset.left === "0" || sc.expired === true);
    var who = state && (state.shooter === 0 || state.shooter === 1) ? pname(state.shooter) : "";
    show("timeup", out ? t("time_up", who) : "");
  }

  // ---------------------------------------------------------- new match
  // One form: on the first screen when a match is to be set up, else behind "New match".
  function placeForm(mode) {
    var form = $("ng-form");
    var setup = mode === "setup" || mode === "over";
    $("setup").hidden = !setup;
    $("newgame").hidden = setup;
    var home = setup ? $("setup-form") : $("newgame");
    if (form.parentNode !== home) { home.appendChild(form); }
    // First thing on the first screen; after the winner and "Play again" when a match is over.
    var after = mode === "over" ? $("rackover") : $("viewonly");
    if (after.nextElementSibling !== $("setup")) { after.parentNode.insertBefore($("setup"), after.nextElementSibling); }
    $("btn-rename").hidden = setup;
    $("btn-to-table").hidden = mode !== "setup" || !state || !state.game;
    $("setup-title").textContent = t(mode === "over" ? "new_game" : "setup_title");
    document.body.classList.toggle("setup", mode === "setup");
  }

  function fillForm(s) {
    formFilled = matchId(s);
    var names = [pname(0), pname(1)];
    var saved = (storage("billiards-names") || "").split("\n");
    if (s.shot === 0 && (s.rack || 1) === 1 && saved.length === 2 && /^Player [12]$/.test(names[0])) { names = saved; }
    $("ng-p0").value = names[0];
    $("ng-p1").value = names[1];
    if (s.game) {
      var r = document.querySelector('#ng-games input[value="' + s.game + '"]');
      if (r) { r.checked = true; }
    }
    if (s.race_to) { $("ng-race").value = s.race_to; $("ng-sprace").value = s.race_to; }
    var each = s.race_to_each;                       // a handicapped match: each player's own race
    var handicapped = each && each.length === 2 && each[0] !== each[1];
    if (handicapped) { $("ng-race").value = each[0]; }
    $("ng-race2").value = handicapped ? each[1] : "";
    if (s.target) { $("ng-target").value = s.target; }
    var st = s.settings || {};
    if (st.shot_clock != null) { $("ng-clock").value = String(st.shot_clock); }
    $("ng-winner-breaks").checked = !!st.winner_breaks;
    $("ng-miss").checked = !!st.miss_option;
    $("ng-strict").checked = !!st.strict_jump;
    $("ng-call").checked = st.call_required !== false;
    if (st.sp_illegal_break) { $("ng-spbreak").value = st.sp_illegal_break; }
    formNames();
    formGame();
  }

  // "Who breaks" names the players as they are typed.
  function formNames() {
    [0, 1].forEach(function (i) {
      $("ng-breaker").options[i].textContent = $("ng-p" + i).value.trim() || t(i ? "player2" : "player1");
    });
  }

  function formGame() {
    var g = document.querySelector('#ng-games input:checked');
    $("ng-form").dataset.game = g ? g.value : "eight-ball";
  }

  function inProgress(s) {
    return !!s && !!s.game && s.winner == null && (s.shot > 0 || (s.rack || 1) > 1);
  }

  function matchBody() {
    var game = $("ng-form").dataset.game;
    var who = $("ng-breaker").value;
    var body = {game: game, players: [$("ng-p0").value.trim(), $("ng-p1").value.trim()],
                shot_clock: $("ng-clock").value ? +$("ng-clock").value : null,
                winner_breaks: $("ng-winner-breaks").checked};
    if (who === "lag") { body.lag = true; } else { body.breaker = +who; }
    if (game === "straight-pool") {
      body.target = +$("ng-target").value;
      body.race_to = +$("ng-sprace").value;
      body.strict_jump = $("ng-strict").checked;
      body.call_required = $("ng-call").checked;
      body.sp_illegal_break = $("ng-spbreak").value;
    } else {
      // A second race, when given and not the same, makes a handicapped match: [first, second].
      var first = +$("ng-race").value, second = $("ng-race2").value;
      body.race_to = second && +second !== first ? [first, +second] : first;
    }
    if (game === "nine-ball") { body.miss_option = $("ng-miss").checked; }
    return body;
  }

  function startMatch(body) {
    storage("billiards-names", body.players.join("\n"));
    expectMatchAfter = matchId(state);
    send("new_game", body, function () { $("newgame").open = false; formFilled = null; },
         function () { expectMatchAfter = null; });
  }

  function newGame(ev) {
    ev.preventDefault();
    var body = matchBody();
    // A match in play is replaced only after asking.
    if (inProgress(state)) {
      ask(t("confirm_new"), t("yes_new"), function () { startMatch(body); });
    } else {
      startMatch(body);
    }
  }

  // The same match again: game, players, length and settings; the lag decides the break.
  function rematch() {
    if (!state || !state.game) { return; }
    var st = state.settings || {};
    var body = {game: state.game, players: [pname(0), pname(1)], race_to: sameRace(state), lag: true};
    if (state.game === "straight-pool") { body.target = state.target; }
    ["shot_clock", "winner_breaks", "miss_option", "strict_jump", "call_required", "sp_illegal_break"]
      .forEach(function (k) { if (st[k] !== undefined) { body[k] = st[k]; } });
    startMatch(body);
  }

  // A name typed differently from the one playing: `rename`, one player after the other.
  function rename() {
    var todo = [0, 1].filter(function (i) {
      var v = $("ng-p" + i).value.trim();
      return v && v !== pname(i);
    });
    var next = function (k) {
      if (k >= todo.length) { $("newgame").open = false; return; }
      send("rename", {player: todo[k], name: $("ng-p" + todo[k]).value.trim()}, function () { next(k + 1); });
    };
    storage("billiards-names", [$("ng-p0").value.trim(), $("ng-p1").value.trim()].join("\n"));
    next(0);
  }

  // ---------------------------------------------------------- language
  function applyLang() {
    document.documentElement.lang = lang;
    $("lang").textContent = lang === "en" ? "RU" : "EN";
    Array.prototype.forEach.call(document.querySelectorAll("[data-i18n]"), function (el) {
      el.textContent = t(el.dataset.i18n);
    });
    Array.prototype.forEach.call(document.querySelectorAll("#ng-games span[data-game]"), function (el) {
      el.textContent = gameName(el.dataset.game);
    });
    Array.prototype.forEach.call(document.querySelectorAll("#rack-fifteenth option, #rack-cue option"),
      function (o) { o.textContent = t("rack_" + o.value); });
    Array.prototype.forEach.call($("ng-clock").options, function (o) {
      o.textContent = o.value ? t("seconds", o.value) : t("off");
    });
    var fc = $("foul-codes");
    fc.textContent = "";
    Object.keys((V && V.fouls) || {}).filter(function (c) { return V.fouls[c].entered_by_hand; }).forEach(function (c) {
      var b = document.createElement("button");
      b.type = "button";
      b.className = "big foulcode";
      b.dataset.code = c;
      b.textContent = codeText(c);
      b.addEventListener("click", function () {
        if (c === "jumped_ball") { $("jumped-pick").hidden = !$("jumped-pick").hidden; return; }
        send("foul", {code: c});
      });
      fc.appendChild(b);
    });
    drawPockets();
    formNames();
    var c = $("conn");
    c.textContent = t(c.classList.contains("live") ? "live" : "connecting");
    if (state) { render(state); }
  }

  function wire() {
    $("lang").addEventListener("click", function () {
      $("result").hidden = true;            // an answer in the other language goes
      lang = lang === "en" ? "ru" : "en";
      storage("billiards-lang", lang);
      applyLang();
    });
    $("result").addEventListener("click", function () { $("result").hidden = true; });
    $("btn-safety").addEventListener("click", function () { send("safety", {}); });
    $("btn-push").addEventListener("click", function () { send("push_out", {}); });
    $("btn-end").addEventListener("click", function () { send("end_shot", {}); });
    $("btn-next-rack").addEventListener("click", function () { send("next_rack", {}); });
    $("btn-undo").addEventListener("click", function () {
      ask(t("confirm_undo"), t("yes_undo"), function () { send("undo", {}); });
    });
    $("confirm-no").addEventListener("click", function () { $("confirm").hidden = true; confirmAction = null; });
    $("confirm-yes").addEventListener("click", function () {
      $("confirm").hidden = true;
      var a = confirmAction;
      confirmAction = null;
      if (a) { a(); }
    });
    $("btn-legal-break").addEventListener("click", function () { send("legal_break", {}); });
    $("btn-spot-open").addEventListener("click", function () { $("spot-pick").hidden = !$("spot-pick").hidden; });
    $("btn-rack").addEventListener("click", function () {
      send("rack", {fifteenth: $("rack-fifteenth").value, cue: $("rack-cue").value});
    });
    [0, 1].forEach(function (i) {
      $("lag" + i).addEventListener("click", function () {
        send("lag", {winner: i, breaks: $("lag-breaks").checked});
      });
      $("stale" + i).addEventListener("click", function () { send("stalemate", {shooter: i}); });
      $("ng-p" + i).addEventListener("input", formNames);
    });
    $("ng-games").addEventListener("change", formGame);
    $("btn-rematch").addEventListener("click", rematch);
    $("btn-to-table").addEventListener("click", function () {
      storage("billiards-table-for", matchId(state));
      if (state) { render(state); }
      window.scrollTo(0, 0);
    });
    $("ng-form").addEventListener("submit", newGame);
    $("btn-rename").addEventListener("click", rename);
  }


  var saved = storage("billiards-lang");
  var q = /[?&]lang=(en|ru)/.exec(location.search);
  lang = q ? q[1] : (saved || ((navigator.language || "").toLowerCase().indexOf("ru") === 0 ? "ru" : "en"));
  readToken();
  wire();
  applyLang();
  formGame();
  setMode(false);
  checkToken();
  BilliardsLive.vocabulary(function (v) { V = v; applyLang(); });
  setInterval(tick, 250);
  BilliardsLive.connect($("conn"), function () { return {live: t("live"), reconnecting: t("reconnecting")}; },
                        render, function (m) { if (Array.isArray(m.log)) { log = m.log; } });
})();
