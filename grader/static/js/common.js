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

  /* JSON request with the session cookie and the CSRF header; resolves to {status, body} (body may be null). */
  function request(method, url, payload, headers) {
    var options = { method: method, credentials: "same-origin", headers: { "Accept": "application/json", "X-CSRF-Token": csrf } };
    Object.keys(headers || {}).forEach(function (name) { options.headers[name] = headers[name]; });
    if (payload !== undefined) {
      options.headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(payload);
    }
    return fetch(url, options).then(function (response) {
      return response.json().then(function (body) { return { status: response.status, body: body }; },
        function () { return { status: response.status, body: null }; });
    });
  }

  function debounce(fn, ms) {
    var timer = null;
    return function () {
      clearTimeout(timer);
      timer = setTimeout(fn, ms);
    };
  }

  // A score (0..1) as a whole percentage, as the server shows it: never 100 below full marks, never 0 above nothing.
  function percent(fraction) {
    var shown = Math.round(fraction * 100);
    if (shown >= 100 && fraction < 1) { return 99; }
    if (shown <= 0 && fraction > 0) { return 1; }
    return shown;
  }

  window.Grader = { say: say, el: el, request: request, debounce: debounce, randomKey: randomKey, percent: percent };
})();
