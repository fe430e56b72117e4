// Bar-TV scoreboard: renders the table state pushed by host/web/server.py over SSE, in English
// or Russian (?lang=ru, else the browser's language). The referee's words (fouls, options,
// pockets, games, groups) come from vocabulary.json, the one vocabulary.
(function () {
  "use strict";
  var T = {
    en: {
      table: "Table", to_shoot: "▶ to shoot", breaks_next: "▶ breaks next", open_table: "open table",
      to_points: "to {0} points", race: "race to {0}", rack: "rack {0}", to_go: "{0} to go",
      foul_one: "{0} foul", foul_many: "{0} fouls", run: "run {0}",
      hill_hill: "Hill-hill", called: "Called: {0}{1}", in_pocket: " in {0}",
      foul: "FOUL — {0}{1}", bih: "{0} has ball in hand", bih_kitchen: " behind the head string",
      bih_table: " anywhere on the table", push: "Push-out: {0} may place the cue ball anywhere; {1} then chooses",
      time_up: "Time is up for {0}", decision: "{0} to choose: {1}", or: " or ", needs: "Waiting for the referee",
      link: "Table sensors offline — scores may lag", warning: "Warning: {0}",
      rack_won: "{0} wins rack {1} · {2} : {3}", next: "{0} breaks rack {1}", lag: "Deciding rack: lag for the break",
      winner: "Winner", balls: "Balls on the table", live: "live", reconnecting: "reconnecting…",
      st_pocketed: "Pocketed", st_fouls: "Fouls", st_high_run: "High run", st_innings: "Innings",
      st_bnr: "Break-and-runs"
    },
    ru: {
      table: "Стол", to_shoot: "▶ бьёт", breaks_next: "▶ разбивает следующую", open_table: "стол открыт",
      to_points: "до {0} очков", race: "матч до {0} побед", rack: "партия {0}", to_go: "осталось {0}",
      foul_one: "фолов: {0}", foul_many: "фолов: {0}", run: "серия {0}",
      hill_hill: "Решающая партия", called: "Заказ: {0}{1}", in_pocket: " в {0}",
      foul: "ФОЛ — {0}{1}", bih: "{0}: биток с руки", bih_kitchen: " из дома", bih_table: " в любом месте стола",
      push: "Выставка: {0} ставит биток куда угодно, затем выбирает {1}",
      time_up: "Время на удар вышло: {0}", decision: "Выбирает {0}: {1}", or: " или ", needs: "Ждём судью",
      link: "Датчики стола не на связи — счёт может отставать", warning: "Предупреждение: {0}",
      rack_won: "{0} выигрывает партию {1} · {2} : {3}", next: "{0} разбивает партию {1}",
      lag: "Решающая партия: розыгрыш разбития",
      winner: "Победитель", balls: "Шары на столе", live: "на связи", reconnecting: "переподключение…",
      st_pocketed: "Забито", st_fouls: "Фолы", st_high_run: "Лучшая серия", st_innings: "Подходы",
      st_bnr: "С разбития"
    }
  };
  var LOG_SHOWN = 5;
  var V = null;
  var current = null;
  var log = [];
  var q = /[?&]lang=(en|ru)/.exec(location.search);
  var lang = q ? q[1] : ((navigator.language || "").toLowerCase().indexOf("ru") === 0 ? "ru" : "en");
  document.documentElement.lang = lang;

  function $(id) { return document.getElementById(id); }
  // The race as shown: "5/3" (each player's, a handicap) or "5"; "" for one rack.
  function raceText(s) {
    var e = s.race_to_each;
    if (e && e.length === 2 && e[0] !== e[1]) { return e[0] + "/" + e[1]; }
    return s.race_to > 1 ? String(s.race_to) : "";
  }

  function t(key) {
    var s = T[lang][key] != null ? T[lang][key] : (T.en[key] != null ? T.en[key] : key);
    for (var i = 1; i < arguments.length; i++) { s = s.split("{" + (i - 1) + "}").join(String(arguments[i])); }
    return s;
  }
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
  function name(s, i) {
    var p = (s.players || [])[i];
    return (p && p.name) ? String(p.name) : (lang === "ru" ? "Игрок " : "Player ") + (i + 1);
  }
  function matchScore(s) {
    if (s.match_score && s.match_score.length === 2) { return s.match_score; }
    var ps = s.players || [];
    return [(ps[0] || {}).score || 0, (ps[1] || {}).score || 0];
  }

  function render(s) {
    current = s;
    if (!s || typeof s !== "object" || !V) { return; }     // the words first (vocabulary.json)
    var over = s.phase === "over";
    var between = !!s.between_racks;
    var nb = between ? (s.next_break || {}) : {};
    document.body.dataset.shot = s.shot == null ? "" : String(s.shot);
    document.body.dataset.phase = s.phase || "";
    document.body.classList.toggle("between", between);
    $("table").textContent = s.table ? t("table") + " " + s.table : "";
    $("game").textContent = s.game ? vocab("games", s.game) : "";
    var info = [];
    if (s.game === "straight-pool" && s.target) { info.push(t("to_points", s.target)); }
    if (raceText(s)) { info.push(t("race", raceText(s))); }
    if (s.game === "eight-ball" && s.table_open && !over) { info.push(t("open_table")); }
    $("info").textContent = info.join(" · ");
    $("rack").textContent = s.game && (s.race_to > 1 || s.rack > 1) ? t("rack", s.rack || 1) : "";

    var ms = matchScore(s);
    for (var i = 0; i < 2; i++) {
      var p = (s.players || [])[i] || {};
      var next = between && nb.player === i;
      $("name" + i).textContent = name(s, i);
      $("score" + i).textContent = p.score == null ? "0" : String(p.score);
      $("p" + i).classList.toggle("shooting", (!over && s.shooter === i) || next);
      $("turn" + i).textContent = next ? t("breaks_next") : t("to_shoot");
      $("group" + i).textContent = (s.game === "eight-ball" && p.group && !over) ? vocab("groups", p.group) : "";
      var togo = "";
      if (s.game === "straight-pool" && s.target && !over) { togo = t("to_go", Math.max(0, s.target - (p.score || 0))); }
      if (s.game === "straight-pool" && s.race_to > 1) { togo = (togo ? togo + " · " : "") + ms[i] + "/" + ((s.race_to_each || [])[i] || s.race_to); }
      $("togo" + i).textContent = togo;
      $("fouls" + i).textContent = p.fouls && !over ? t(p.fouls === 1 ? "foul_one" : "foul_many", p.fouls) : "";
      $("run" + i).textContent = !over && s.shooter === i && s.run > 0 ? t("run", s.run) : "";
      $("stats-name" + i).textContent = name(s, i);
    }
    show("hillhill", s.hill_hill ? t("hill_hill") : "");

    var lowest = null;
    var balls = $("balls");
    balls.textContent = "";
    $("balls-label").textContent = t("balls");
    // Between racks the finished rack is not drawn: the balls are being racked.
    (between ? [] : (s.on_table || []).slice().sort(function (a, b) { return a - b; })).forEach(function (n) {
      if (lowest === null) { lowest = n; }
      var b = document.createElement("div");
      var c = BilliardsLive.ballColor(n);
      b.className = "ball" + (n > 8 ? " stripe" : "");
      b.style.background = c;
      b.style.setProperty("--c", c);
      b.dataset.ball = String(n);
      var label = document.createElement("span");
      label.textContent = String(n);
      b.appendChild(label);
      balls.appendChild(b);
    });
    if (s.game === "nine-ball" && lowest !== null) {
      var on = balls.querySelector('[data-ball="' + lowest + '"]');
      if (on) { on.classList.add("on"); }
    }

    show("called", s.called && !over ? t("called", s.called.ball != null ? s.called.ball : "",
      s.called.pocket ? t("in_pocket", vocab("pockets", s.called.pocket, "short")) : "") : "");

    var rackText = "";
    if (between) {
      var racks = s.racks || [];
      var lastRack = racks.length ? racks[racks.length - 1] : {rack: s.rack, winner: s.game_winner};
      rackText = t("rack_won", name(s, lastRack.winner), lastRack.rack, ms[0], ms[1]) + " — " +
        (nb.player === 0 || nb.player === 1 ? t("next", name(s, nb.player), nb.rack || (s.rack || 1) + 1) : t("lag"));
    }
    show("rackover", rackText);

    var foulText = "";
    var last = s.last_shot || {};
    if (!over && last.fouls && last.fouls.length) {
      var lf = s.last_foul;
      var codes = (lf && lf.codes && lf.codes.length) ? lf.codes : last.fouls;
      var who = (lf && (lf.player === 0 || lf.player === 1)) ? name(s, lf.player) + ": " : "";
      foulText = t("foul", who, codes.map(function (c) { return vocab("fouls", c); }).join(", "));
    }
    show("foul", foulText);
    var bih = "";
    if (!over && s.ball_in_hand && s.shot > 0 && (s.shooter === 0 || s.shooter === 1)) {
      bih = t("bih", name(s, s.shooter)) + (s.ball_in_hand === "kitchen" ? t("bih_kitchen") : t("bih_table"));
    }
    show("bih", bih);
    show("pushout", !over && s.push_out && (s.shooter === 0 || s.shooter === 1)
      ? t("push", name(s, s.shooter), name(s, 1 - s.shooter)) : "");
    var warn = "";
    if (!over && s.warning) {
      warn = (s.warning.text && (s.warning.text[lang] || s.warning.text.en)) || t("warning", name(s, s.warning.player));
    }
    show("warning", warn);
    var dec = "";
    if (!over && s.decision) {
      dec = t("decision", name(s, s.decision.player),
              (s.decision.options || []).map(function (o) { return vocab("options", o); }).join(t("or")));
      var why = s.decision_reason && s.decision_reason.text;
      if (why && (why[lang] || why.en)) { dec += " — " + (why[lang] || why.en); }
    }
    show("decision", dec);
    var waiting = (s.needs || []).filter(function (n) { return n.cmd !== "lag"; });
    show("needs", !over && waiting.length ? t("needs") : "");
    show("link", s.link && s.link.state === "down" ? t("link") : "");

    var winner = $("winner");
    if (over && (s.winner === 0 || s.winner === 1)) {
      $("winner-label").textContent = t("winner");
      $("winner-name").textContent = name(s, s.winner);
      $("winner-score").textContent = ms[0] + " : " + ms[1];
      winner.hidden = false;
    } else {
      winner.hidden = true;
    }
    renderStats(s);
    renderLog();
    tick();
  }

  function renderStats(s) {
    var st = s.stats || [];
    $("stats").hidden = st.length !== 2 || !(s.shot > 0 || (s.rack || 1) > 1);
    if (st.length !== 2) { return; }
    var inn = s.innings || [0, 0], bnr = s.break_and_runs || [0, 0];
    BilliardsLive.fillStats($("stats-body"), [
      ["st_pocketed", st[0].pocketed, st[1].pocketed], ["st_fouls", st[0].fouls, st[1].fouls],
      ["st_high_run", st[0].high_run, st[1].high_run], ["st_innings", inn[0], inn[1]], ["st_bnr", bnr[0], bnr[1]]
    ].map(function (r) { return [r[0], t(r[0])].concat(r.slice(1)); }));
  }

  function renderLog() { BilliardsLive.fillLog($("log"), log, lang, LOG_SHOWN); }

  function tick() {
    BilliardsLive.clock($("clock"), current, "TIME");
    var sc = current && current.shot_clock;
    var out = sc && !$("clock").hidden && ($("clock").dataset.left === "0" || sc.expired === true);
    show("timeup", out && (current.shooter === 0 || current.shooter === 1) ? t("time_up", name(current, current.shooter)) : "");
  }

  // No phone page on this server (or no QR for this screen): hide its box. Set here, not
  // inline, so that the page's Content-Security-Policy can forbid inline script.
  var qrImg = document.querySelector("#playqr img");
  var qrTag = null;
  (function () {
    function hide() { qrImg.parentNode.hidden = true; document.body.classList.remove("qr"); }
    qrImg.addEventListener("error", hide);
    qrImg.addEventListener("load", function () { qrImg.parentNode.hidden = false; document.body.classList.add("qr"); });
    if (qrImg.complete && qrImg.naturalWidth === 0) { hide(); }
  })();

  // The stream's `qr` tag changes with the token the QR code carries (a new match, a rotation):
  // draw the new code, so the TV never shows a dead one (the first tag too: the token may have
  // changed between the page's load and its stream).
  function envelope(m) {
    if (Array.isArray(m.log)) { log = m.log; }
    if (typeof m.qr !== "string" || m.qr === qrTag) { return; }
    qrTag = m.qr;
    qrImg.src = "play/qr.svg?v=" + encodeURIComponent(m.qr);
  }

  BilliardsLive.vocabulary(function (v) { V = v; if (current) { render(current); } });
  setInterval(tick, 250);
  BilliardsLive.connect($("conn"), function () { return {live: t("live"), reconnecting: t("reconnecting")}; },
                        render, envelope);
})();
