// The bar TV's bracket (/tournament/<id>) follows the tournament live: the venue service's
// /events stream says when anything changed (a result, a match sent to a table, a correction),
// and the page loads itself again then. Without it (a browser without EventSource, the stream
// cut) the page still refreshes itself every 30 s. No data of the page goes through here.
(function () {
  "use strict";
  var mark = document.getElementById("live");
  if (!mark || !window.EventSource) { return; }
  var shown = mark.getAttribute("data-version");
  var loaded = Date.now();
  var events = new EventSource("/events");
  events.onmessage = function (e) {
    var v;
    try { v = JSON.parse(e.data).state.version; } catch (err) { return; }
    if (String(v) === shown) { return; }
    events.close();
    // Not more often than every 2 s, however fast the changes come.
    setTimeout(function () { location.reload(); }, Math.max(0, 2000 - (Date.now() - loaded)));
  };
})();
