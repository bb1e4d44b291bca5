/* Exercise page: live "read as ..." preview while typing, submit without a reload, result and progress update.
   The result, the progress bar and the attempts line come rendered by the server (the pages' own macros): this
   script only inserts them, so that a result and its percentages are written in one place. */
(function () {
  "use strict";

  var G = window.Grader;
  var say = G.say, el = G.el, request = G.request, debounce = G.debounce, randomKey = G.randomKey;

  function setupExercise(form) {
    var fields = Array.prototype.slice.call(form.querySelectorAll(".field"));
    var summary = document.getElementById("validate-summary");
    var button = document.getElementById("submit-button");
    var resultBox = document.getElementById("result-content");
    var resultSection = document.getElementById("result");
    var lang = form.dataset.lang;
    var validationRound = 0;
    var busy = false;  // a submit is being checked or sent
    var following = false;  // a stored answer's grade is still awaited: no second submit meanwhile
    var outOfAttempts = false;  // or the assignment refused it as closed: the button stays off
    // After a submit showed which fields cannot be read, a preview that fires later (typed just before pressing
    // Submit) must not clear those complaints about empty fields: only new typing does.
    var strictUntilInput = false;
    // After this long the page says grading is delayed (and keeps waiting); data-slow-ms may set another delay.
    function slowMs() { return Number(form.dataset.slowMs) || 60000; }
    // The Idempotency-Key of the answer being submitted: kept when a submit got no reply at all (it may have been
    // stored), so pressing Submit again cannot store the same answer twice; dropped once a reply came or the answer changed.
    var submitKey = null;

    function control(field) { return field.querySelector("input, textarea"); }

    function answer() {
      var values = {};
      fields.forEach(function (field) { values[field.dataset.field] = control(field).value; });
      return values;
    }

    function labelOf(name) {
      var field = form.querySelector('.field[data-field="' + name + '"]');
      return field ? field.dataset.label : (name || "");
    }

    function setSummary(text, kind) {
      summary.textContent = text || "";
      summary.className = "message" + (kind ? " " + kind : "");
    }

    /* Show the engine's reading: "read as" for readable fields, the reason for the others.
       Empty fields only complain when `strict` (on submit), not while the student is still typing. */
    function showReading(reading, strict) {
      var errors = {};
      (reading.errors || []).forEach(function (error) { if (error.field) { errors[error.field] = error; } });
      var firstBad = null;
      fields.forEach(function (field) {
        var name = field.dataset.field;
        var input = control(field);
        var preview = field.querySelector(".preview");
        var empty = input.value.trim() === "";
        var error = errors[name];
        preview.classList.remove("pending");
        if (error && (strict || strictUntilInput || !empty)) {
          // What was read before the problem, not "read as" (that would contradict "cannot read this").
          var detail = error.interpreted ? error.message + " — " + say("exercise.read_before_error", { text: error.interpreted }) : error.message;
          preview.textContent = "✗ " + say("exercise.invalid_field", { message: detail });
          preview.classList.add("invalid");
          input.setAttribute("aria-invalid", "true");
          firstBad = firstBad || input;
        } else {
          var interpreted = (reading.interpreted || {})[name];
          preview.textContent = interpreted && !empty ? "✓ " + say("exercise.read_as", { text: interpreted }) : "";
          preview.classList.remove("invalid");
          input.removeAttribute("aria-invalid");
        }
      });
      var generalError = (reading.errors || []).filter(function (e) { return !e.field; })[0];
      if (firstBad || ((strict || strictUntilInput) && generalError)) {
        setSummary("✗ " + (generalError ? generalError.message + " " : "") + say("exercise.invalid_summary"), "error");
      } else {
        setSummary("", "");
      }
      return firstBad;
    }

    function validate(strict) {
      var round = ++validationRound;
      // The assignment makes the reading the one its submit will get (a teacher who studies this course reads as a student).
      return request("POST", form.dataset.validateUrl, { exercise_id: form.dataset.exercise,
        assignment_id: Number(form.dataset.assignment), answer: answer(), lang: lang })
        .then(function (reply) {
          if (reply.status !== 200 || !reply.body) { throw G.failure(reply); }
          // A live preview overtaken by a newer check is dropped; the submit's own check never is (a preview
          // firing while it runs must not turn the submit into a bogus network error).
          if (!strict && round !== validationRound) { return null; }
          return { reading: reply.body, firstBad: showReading(reply.body, strict) };
        });
    }

    /* The live check failed: no preview may keep saying "checking" forever; being signed out or holding a stale
       page is said at once (typing more cannot help), a network blip is left for the submit to report. */
    function previewFailed(error) {
      fields.forEach(function (field) {
        var preview = field.querySelector(".preview");
        if (preview.classList.contains("pending")) {
          preview.classList.remove("pending");
          preview.textContent = "";
        }
      });
      var reply = error && error.reply;
      var text = reply ? G.problem(reply, null) : null;
      if (text) {
        summary.replaceChildren(G.problemNode(reply, "✗ " + text, null, "span"));
        summary.className = "message error";
      }
    }

    var livePreview = debounce(function () {
      if (busy) { return; }  // the submit is checking the answer itself
      validate(false).catch(previewFailed);
    }, 400);
    /* The typed answer is kept in this tab (sessionStorage) until it is submitted, so that switching the language,
       logging in again or reloading, as the page's own messages advise, does not lose it. */
    var draftKey = form.dataset.draftKey;
    function saveDraft() {
      try { window.sessionStorage.setItem(draftKey, JSON.stringify(answer())); } catch (e) { /* storage off: no draft */ }
    }
    function dropDraft() {
      try { window.sessionStorage.removeItem(draftKey); } catch (e) { /* nothing kept */ }
    }
    function restoreDraft() {
      var saved = null;
      try { saved = JSON.parse(window.sessionStorage.getItem(draftKey) || "null"); } catch (e) { return; }
      // A form sent without JavaScript and shown again wins over the draft; the latest answer, which the page
      // starts from, does not (the draft holds the edits made to it since).
      var typedHere = form.dataset.prefilled !== "latest" &&
        fields.some(function (field) { return control(field).value.trim() !== ""; });
      if (!saved || typedHere) { return; }
      var restored = false;
      fields.forEach(function (field) {
        var value = saved[field.dataset.field];
        if (typeof value === "string") { restored = restored || control(field).value !== value; control(field).value = value; }
      });
      if (restored) { validate(false).catch(previewFailed); }
    }

    fields.forEach(function (field) {
      control(field).addEventListener("input", function () {
        submitKey = null;
        strictUntilInput = false;
        saveDraft();
        var preview = field.querySelector(".preview");
        preview.classList.add("pending");
        preview.textContent = say("exercise.checking");
        livePreview();
      });
    });

    /* The submission's result as the server renders it for the pages; if it cannot be fetched, where to see it. */
    function showResult(submission) {
      return request("GET", "/submissions/" + submission.id + "/result").then(function (reply) {
        if (reply.status !== 200 || !reply.body || typeof reply.body.html !== "string") { throw G.failure(reply); }
        resultBox.innerHTML = reply.body.html;
        resultSection.focus();
      }).catch(function (error) {
        var reply = error && error.reply;
        var box = el("div", "result-body");
        box.appendChild(submissionLink(G.problemNode(reply, G.problem(reply)), submission.id));
        resultBox.replaceChildren(box);
      });
    }

    /* `node` followed by a link to the submission's own page (which refreshes itself until it is graded). */
    function submissionLink(node, id) {
      var link = el("a", null, say("exercise.see_submission", { id: id }));
      link.href = "/submissions/" + id;
      node.appendChild(document.createTextNode(" "));
      node.appendChild(link);
      return node;
    }

    function showMessage(text, reply) {
      var box = el("div", "result-body");
      box.appendChild(G.problemNode(reply, text));
      resultBox.replaceChildren(box);
    }

    /* The progress bar and the attempts line as the server renders them for this page. */
    function refreshProgress() {
      return request("GET", form.dataset.standingUrl).then(function (reply) {
        if (reply.status !== 200 || !reply.body) { return; }
        var bar = document.getElementById("assignment-progress");
        if (bar) { bar.outerHTML = reply.body.progress; }
        var attempts = document.getElementById("attempts-left");
        if (attempts) { attempts.innerHTML = reply.body.attempts; }
        outOfAttempts = reply.body.attempts_left === 0;
      });
    }

    function isFinal(submission) {
      return ["graded", "invalid", "error"].indexOf(submission.status) >= 0;
    }

    function pause(ms) { return new Promise(function (resolve) { setTimeout(resolve, ms); }); }

    /* Say that the stored answer's grade is late (workers busy or down, or the network failing): it counts, it will
       appear here by itself, and there is no need to submit it again. */
    function showDelayed(id, reply) {
      var text = reply ? say("exercise.result_pending", { id: id }) : say("exercise.grading_delayed");
      var box = el("div", "result-body");
      box.appendChild(submissionLink(G.problemNode(reply, text, "message"), id));
      resultBox.replaceChildren(box);
    }

    /* The grade of stored submission `id`, however long it takes: each request waits up to 10 s on the server; a
       failed request is retried after a pause. Only being signed out or losing access to it ends the wait. */
    function followGrade(id) {
      return request("GET", "/api/v1/submissions/" + id + "?wait=10&lang=" + lang).then(function (reply) {
        if (reply.status !== 200 || !reply.body) { throw G.failure(reply); }
        return reply.body;
      }).then(function (submission) {
        return isFinal(submission) ? submission : null;
      }, function (error) {
        var reply = error && error.reply;
        if (reply && (reply.signedOut || reply.status === 403 || reply.status === 404)) { throw error; }
        showDelayed(id, reply || {});
        return pause(5000).then(function () { return null; });
      }).then(function (submission) {
        return submission || followGrade(id);  // not final yet: ask again
      });
    }

    var CLOSING_CODES = ["attempts_exhausted", "past_due", "not_open", "course_archived"];

    function refused(reply) {
      var body = reply.body && reply.body.error;
      if (body && CLOSING_CODES.indexOf(body.code) >= 0) {
        // Refused for good (used up in another tab, or the due date passed while the page was open): the button
        // goes off and the attempts line catches up.
        outOfAttempts = true;
        refreshProgress().catch(function () { return null; });
      }
      if (body && body.code === "invalid_answer") {
        showReading({ errors: body.errors || [], interpreted: body.interpreted || {} }, true);
        return;
      }
      if (body && body.code === "rate_limited") {
        showMessage(say("exercise.rate_limited", { seconds: body.retry_after }));
        return;
      }
      if (reply.signedOut || !body || body.code === "csrf_failed" || reply.status >= 500) {
        showMessage(G.problem(reply), reply);
        return;
      }
      showMessage(say("exercise.submit_refused", { reason: body.message }));
    }

    form.addEventListener("submit", function (event) {
      event.preventDefault();
      if (busy || following) { return; }
      busy = true;
      button.disabled = true;
      validate(true).then(function (checked) {
        if (!checked) { throw new Error("validate"); }
        if (checked.reading.status !== "valid") {
          strictUntilInput = true;
          if (checked.firstBad) { checked.firstBad.focus(); }
          return null;
        }
        showMessage("");
        resultBox.replaceChildren(el("p", "message", say("exercise.submitting")));
        var body = { exercise_id: form.dataset.exercise, assignment_id: Number(form.dataset.assignment), answer: answer(), lang: lang };
        // Prefer: wait lets the server answer with the grade itself when it comes within 10 s (one request).
        submitKey = submitKey || randomKey();
        var headers = { "Idempotency-Key": submitKey, "Prefer": "wait=10" };
        return request("POST", form.dataset.submitUrl, body, headers).then(function (reply) {
          submitKey = null;  // the server answered: a new press is a new submission
          if ((reply.status !== 202 && reply.status !== 200) || !reply.body) { refused(reply); return null; }
          dropDraft();  // stored: the draft has done its job
          var id = reply.body.id;
          if (isFinal(reply.body)) { return showGraded(reply.body); }
          // The wait for the grade runs on after the submit ends: previews work meanwhile, a second submit does not.
          following = true;
          var late = setTimeout(function () { showDelayed(id, null); }, slowMs());
          followGrade(id).then(showGraded, function (error) {
            // The answer is stored and being graded: "retry" would spend a second attempt on it.
            showDelayed(id, (error && error.reply) || {});
          }).then(function () {
            clearTimeout(late);
            following = false;
            button.disabled = outOfAttempts;
          });
          return null;
        });
      }).catch(function (error) {
        showMessage(G.problem(error && error.reply), error && error.reply);
      }).then(function () {
        busy = false;
        button.disabled = outOfAttempts || following;
      });
    });

    function showGraded(submission) {
      // The bar and attempts line are a courtesy: failing to refresh them must not hide the grade just shown.
      return showResult(submission).then(function () { return refreshProgress(); }).catch(function () { return null; });
    }

    restoreDraft();
  }

  document.addEventListener("DOMContentLoaded", function () {
    var form = document.getElementById("answer-form");
    if (form) { setupExercise(form); }
  });
})();
