/* The search page: say "Searching…" while an answer is on its way, and move focus to a
 * citation when its [n] marker is followed, so keyboard and screen-reader users land on it. */
(function () {
  "use strict";

  var form = document.getElementById("search-form");
  var button = document.getElementById("ask-button");
  if (form && button) {
    form.addEventListener("submit", function () {
      button.disabled = true;
      button.textContent = "Searching…";
      form.setAttribute("aria-busy", "true");
    });
    window.addEventListener("pageshow", function () {
      button.disabled = false;
      button.textContent = "Ask";
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
