// Shared by the TV page and the phone page: the state stream from host/web/server.py
// (/events, Server-Sent Events), the shot clock counted against the server's clock, the
// balls' colours and the referee's vocabulary.
window.BilliardsLive = (function () {
  "use strict";
  var offset = 0;          // server wall clock minus ours, seconds
  var COLORS = {1: "#f2c500", 2: "#1b4fbf", 3: "#d32f2f", 4: "#6a1b9a", 5: "#f57c00",
                6: "#1b8a3a", 7: "#7b1f1f", 8: "#111111"};

  // A ball's colour (a stripe's is its solid's; 0 is the cue ball).
  function ballColor(n) { return n === 0 ? "#f4f1e6" : (COLORS[n > 8 ? n - 8 : n] || "#888"); }

  // Follow the stream: render(state) for each state; `conn` shows live/reconnecting;
  // envelope(message), if given, sees each whole message ({now, state, qr}).
  function connect(conn, words, render, envelope) {
    var es = new EventSource("events");
    es.onopen = function () { conn.textContent = words().live; conn.className = "live"; };
    es.onerror = function () { conn.textContent = words().reconnecting; conn.className = ""; };
    es.onmessage = function (e) {
      var m;
      try { m = JSON.parse(e.data); } catch (err) { return; }
      if (typeof m.now === "number") { offset = m.now - Date.now() / 1000; }
      if (envelope) { envelope(m); }
      render(m.state);
      if (window.BilliardsTable) { window.BilliardsTable.draw(m.state); }   // tablemap.js: as the camera sees it
    };
  }

  // Show the shooter's time left (GEN.SLOW-PLAY) in `el`; hidden when there is no clock.
  function clock(el, state, outText) {
    var sc = state && state.phase !== "over" ? state.shot_clock : null;
    if (!sc || sc.limit_s == null || sc.started_wall == null) { el.hidden = true; return; }
    var now = Date.now() / 1000 + offset;
    var left = Math.max(0, Math.ceil(sc.limit_s - (now - sc.started_wall)));
    el.textContent = left > 0 ? Math.floor(left / 60) + ":" + ("0" + (left % 60)).slice(-2) : outText;
    el.classList.toggle("low", left > 0 && left <= 10);
    el.classList.toggle("out", left === 0);
    el.dataset.left = String(left);
    el.hidden = false;
  }

  // The referee's words (rules/messages.vocabulary, served as vocabulary.json): `then(words)`
  // once they are here, trying again every 2 s until they are.
  function vocabulary(then) {
    fetch("vocabulary.json", {cache: "no-store"}).then(function (r) { return r.json(); })
      .then(then)
      .catch(function () { setTimeout(function () { vocabulary(then); }, 2000); });
  }

  // The shot log in `ol`, newest first: the last `n` things the referee said, in `lang`.
  function fillLog(ol, log, lang, n) {
    ol.textContent = "";
    log.slice(-n).reverse().forEach(function (e) {
      var li = document.createElement("li");
      li.textContent = (e.text && (e.text[lang] || e.text.en)) || "";
      li.dataset.event = e.event || "";
      ol.appendChild(li);
    });
  }

  // A statistics table's body: one row per [key, label, player 1's, player 2's].
  function fillStats(body, rows) {
    body.textContent = "";
    rows.forEach(function (r) {
      var tr = document.createElement("tr");
      tr.dataset.stat = r[0];
      r.slice(1).forEach(function (v, k) {
        var cell = document.createElement(k ? "td" : "th");
        cell.textContent = v == null ? "0" : String(v);
        tr.appendChild(cell);
      });
      body.appendChild(tr);
    });
  }

  return {connect: connect, clock: clock, ballColor: ballColor, vocabulary: vocabulary, fillLog: fillLog,
          fillStats: fillStats};
})();
