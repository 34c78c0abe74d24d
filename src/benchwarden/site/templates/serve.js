// benchwarden serve: the "Measure now" forms (one on a benchmark's page, one per benchmark family on the overview).
// Each posts the chosen parameter values to the server that serves the page, then follows the measurement's events (server-sent events) as they come: its place in
// the queue, the quick value, each fork's refinement, the final value, or why it failed.
// Text only: every value from the server is set with textContent, never parsed as HTML.
(function () {
  "use strict";
  if (typeof EventSource === "undefined") { return; }
  Array.prototype.forEach.call(document.querySelectorAll("section.measure"), setUp);

  function setUp(section) {
    var form = section.querySelector("form.measure-form");
    var status = section.querySelector(".measure-status");
    var table = section.querySelector("table.measure-results");
    var body = table.querySelector("tbody");
    var rows = {};

    function say(text) { status.textContent = text; }

    function number(x) {
      if (x === null || x === undefined) { return "-"; }
      var a = Math.abs(x);
      return a >= 1000 ? x.toFixed(0) : x.toPrecision(4);
    }

    function row(job, benchmark) {
      if (!rows[job]) {
        var tr = document.createElement("tr");
        tr.setAttribute("data-job", String(job));
        for (var i = 0; i < 6; i++) {
          var td = document.createElement("td");
          if (i >= 2 && i <= 4) { td.className = "num"; }
          tr.appendChild(td);
        }
        tr.cells[0].textContent = benchmark;
        body.insertBefore(tr, body.firstChild);
        rows[job] = tr;
        table.hidden = false;
      }
      return rows[job];
    }

    function show(tr, phase, e) {
      tr.setAttribute("data-phase", phase);
      tr.cells[1].textContent = phase;
      tr.cells[2].textContent = number(e.mean) + " " + (e.unit || "");
      tr.cells[3].textContent = (e.low === null || e.low === undefined) ? "-" :
        "[" + number(e.low) + ", " + number(e.high) + "]";
      tr.cells[4].textContent = String(e.forks === undefined ? "-" : e.forks);
      tr.cells[5].textContent = e.run === undefined ? "-" : String(e.run);
    }

    function follow(job, benchmark) {
      var tr = row(job, benchmark);
      var source = new EventSource("/api/jobs/" + encodeURIComponent(String(job)) + "/events");
      var handlers = {
        queued: function (e) { tr.cells[1].textContent = "queued"; say(benchmark + ": waiting, place " + e.position + " in the queue"); },
        started: function () { tr.cells[1].textContent = "starting"; say(benchmark + ": measuring"); },
        iteration: function (e) {
          tr.cells[1].textContent = e.phase + " · fork " + e.fork + " · " + e.kind + " " + e.number;
        },
        quick: function (e) { show(tr, "quick", e); say(benchmark + ": quick value; accurate forks follow"); },
        fork: function (e) { show(tr, "fork " + e.fork, e); say(benchmark + ": fork " + e.fork + " done"); },
        done: function (e) { show(tr, "done", e); say(benchmark + ": done (run " + e.run + ")"); source.close(); },
        cached: function (e) { show(tr, "cached", e); say(benchmark + ": from the store (run " + e.run + ")"); source.close(); },
        failed: function (e) { tr.cells[1].textContent = "failed"; say(benchmark + ": failed: " + e.message); source.close(); },
        cancelled: function (e) { tr.cells[1].textContent = "cancelled"; say(benchmark + ": " + e.message); source.close(); },
        shutdown: function () { say("the server is stopping"); source.close(); }
      };
      Object.keys(handlers).forEach(function (name) {
        source.addEventListener(name, function (message) { handlers[name](JSON.parse(message.data)); });
      });
      source.onerror = function () {
        if (source.readyState === EventSource.CLOSED) { return; }
        say(benchmark + ": connection to the server lost");
        source.close();
      };
    }

    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var params = {};
      Array.prototype.forEach.call(form.elements, function (el) {
        if (el.name) { params[el.name] = el.value; }
      });
      say("asking the server…");
      fetch("/api/measure", {
        method: "POST",
        headers: {"Content-Type": "application/json"},
        body: JSON.stringify({benchmark: section.getAttribute("data-benchmark"), params: params})
      }).then(function (response) {
        return response.json().then(function (answer) { return {ok: response.ok, answer: answer}; });
      }).then(function (r) {
        if (!r.ok) { say("refused: " + r.answer.error); return; }
        follow(r.answer.job, r.answer.benchmark);
      }).catch(function (error) { say("the server did not answer: " + error); });
    });
  }
}());
