/* Capacity lab page: start a run on the workers, show its progress, then the server-drawn plot and table. */
(function () {
  "use strict";

  var G = window.Grader;
  var say = G.say, el = G.el, request = G.request;

  function setupLab(form) {
    var section = document.getElementById("lab-result");
    var status = document.getElementById("lab-status");
    var plot = document.getElementById("lab-plot");
    var table = document.getElementById("lab-table");
    var button = document.getElementById("lab-run");

    function showProgress(run) {
      var percent = Math.round((run.progress || 0) * 100);
      var text = run.status === "queued" ? say("lab.queued") : say("lab.running", { percent: percent });
      var bar = el("progress");
      bar.id = "lab-progress";
      bar.max = 100;
      bar.value = percent;
      bar.setAttribute("aria-label", text);
      var label = el("span", null, text);
      label.id = "lab-progress-text";
      status.replaceChildren(bar, document.createTextNode(" "), label);
    }

    function showDone(run) {
      status.replaceChildren(el("p", null, "✓ " + say("lab.done")));
      plot.innerHTML = run.svg; /* SVG drawn by our own server from numbers only */
      var tbl = el("table", "data first-below");
      tbl.appendChild(el("caption", null, say("lab.first_below")));
      var head = el("tr");
      head.appendChild(el("th", null, say("lab.table_d")));
      head.appendChild(el("th", null, say("lab.table_t")));
      head.querySelectorAll("th").forEach(function (th) { th.scope = "col"; });
      var thead = el("thead");
      thead.appendChild(head);
      tbl.appendChild(thead);
      var tbody = el("tbody");
      run.first_below_90.forEach(function (row) {
        var tr = el("tr");
        var th = el("th", null, String(row.d));
        th.scope = "row";
        tr.appendChild(th);
        tr.appendChild(el("td", null, row.text));
        tbody.appendChild(tr);
      });
      tbl.appendChild(tbody);
      table.replaceChildren(tbl);
    }

    function poll(id, tMin) {
      request("GET", "/lab/runs/" + id + "?t_min=" + tMin).then(function (reply) {
        var run = reply.body;
        if (reply.status !== 200 || !run) { throw G.failure(reply); }
        if (run.status === "done") { showDone(run); button.disabled = false; return; }
        if (run.status === "error") {
          status.replaceChildren(el("p", "message error", "✗ " + say("lab.failed")));
          button.disabled = false;
          return;
        }
        showProgress(run);
        setTimeout(function () { poll(id, tMin); }, 700);
      }).catch(function (error) {
        status.replaceChildren(G.problemNode(error && error.reply, G.problem(error && error.reply)));
        button.disabled = false;
      });
    }

    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var ds = Array.prototype.map.call(form.querySelectorAll('input[name="ds"]:checked'), function (box) { return Number(box.value); });
      var tMin = form.querySelector("#t_min").value;
      var payload = { ds: ds, t_min: tMin, t_max: form.querySelector("#t_max").value };
      button.disabled = true;
      plot.replaceChildren();
      table.replaceChildren();
      request("POST", "/lab/runs", payload).then(function (reply) {
        if (reply.status !== 202 || !reply.body) {
          // The form's own complaint (422) is in the page language; anything else (signed out, stale page) is ours.
          var message = reply.status === 422 && reply.body && reply.body.error ? reply.body.error.message : G.problem(reply);
          status.replaceChildren(G.problemNode(reply, "✗ " + message));
          button.disabled = false;
          return;
        }
        history.replaceState(null, "", "/lab?run=" + reply.body.id + "&t_min=" + tMin);
        showProgress(reply.body);
        poll(reply.body.id, tMin);
      }).catch(function () {
        status.replaceChildren(el("p", "message error", say("exercise.network_error")));
        button.disabled = false;
      });
    });

    if (section.dataset.run && (section.dataset.status === "queued" || section.dataset.status === "running")) {
      poll(section.dataset.run, section.dataset.tMin || 1);
    }
  }

  document.addEventListener("DOMContentLoaded", function () {
    var form = document.getElementById("lab-form");
    if (form) { setupLab(form); }
  });
})();
