/* The answer's feedback form (templates/feedback/form.html): posted in the background so the
 * answer stays on screen. Without this script the form posts normally and a page says thanks. */
(function () {
  "use strict";
  // gettext and interpolate: django.views.i18n.JavaScriptCatalog, in the page's language (templates/base.html).

  var form = document.getElementById("feedback-form");
  var status = document.getElementById("feedback-status");
  if (!form || !status || !window.fetch || !window.FormData) return;

  form.addEventListener("submit", function (event) {
    var button = event.submitter;
    if (!button) return; // an odd browser: let the form post itself
    event.preventDefault();
    var data = new FormData(form);
    data.append(button.name, button.value);
    var buttons = form.querySelectorAll("button");
    buttons.forEach(function (b) { b.disabled = true; });
    status.textContent = gettext("Sending…");
    fetch(form.action, {
      method: "POST",
      body: data,
      credentials: "same-origin",
      headers: { Accept: "application/json" },
    })
      .then(function (response) {
        return response.json().then(function (body) { return { ok: response.ok, body: body }; });
      })
      .then(function (reply) {
        if (!reply.ok) throw new Error(reply.body.detail || gettext("The feedback was not recorded."));
        status.textContent = interpolate(gettext("Thank you: your feedback (%(verdict)s) was recorded."), { verdict: button.textContent }, true);
        form.classList.add("sent");
        buttons.forEach(function (b) { b.disabled = false; b.setAttribute("aria-pressed", b === button ? "true" : "false"); });
      })
      .catch(function (error) {
        status.textContent = error.message || gettext("The feedback was not recorded; try again.");
        buttons.forEach(function (b) { b.disabled = false; });
      });
  });
})();
