// The console's only script: no build chain (docs/adr/0079). Polls the runs list's live part and
// follows a run's journal over Server-Sent Events. Every tenant value is set as text, never HTML.
(function () {
  "use strict";

  function pollRuns(live) {
    var url = live.getAttribute("data-poll");
    var note = document.createElement("p");
    note.setAttribute("role", "status");
    note.className = "conn";
    live.parentNode.insertBefore(note, live);
    function tick() {
      fetch(url, { credentials: "same-origin", headers: { "Accept": "text/html" } })
        .then(function (r) {
          if (r.status === 401 || r.redirected) { window.location.assign("/console/sign-in"); return null; }
          if (!r.ok) { throw new Error("HTTP " + r.status); }
          return r.text();
        })
        .then(function (html) {
          if (html !== null) {
            live.innerHTML = html; // rendered and escaped by the server's templates
            note.textContent = "";
          }
        })
        .catch(function () { note.textContent = "Connection lost; retrying…"; })
        .finally(function () { setTimeout(tick, 2000); });
    }
    setTimeout(tick, 2000);
  }

  var TERMINAL = ["applied", "errored", "canceled", "discarded", "planned_and_finished"];

  function followRun(log) {
    var state = document.getElementById("log-state");
    var timeline = document.getElementById("timeline");
    var status = document.getElementById("run-status");
    var bars = {};
    var order = [];
    var source = new EventSource(log.getAttribute("data-stream"));
    var lines = 0;
    var dropped = 0;
    var MAX_LINES = 2000; // the page keeps the newest lines: a 10,000-line log is not one huge DOM
    var droppedNote = document.createElement("div");
    droppedNote.className = "dropped";

    function line(cls, text) {
      var div = document.createElement("div");
      div.className = cls;
      div.textContent = text;
      log.appendChild(div);
      lines++;
      if (log.childElementCount > MAX_LINES + (droppedNote.parentNode ? 1 : 0)) {
        if (!droppedNote.parentNode) { log.insertBefore(droppedNote, log.firstChild); }
        var first = droppedNote.nextSibling;
        log.removeChild(first); // a failed action stays red on the timeline
        dropped++;
        droppedNote.textContent = dropped + " earlier lines not shown (stagecraft runs logs prints all)";
      }
      return div;
    }
    function draw() {
      var start = Infinity, end = -Infinity, now = Date.now();
      order.forEach(function (a) {
        var b = bars[a];
        start = Math.min(start, b.start);
        end = Math.max(end, b.end || now);
      });
      var span = Math.max(end - start, 1);
      order.forEach(function (a) {
        var b = bars[a];
        var stop = b.end || now;
        b.el.style.marginLeft = ((b.start - start) * 100 / span) + "%";
        b.el.style.width = Math.max((stop - b.start) * 100 / span, 1) + "%";
        b.label.textContent = a + " on " + b.executor + " · " + ((stop - b.start) / 1000).toFixed(1) + " s" +
          (b.end ? "" : " (running)");
      });
    }
    source.onopen = function () { state.textContent = "Live."; };
    source.onerror = function () {
      if (source.readyState !== EventSource.CLOSED) { state.textContent = "Connection lost; reconnecting…"; }
    };
    source.addEventListener("log", function (e) {
      var d = JSON.parse(e.data);
      line("line" + (d.stream === "stderr" ? " stderr" : ""), (d.address ? d.address + ": " : "") + d.line);
    });
    source.addEventListener("action", function (e) {
      var d = JSON.parse(e.data);
      var msg = d.message || "";
      var failed = msg.indexOf("failed") === 0;
      line("action" + (failed ? " failed" : ""), (d.address || "") + " " + msg);
      var t = Date.parse(String(d.time).replace(/(\.\d{3})\d+/, "$1")); // ms precision parses everywhere
      var m = /^started on (.*)$/.exec(msg);
      if (m && d.address) {
        if (!bars[d.address]) {
          var row = document.createElement("div");
          row.className = "lane";
          var label = document.createElement("span");
          label.className = "bar-label";
          var el = document.createElement("div");
          el.className = "bar";
          row.appendChild(label);
          row.appendChild(el);
          timeline.appendChild(row);
          bars[d.address] = { start: t, end: null, executor: m[1], el: el, label: label };
          order.push(d.address);
        }
      } else if (d.address && bars[d.address]) {
        // a failed step's error ends the bar; the action's "failed" outcome follows it
        if (!bars[d.address].end) { bars[d.address].end = t; }
        if (failed) { bars[d.address].el.className = "bar failed"; }
      }
      draw();
    });
    source.addEventListener("status", function (e) {
      var d = JSON.parse(e.data);
      line("status-line", "— " + d.status + (d.message ? ": " + d.message : ""));
      if (status) { status.textContent = d.status; status.className = "status status-" + d.status; }
      if (TERMINAL.indexOf(d.status) >= 0) {
        source.close();
        var decide = document.querySelector("section[aria-labelledby='decide-h']");
        if (decide) { decide.remove(); } // nothing is left to decide on an ended run
        state.textContent = "Ended (" + d.status + "); " + lines + " entries.";
        draw();
      }
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    var live = document.getElementById("runs-live");
    if (live) { pollRuns(live); }
    var log = document.getElementById("log");
    if (log) { followRun(log); }
  });
})();
