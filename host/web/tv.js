// Bar-TV scoreboard: renders the table state pushed by host/web/server.py over SSE.
(function () {
  "use strict";
  var GAMES = {"eight-ball": "Eight-ball", "nine-ball": "Nine-ball", "straight-pool": "Straight pool"};
  var FOULS = {
    cue_pocketed: "cue ball pocketed", no_rail: "no ball reached a rail",
    illegal_break: "illegal break", wrong_first_contact: "wrong ball hit first",
    no_contact: "no ball hit", jumped_ball: "ball off the table", double_hit: "double hit",
    push_shot: "push shot", touched_ball: "ball touched", no_foot_on_floor: "no foot on the floor",
    bad_stroke: "improper stroke", near_ball: "improper near-ball stroke",
    moving_ball: "shot while balls moving", kitchen: "ball in the kitchen hit"
  };
  var OPTIONS = {
    accept: "play on", rebreak: "break again", rerack: "re-rack and break",
    rerack_offender_breaks: "re-rack, opponent breaks", spot_eight: "spot the 8",
    pass_back: "pass the shot back", reshoot: "make them shoot again"
  };
  var current = null;

  function $(id) { return document.getElementById(id); }
  function show(id, text) {
    var el = $(id);
    if (text) { el.textContent = text; el.hidden = false; } else { el.textContent = ""; el.hidden = true; }
  }
  function name(s, i) {
    var p = (s.players || [])[i];
    return (p && p.name) ? String(p.name) : "Player " + (i + 1);
  }
  function plural(n, one, many) { return n + " " + (n === 1 ? one : many); }

  function render(s) {
    current = s;
    if (!s || typeof s !== "object") { return; }
    var over = s.phase === "over";
    document.body.dataset.shot = s.shot == null ? "" : String(s.shot);
    document.body.dataset.phase = s.phase || "";
    $("table").textContent = s.table ? "Table " + s.table : "";
    $("game").textContent = GAMES[s.game] || (s.game || "");
    var info = [];
    if (s.game === "straight-pool" && s.target) { info.push("to " + s.target + " points"); }
    if (s.game !== "straight-pool" && s.race_to > 1) { info.push("race to " + s.race_to); }
    if (s.game === "eight-ball" && s.table_open && !over) { info.push("open table"); }
    $("info").textContent = info.join(" · ");

    for (var i = 0; i < 2; i++) {
      var p = (s.players || [])[i] || {};
      $("name" + i).textContent = name(s, i);
      $("score" + i).textContent = p.score == null ? "0" : String(p.score);
      $("p" + i).classList.toggle("shooting", !over && s.shooter === i);
      $("group" + i).textContent = (s.game === "eight-ball" && p.group) ? p.group : "";
      $("togo" + i).textContent = (s.game === "straight-pool" && s.target)
        ? Math.max(0, s.target - (p.score || 0)) + " to go" : "";
      $("fouls" + i).textContent = p.fouls ? plural(p.fouls, "foul", "fouls") : "";
    }

    var lowest = null;
    var balls = $("balls");
    balls.textContent = "";
    (s.on_table || []).slice().sort(function (a, b) { return a - b; }).forEach(function (n) {
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

    show("called", s.called && !over ? "Called: " + s.called.ball + " in " + s.called.pocket : "");

    var foulText = "";
    var last = s.last_shot || {};
    if (!over && last.fouls && last.fouls.length) {
      var lf = s.last_foul;
      var codes = (lf && lf.codes && lf.codes.length) ? lf.codes : last.fouls;
      var who = (lf && (lf.player === 0 || lf.player === 1)) ? name(s, lf.player) + ": " : "";
      foulText = "FOUL — " + who + codes.map(function (c) { return FOULS[c] || c; }).join(", ");
    }
    show("foul", foulText);
    var bih = "";
    if (!over && s.ball_in_hand && s.shot > 0 && (s.shooter === 0 || s.shooter === 1)) {
      bih = name(s, s.shooter) + " has ball in hand" +
        (s.ball_in_hand === "kitchen" ? " behind the head string" : " anywhere on the table");
    }
    show("bih", bih);
    var warn = "";
    if (!over && s.warning) {
      warn = (s.warning.text && s.warning.text.en) ? s.warning.text.en
        : "Warning: " + name(s, s.warning.player);
    }
    show("warning", warn);
    var dec = "";
    if (!over && s.decision) {
      dec = name(s, s.decision.player) + " to choose: " +
        (s.decision.options || []).map(function (o) { return OPTIONS[o] || o; }).join(" or ");
    }
    show("decision", dec);
    show("needs", !over && s.needs && s.needs.length ? "Waiting for the referee" : "");
    show("link", s.link && s.link.state === "down" ? "Table sensors offline — scores may lag" : "");

    var winner = $("winner");
    if (over && (s.winner === 0 || s.winner === 1)) {
      $("winner-name").textContent = name(s, s.winner);
      var ps = s.players || [];
      $("winner-score").textContent = ps.length === 2
        ? (ps[0].score || 0) + " : " + (ps[1].score || 0) : "";
      winner.hidden = false;
    } else {
      winner.hidden = true;
    }
    tick();
  }

  function tick() { BilliardsLive.clock($("clock"), current, "TIME"); }

  // No phone page on this server (or no QR): hide its box. Set here, not inline, so that the
  // page's Content-Security-Policy can forbid inline script.
  (function () {
    var img = document.querySelector("#playqr img");
    function hide() { img.parentNode.hidden = true; }
    img.addEventListener("error", hide);
    if (img.complete && img.naturalWidth === 0) { hide(); }
  })();

  setInterval(tick, 250);
  BilliardsLive.connect($("conn"), function () { return {live: "live", reconnecting: "reconnecting…"}; },
                        render);
})();
