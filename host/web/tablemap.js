// The table as the overhead camera sees it (issue 18), on the TV page and the phone page:
// state.camera.balls (mm, where each ball came to rest in the last shot it saw) drawn on a
// small table, head end at the left. Hidden on a table without a camera. live.js calls
// BilliardsTable.draw(state) with every state; the page gives the box:
//   <div id="camtable" data-place="corner" hidden></div>   (TV: small, bottom left)
//   <div id="camtable" data-place="flow" hidden></div>     (phone: in the page)
window.BilliardsTable = (function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  var R = 28.6;              // a ball's radius, mm
  var RAIL = 90;             // drawn around the cloth, mm
  var drawn = null;          // what was drawn last (JSON), so an unchanged state draws nothing

  function el(name, attrs, parent) {
    var e = document.createElementNS(NS, name);
    Object.keys(attrs).forEach(function (k) { e.setAttribute(k, String(attrs[k])); });
    if (parent) { parent.appendChild(e); }
    return e;
  }

  function place(box) {
    if (box.dataset.placed) { return; }
    box.dataset.placed = "1";
    if (box.dataset.place === "corner") {
      box.style.position = "fixed";
      box.style.left = "1vw";
      box.style.bottom = "1vh";
      box.style.width = "22vw";
      box.style.opacity = "0.92";
      box.style.zIndex = "5";
    } else {
      box.style.margin = "1em auto";
      box.style.maxWidth = "40em";
    }
  }

  function draw(state) {
    var box = document.getElementById("camtable");
    if (!box) { return; }
    var cam = state && state.camera;
    var L = cam && cam.table_mm && cam.table_mm[0], W = cam && cam.table_mm && cam.table_mm[1];
    if (!cam || !cam.balls || !(L > 0) || !(W > 0)) { box.hidden = true; drawn = null; return; }
    var onTable = (state.on_table || []).concat([0]);
    var balls = Object.keys(cam.balls).map(Number).filter(function (b) {
      return onTable.indexOf(b) >= 0 && Array.isArray(cam.balls[b]) && cam.balls[b].length === 2;
    }).sort(function (a, b) { return a - b; });
    var key = JSON.stringify([L, W, cam.state, balls.map(function (b) { return [b, cam.balls[b]]; })]);
    if (key === drawn) { return; }
    drawn = key;
    place(box);
    box.textContent = "";
    var svg = el("svg", {viewBox: [-RAIL, -RAIL, L + 2 * RAIL, W + 2 * RAIL].join(" "), width: "100%",
                         role: "img", "aria-label": "the table as the camera sees it"}, box);
    el("rect", {x: -RAIL, y: -RAIL, width: L + 2 * RAIL, height: W + 2 * RAIL, rx: 40, fill: "#5b3a1e"}, svg);
    el("rect", {x: 0, y: 0, width: L, height: W, fill: cam.state === "online" ? "#1f6e3a" : "#4d5a52"}, svg);
    el("line", {x1: L / 4, y1: 0, x2: L / 4, y2: W, stroke: "#ffffff", "stroke-opacity": 0.25,
                "stroke-width": 6}, svg);                       // the head string
    [[0, 0], [L / 2, -20], [L, 0], [0, W], [L / 2, W + 20], [L, W]].forEach(function (p) {
      el("circle", {cx: p[0], cy: p[1], r: 55, fill: "#111"}, svg);
    });
    balls.forEach(function (b) {
      var x = cam.balls[b][0], y = cam.balls[b][1];
      var colour = window.BilliardsLive ? window.BilliardsLive.ballColor(b) : "#ddd";
      el("circle", {cx: x, cy: y, r: R, fill: b > 8 ? "#f4f1e6" : colour, stroke: "#000", "stroke-width": 3}, svg);
      if (b > 8) {
        el("rect", {x: x - R, y: y - R * 0.45, width: 2 * R, height: R * 0.9, fill: colour}, svg);
      }
      if (b > 0) {
        var t = el("text", {x: x, y: y + 10, "text-anchor": "middle", "font-size": 30, "font-weight": "bold",
                            fill: b === 8 || (b > 0 && b < 8 && b !== 1) ? "#fff" : "#000"}, svg);
        t.textContent = String(b);
      }
    });
    var cap = document.createElement("div");
    cap.textContent = "As the camera sees it · Как видит камера";
    cap.style.fontSize = "0.8em";
    cap.style.textAlign = "center";
    box.appendChild(cap);
    box.hidden = false;
  }

  return {draw: draw};
})();
