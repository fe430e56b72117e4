// Phone page: the table state over SSE (/events, as the TV page), commands over
// POST api/cmd/<name> with the table's token (from the QR code's URL fragment).
(function () {
  "use strict";
  // Pockets seen from the head end (where the breaker stands): the foot is at the top.
  var POCKETS = [["head-left", 10, 190], ["side-left", 8, 100], ["foot-left", 10, 10],
                 ["foot-right", 110, 10], ["side-right", 112, 100], ["head-right", 110, 190]];
  var FOUL_CODES = ["wrong_first_contact", "no_contact", "no_rail", "cue_pocketed", "jumped_ball",
                    "double_hit", "push_shot", "touched_ball", "no_foot_on_floor", "bad_stroke",
                    "near_ball", "moving_ball", "kitchen", "illegal_break", "interference"];
  var T = {
    en: {
      connecting: "connecting…", live: "live", reconnecting: "reconnecting…",
      viewonly: "View only. Scan the QR code on the table (or on the TV) to play from this phone.",
      table: "Table", g_eight: "Eight-ball", g_nine: "Nine-ball", g_straight: "Straight pool",
      "eight-ball": "Eight-ball", "nine-ball": "Nine-ball", "straight-pool": "Straight pool",
      race: "race to {0}", to_points: "to {0}", fouls: "fouls: {0}", to_go: "{0} to go",
      solids: "solids", stripes: "stripes",
      foul: "Foul by {0}: {1}", bih: "{0} has ball in hand", bih_kitchen: " (behind the head string)",
      link_down: "Table sensors offline: scores may lag",
      called: "Called: {0}", ball: "ball {0}", in_pocket: " in {0}",
      wins_match: "{0} wins the match {1}", wins_game: "{0} wins the game {1}",
      decide: "{0}, choose:", who_decides: "{0} decides",
      lag_title: "Who won the lag?", lag_won: "{0} won", lag_breaks: "The winner breaks",
      head_end: "head (break end)", foot_end: "foot",
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
      rematch: "Play again", rename: "Only change the names (the game goes on)",
      new_game: "New game", player1: "Player 1", player2: "Player 2", race_to: "Race to (games)",
      target: "Points to win", shot_clock: "Shot clock", off: "off", breaker: "Who breaks",
      miss_option: "Miss option (NB.MISS-OPTION)", strict_jump: "Any ball off the table is a foul (SP.STRICT-JUMP)",
      call_required: "Only called balls count (SP.CALL)", sp_illegal_break: "Illegal opening break (SP.BREAK)",
      spb_penalty: "2 points, opponent plays on", spb_wpa: "2 points, opponent may make them break again",
      start: "Start new game", sticker: "Print the table sticker",
      cancel: "Cancel", confirm_undo: "Take back the last shot?", yes_undo: "Yes, undo",
      confirm_new: "End this game and start a new one?", yes_new: "Yes, new game",
      ok: "✓ Done", refused: "Refused: {0}",
      e401: "This phone has no access token: scan the QR code on the table.",
      e403: "This access token is not valid for this table (it may have been changed): scan the QR code again.",
      e429: "Too many taps: wait a second and try again.",
      e_net: "No answer from the table: check the Wi-Fi and try again.",
      accept: "Play on from here", rebreak: "Break again", rerack: "Re-rack, I break",
      rerack_offender_breaks: "Re-rack, opponent breaks", spot_eight: "Spot the 8 and play on",
      pass_back: "Pass the shot back", reshoot: "Make them shoot again",
      pockets: {"head-left": "head left", "side-left": "side left", "foot-left": "foot left",
                "foot-right": "foot right", "side-right": "side right", "head-right": "head right"},
      pk: {"head-left": "HL", "side-left": "SL", "foot-left": "FL", "foot-right": "FR",
           "side-right": "SR", "head-right": "HR"},
      codes: {cue_pocketed: "Cue ball pocketed", no_rail: "No ball reached a rail", illegal_break: "Illegal break",
              wrong_first_contact: "Wrong ball hit first", no_contact: "No ball hit",
              jumped_ball: "Ball off the table", double_hit: "Double hit", push_shot: "Push shot",
              touched_ball: "Ball touched", no_foot_on_floor: "No foot on the floor",
              bad_stroke: "Improper stroke", near_ball: "Near-ball stroke",
              moving_ball: "Shot while balls moving", kitchen: "Kitchen ball-in-hand misplayed",
              interference: "Opponent interfered", three_fouls: "Three fouls in a row"},
      cue: "cue"
    },
    ru: {
      connecting: "подключение…", live: "на связи", reconnecting: "переподключение…",
      viewonly: "Только просмотр. Отсканируйте QR-код на столе (или на экране), чтобы играть с телефона.",
      table: "Стол", g_eight: "Восьмёрка", g_nine: "Девятка", g_straight: "Прямой пул",
      "eight-ball": "Восьмёрка", "nine-ball": "Девятка", "straight-pool": "Прямой пул",
      race: "до {0} побед", to_points: "до {0} очков", fouls: "фолов: {0}", to_go: "осталось {0}",
      solids: "сплошные", stripes: "полосатые",
      foul: "Фол, {0}: {1}", bih: "{0}: шар с руки", bih_kitchen: " (из дома)",
      link_down: "Датчики стола не на связи: счёт может отставать",
      called: "Заказ: {0}", ball: "шар {0}", in_pocket: " в {0}",
      wins_match: "{0} выигрывает матч {1}", wins_game: "{0} выигрывает партию {1}",
      decide: "{0}, выберите:", who_decides: "Выбирает {0}",
      lag_title: "Кто выиграл розыгрыш разбития?", lag_won: "{0}", lag_breaks: "Победитель разбивает",
      head_end: "дом (разбитие)", foot_end: "дальний борт",
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
      rematch: "Сыграть ещё", rename: "Только сменить имена (партия продолжается)",
      new_game: "Новая партия", player1: "Игрок 1", player2: "Игрок 2", race_to: "Матч до (побед)",
      target: "Очков для победы", shot_clock: "Время на удар", off: "нет", breaker: "Кто разбивает",
      miss_option: "Право повтора при промахе (NB.MISS-OPTION)", strict_jump: "Любой вылет шара — фол (SP.STRICT-JUMP)",
      call_required: "Засчитываются только заказанные шары (SP.CALL)", sp_illegal_break: "Неправильное начальное разбитие (SP.BREAK)",
      spb_penalty: "2 очка, соперник продолжает", spb_wpa: "2 очка, соперник может потребовать перебить",
      start: "Начать новую партию", sticker: "Напечатать наклейку для стола",
      cancel: "Отмена", confirm_undo: "Отменить последний удар?", yes_undo: "Да, отменить",
      confirm_new: "Закончить эту партию и начать новую?", yes_new: "Да, новая партия",
      ok: "✓ Принято", refused: "Отказ: {0}",
      e401: "У этого телефона нет ключа доступа: отсканируйте QR-код на столе.",
      e403: "Ключ доступа не подходит к этому столу (возможно, его сменили): отсканируйте QR-код снова.",
      e429: "Слишком часто: подождите секунду и попробуйте снова.",
      e_net: "Стол не отвечает: проверьте Wi-Fi и попробуйте снова.",
      accept: "Играть с этой позиции", rebreak: "Разбить заново", rerack: "Новая пирамида, разбиваю я",
      rerack_offender_breaks: "Новая пирамида, разбивает соперник", spot_eight: "Выставить 8 и играть",
      pass_back: "Вернуть удар", reshoot: "Пусть повторит удар",
      pockets: {"head-left": "левая угловая у дома", "side-left": "левая средняя", "foot-left": "левая дальняя",
                "foot-right": "правая дальняя", "side-right": "правая средняя", "head-right": "правая угловая у дома"},
      pk: {"head-left": "ЛД", "side-left": "ЛС", "foot-left": "ЛУ", "foot-right": "ПУ",
           "side-right": "ПС", "head-right": "ПД"},
      codes: {cue_pocketed: "Биток в лузе", no_rail: "Ни один шар не дошёл до борта", illegal_break: "Неправильное разбитие",
              wrong_first_contact: "Первым задет не тот шар", no_contact: "Биток не коснулся шаров",
              jumped_ball: "Шар вылетел за борт", double_hit: "Двойное касание", push_shot: "Удар пропихом",
              touched_ball: "Касание шара", no_foot_on_floor: "Нет ноги на полу",
              bad_stroke: "Неправильный удар", near_ball: "Удар по близкому шару",
              moving_ball: "Удар до остановки шаров", kitchen: "Нарушение при ударе из дома",
              interference: "Вмешательство соперника", three_fouls: "Три фола подряд"},
      cue: "биток"
    }
  };

  var lang = "en";
  var token = null;
  var canPlay = false;
  var state = null;
  var selected = null;          // ball chosen for a call
  var resultTimer = null;
  var confirmAction = null;
  var formFilled = false;

  function $(id) { return document.getElementById(id); }
  function t(key) {
    var s = (T[lang] && T[lang][key] != null) ? T[lang][key] : (T.en[key] != null ? T.en[key] : key);
    for (var i = 1; i < arguments.length; i++) { s = s.split("{" + (i - 1) + "}").join(String(arguments[i])); }
    return s;
  }
  function show(id, text) {
    var el = $(id);
    if (text) { el.textContent = text; el.hidden = false; } else { el.textContent = ""; el.hidden = true; }
  }
  function pname(i) {
    var p = state && (state.players || [])[i];
    return (p && p.name) ? String(p.name) : t(i ? "player2" : "player1");
  }
  function pocketName(p) { return (T[lang].pockets[p]) || p; }
  function opt(o) { return T[lang][o] || T.en[o] || o; }
  function codeText(c) { return T[lang].codes[c] || c; }
  function storage(key, value) {
    try {
      if (value === undefined) { return window.localStorage.getItem(key); }
      if (value === null) { window.localStorage.removeItem(key); } else { window.localStorage.setItem(key, value); }
    } catch (e) { return null; }
    return null;
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
  function showResult(ok, text) {
    var el = $("result");
    el.textContent = text;
    el.className = ok ? "ok" : "bad";
    el.hidden = false;
    el.dataset.ok = ok ? "1" : "0";
    if (resultTimer) { clearTimeout(resultTimer); resultTimer = null; }
    if (ok) { resultTimer = setTimeout(function () { el.hidden = true; }, 2500); }
  }

  function send(name, body, then) {
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
        return;
      }
      if (status === 429) { showResult(false, t("e429")); return; }
      if (res && res.ok) {
        showResult(true, t("ok"));
        if (then) { then(); }
      } else {
        showResult(false, t("refused", (res && res.error) || ("HTTP " + status)));
      }
    }).catch(function () {
      document.body.dataset.busy = "";
      showResult(false, t("e_net"));
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
                          "aria-label": pocketName(p[0])}, g);
      svg("circle", {"class": "hole", cx: p[1], cy: p[2], r: 7}, grp);
      svg("circle", {"class": "hit", cx: p[1], cy: p[2], r: 13}, grp);
      // Labels sit on the rail, where no ball is ever drawn.
      var side = p[0].indexOf("side") === 0;
      var tx = side ? (p[1] < 60 ? 5 : 115) : (p[1] < 60 ? 24 : 96);
      var ty = side ? p[2] + 15 : (p[2] < 100 ? 7.3 : 196.8);
      var label = svg("text", {x: tx, y: ty}, grp);
      label.textContent = T[lang].pk[p[0]];
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
    var balls = (s.on_table || []).slice().sort(function (a, b) { return a - b; });
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
  function tapBall(n) {
    if (!canPlay) { return; }
    selected = selected === n ? null : n;
    if (state) { drawBalls(state); }
  }

  function tapPocket(p) {
    if (!canPlay) { return; }
    var body = {pocket: p};
    if (selected !== null) { body.ball = selected; }
    send("call", body, function () { selected = null; });
  }

  // ------------------------------------------------------------- state
  function render(s) {
    state = s;
    if (!s || typeof s !== "object") { return; }
    var over = s.phase === "over";
    document.body.dataset.shot = s.shot == null ? "" : String(s.shot);
    document.body.dataset.phase = s.phase || "";
    $("table").textContent = s.table ? t("table") + " " + s.table : "";
    var info = [t(s.game || "")];
    if (s.game === "straight-pool" && s.target) { info.push(t("to_points", s.target)); }
    if (s.game !== "straight-pool" && s.race_to > 1) { info.push(t("race", s.race_to)); }
    $("game").textContent = s.game ? info.join(" · ") : "";

    for (var i = 0; i < 2; i++) {
      var p = (s.players || [])[i] || {};
      $("name" + i).textContent = pname(i);
      $("score" + i).textContent = p.score == null ? "0" : String(p.score);
      $("p" + i).classList.toggle("shooting", !over && s.shooter === i);
      var sub = [];
      if (p.group) { sub.push(t(p.group)); }
      if (s.game === "straight-pool" && s.target) { sub.push(t("to_go", Math.max(0, s.target - (p.score || 0)))); }
      if (p.fouls) { sub.push(t("fouls", p.fouls)); }
      $("sub" + i).textContent = sub.join(" · ");
      $("lag" + i).textContent = t("lag_won", pname(i));
      $("stale" + i).textContent = t("stalemate", pname(i));
      $("ng-breaker").options[i].textContent = pname(i);
    }

    var win = "";
    if (over) {
      var ps = s.players || [];
      var sc = ps.length === 2 ? (ps[0].score || 0) + ":" + (ps[1].score || 0) : "";
      if (s.winner === 0 || s.winner === 1) { win = t("wins_match", pname(s.winner), sc); }
      else if (s.game_winner === 0 || s.game_winner === 1) { win = t("wins_game", pname(s.game_winner), sc); }
    }
    show("winner", win);
    $("btn-rematch").hidden = !over;

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

    // A pending decision: only the options offered.
    var d = !over ? s.decision : null;
    $("decide").hidden = !d;
    if (d) {
      $("decide-title").textContent = t("decide", pname(d.player));
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
    var lagNeeded = (s.needs || []).some(function (x) { return x.cmd === "lag"; });
    $("lag").hidden = !(lagNeeded || (s.shot === 0 && s.phase === "break"));

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
    if (!formFilled && s.players && s.players.length === 2) { fillForm(s); }
    tick();
  }

  function tick() { BilliardsLive.clock($("clock"), state, "0:00"); }

  // ---------------------------------------------------------- new game
  function fillForm(s) {
    formFilled = true;
    $("ng-p0").value = pname(0);
    $("ng-p1").value = pname(1);
    if (s.game) {
      var r = document.querySelector('#ng-games input[value="' + s.game + '"]');
      if (r) { r.checked = true; }
    }
    if (s.race_to) { $("ng-race").value = s.race_to; }
    if (s.target) { $("ng-target").value = s.target; }
    formGame();
  }

  function formGame() {
    var g = document.querySelector('#ng-games input:checked');
    $("ng-form").dataset.game = g ? g.value : "eight-ball";
  }

  function newGame(ev) {
    ev.preventDefault();
    var game = $("ng-form").dataset.game;
    var body = {game: game, players: [$("ng-p0").value.trim(), $("ng-p1").value.trim()],
                breaker: +$("ng-breaker").value,
                shot_clock: $("ng-clock").value ? +$("ng-clock").value : null};
    if (game === "straight-pool") {
      body.target = +$("ng-target").value;
      body.strict_jump = $("ng-strict").checked;
      body.call_required = $("ng-call").checked;
      body.sp_illegal_break = $("ng-spbreak").value;
    } else {
      body.race_to = +$("ng-race").value;
    }
    if (game === "nine-ball") { body.miss_option = $("ng-miss").checked; }
    var go = function () {
      send("new_game", body, function () { $("newgame").open = false; formFilled = false; });
    };
    if (state && state.shot > 0 && state.phase !== "over") {
      ask(t("confirm_new"), t("yes_new"), go);
    } else {
      go();
    }
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
    next(0);
  }

  // ---------------------------------------------------------- language
  function applyLang() {
    document.documentElement.lang = lang;
    $("result").hidden = true;
    $("lang").textContent = lang === "en" ? "RU" : "EN";
    Array.prototype.forEach.call(document.querySelectorAll("[data-i18n]"), function (el) {
      el.textContent = t(el.dataset.i18n);
    });
    Array.prototype.forEach.call(document.querySelectorAll("#rack-fifteenth option, #rack-cue option"),
      function (o) { o.textContent = t("rack_" + o.value); });
    var fc = $("foul-codes");
    fc.textContent = "";
    FOUL_CODES.forEach(function (c) {
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
    var c = $("conn");
    c.textContent = t(c.classList.contains("live") ? "live" : "connecting");
    if (state) { render(state); }
  }

  function wire() {
    $("lang").addEventListener("click", function () {
      lang = lang === "en" ? "ru" : "en";
      storage("billiards-lang", lang);
      applyLang();
    });
    $("result").addEventListener("click", function () { $("result").hidden = true; });
    $("btn-safety").addEventListener("click", function () { send("safety", {}); });
    $("btn-push").addEventListener("click", function () { send("push_out", {}); });
    $("btn-end").addEventListener("click", function () { send("end_shot", {}); });
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
    });
    $("ng-games").addEventListener("change", formGame);
    $("btn-rematch").addEventListener("click", function () {
      // The same game, players and match length; the lag then decides the break.
      if (!state) { return; }
      var body = {game: state.game, players: [pname(0), pname(1)]};
      if (state.game === "straight-pool") { body.target = state.target; } else { body.race_to = state.race_to; }
      send("new_game", body);
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
  setInterval(tick, 250);
  BilliardsLive.connect($("conn"), function () { return {live: t("live"), reconnecting: t("reconnecting")}; },
                        render);
})();
