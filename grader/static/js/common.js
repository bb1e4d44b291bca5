/* Shared helpers of the pages' progressive enhancement (every page also works without JavaScript):
   UI strings in the page language, JSON requests carrying the CSRF token, small DOM helpers. */
(function () {
  "use strict";

  var strings = JSON.parse((document.getElementById("ui-strings") || {}).textContent || "{}");
  var csrfMeta = document.querySelector('meta[name="csrf-token"]');
  var csrf = csrfMeta ? csrfMeta.getAttribute("content") : "";

  function say(key, values) {
    var text = strings[key] || key;
    Object.keys(values || {}).forEach(function (name) { text = text.split("{" + name + "}").join(String(values[name])); });
    return text;
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) { node.className = className; }
    if (text !== undefined && text !== null) { node.textContent = text; }
    return node;
  }

  function randomKey() {
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  }

  /* JSON request with the session cookie and the CSRF header; resolves to {status, body, signedOut} (body may be
     null). signedOut: the API said 401, or a page route sent the browser to the login form (whose HTML is no JSON). */
  function request(method, url, payload, headers) {
    var options = { method: method, credentials: "same-origin", headers: { "Accept": "application/json", "X-CSRF-Token": csrf } };
    Object.keys(headers || {}).forEach(function (name) { options.headers[name] = headers[name]; });
    if (payload !== undefined) {
      options.headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(payload);
    }
    return fetch(url, options).then(function (response) {
      var signedOut = response.status === 401 || (response.redirected && new URL(response.url).pathname === "/login");
      return response.json().then(function (body) { return { status: response.status, body: body, signedOut: signedOut }; },
        function () { return { status: response.status, body: null, signedOut: signedOut }; });
    });
  }

  /* What went wrong with a reply that is not the expected one, in the page language (never a bare status code):
     signed out, a page whose CSRF token is stale (a new login elsewhere), the service down, else `fallback`. */
  function problem(reply, fallback) {
    var code = reply && reply.body && reply.body.error ? reply.body.error.code : null;
    if (!reply) { return say("exercise.network_error"); }
    if (reply.signedOut) { return say("exercise.signed_out"); }
    // The API answers a stale token with 403 csrf_failed; a page route with its 400 HTML error page (no JSON).
    if (code === "csrf_failed" || (reply.status === 400 && !reply.body)) { return say("exercise.page_expired"); }
    if (reply.status >= 500) { return say("exercise.unavailable"); }
    return fallback === undefined ? say("exercise.network_error") : fallback;
  }

  /* A paragraph (or `tag`) with `text` and, when signed out, a link to the login form that comes back to this page. */
  function problemNode(reply, text, className, tag) {
    var node = el(tag || "p", className === undefined ? "message error" : className, text);
    if (reply && reply.signedOut) {
      var link = el("a", null, say("exercise.log_in_again"));
      link.href = "/login?next=" + encodeURIComponent(window.location.pathname + window.location.search);
      node.appendChild(document.createTextNode(" "));
      node.appendChild(link);
    }
    return node;
  }

  /* A rejected promise carrying the unexpected reply, so a .catch can say what went wrong. */
  function failure(reply) {
    var error = new Error("unexpected reply " + reply.status);
    error.reply = reply;
    return error;
  }

  function debounce(fn, ms) {
    var timer = null;
    return function () {
      clearTimeout(timer);
      timer = setTimeout(fn, ms);
    };
  }

  window.Grader = { say: say, el: el, request: request, debounce: debounce, randomKey: randomKey,
                    problem: problem, problemNode: problemNode, failure: failure };
})();
