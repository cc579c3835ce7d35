/* The search page: say "Searching…" while an answer is on its way, and move focus to a
 * citation when its [n] marker is followed, so keyboard and screen-reader users land on it. */
(function () {
  "use strict";

  // gettext: django.views.i18n.JavaScriptCatalog, in the page's language (templates/search.html).
  var form = document.getElementById("search-form");
  var button = document.getElementById("ask-button");
  var idleLabel = button ? button.textContent : "";  // "Ask", as the page says it
  // Beyond this many characters of query string a server or proxy may answer "URI Too Long"
  // (gunicorn's request line holds 4,094 bytes): the form is POSTed instead, with its CSRF token.
  var LONGEST_URL_QUERY = 1500;
  if (form && button) {
    form.addEventListener("submit", function () {
      var query = new URLSearchParams(new FormData(form)).toString();
      if (query.length > LONGEST_URL_QUERY && form.dataset.csrf && !form.querySelector("input[name=csrfmiddlewaretoken]")) {
        var token = document.createElement("input");
        token.type = "hidden";
        token.name = "csrfmiddlewaretoken";
        token.value = form.dataset.csrf;
        form.appendChild(token);
        form.method = "post";
      }
      button.disabled = true;
      button.textContent = gettext("Searching…");
      form.setAttribute("aria-busy", "true");
    });
    window.addEventListener("pageshow", function () {
      button.disabled = false;
      button.textContent = idleLabel;
      form.removeAttribute("aria-busy");
    });
  }

  document.addEventListener("click", function (event) {
    var marker = event.target.closest ? event.target.closest("a.marker") : null;
    if (!marker) return;
    var target = document.getElementById(marker.getAttribute("href").slice(1));
    if (target) window.setTimeout(function () { target.focus({ preventScroll: true }); }, 0);
  });
})();
