/* Live progress on the admin's document list, document page and upload page.
 *
 * Every .doc-progress element (templates/admin/documents/document/progress_cell.html) names its
 * document. While any of them is queued or processing, this asks the staff-only JSON endpoint
 * (documents/admin_progress.py) every two seconds for their status and progress and redraws the
 * bar, its text, the estimate and the status word — the row's own status column too — so a
 * long job can be watched without reloading. It stops once every document has finished, and
 * waits while the tab is hidden. A file, not an inline script: the site's CSP allows only these.
 */
(function () {
  "use strict";

  var INTERVAL_MS = 2000;
  var RETRY_MS = 10000; // after a failed request: the server may be restarting
  var cells = [];
  var url = "";
  var timer = null;

  function unfinished() {
    return cells.filter(function (cell) { return cell.getAttribute("data-unfinished") === "true"; });
  }

  function stageText(state) {
    var progress = state.progress;
    if (progress) {
      var counted = progress.total === null ? "" : " " + progress.done + " of " + progress.total;
      return progress.label + counted;
    }
    return state.status === "queued" ? "Waiting for a worker" : "";
  }

  function drawBar(bar, state) {
    var percent = state.progress ? state.progress.percent : null;
    if (percent === null || percent === undefined) {
      bar.removeAttribute("value"); // indeterminate: the stage has no count
      bar.textContent = "";
    } else {
      bar.value = percent;
      bar.textContent = percent + " %";
    }
    bar.hidden = !state.unfinished;
  }

  function drawStatusColumn(cell, state) {
    // The list's own "Status" column (a span.status in the same row), kept in step with the bar.
    var row = cell.closest("tr");
    var word = row && row.querySelector("span.status");
    if (!word) return;
    word.textContent = state.status_label;
    word.className = "status status-" + state.status;
  }

  function settledText(cell, state) {
    // The list's and the document page's other fields (pages, chunks, the failure reason) were
    // drawn before it finished; the upload page shows none of them.
    if (state.status === "failed") return state.failure_reason;
    if (state.status !== "indexed" || cell.closest("#batch-progress")) return "";
    return "Reload the page to see its pages and chunks.";
  }

  function draw(cell, state) {
    var settled = cell.getAttribute("data-unfinished") === "true" && !state.unfinished;
    cell.setAttribute("data-unfinished", state.unfinished ? "true" : "false");
    var status = cell.querySelector(".doc-progress-status");
    status.textContent = state.status_label;
    status.className = "doc-progress-status status-" + state.status;
    drawBar(cell.querySelector(".doc-progress-bar"), state);
    cell.querySelector(".doc-progress-text").textContent = settled ? settledText(cell, state) : stageText(state);
    cell.querySelector(".doc-progress-eta").textContent = state.progress ? state.progress.eta : "";
    drawStatusColumn(cell, state);
  }

  function drawSummary() {
    // The upload page's line about the whole batch.
    var summary = document.querySelector("[data-batch-summary]");
    if (!summary) return;
    var counts = { indexed: 0, failed: 0 };
    cells.forEach(function (cell) {
      var status = cell.querySelector(".doc-progress-status").className.replace(/.*status-/, "");
      if (status in counts) counts[status] += 1;
    });
    var left = cells.length - counts.indexed - counts.failed;
    summary.textContent = counts.indexed + " of " + cells.length + " indexed" +
      (counts.failed ? ", " + counts.failed + " failed" : "") +
      (left ? ", " + left + " still processing." : ". All done.");
  }

  function apply(body) {
    var byId = {};
    body.documents.forEach(function (state) { byId[String(state.id)] = state; });
    cells.forEach(function (cell) {
      var state = byId[cell.getAttribute("data-document")];
      if (state) {
        draw(cell, state);
      } else if (cell.getAttribute("data-unfinished") === "true") {
        cell.setAttribute("data-unfinished", "false"); // deleted meanwhile: nothing more to watch
      }
    });
    drawSummary();
  }

  function poll() {
    timer = null;
    var waiting = unfinished();
    if (!waiting.length) return;
    if (document.hidden) return; // resumed by visibilitychange
    var query = waiting.map(function (cell) { return "id=" + encodeURIComponent(cell.getAttribute("data-document")); });
    fetch(url + "?" + query.join("&"), { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) {
        if (!response.ok) throw new Error("status " + response.status);
        return response.json();
      })
      .then(function (body) {
        apply(body);
        schedule(INTERVAL_MS);
      })
      .catch(function () { schedule(RETRY_MS); });
  }

  function schedule(delay) {
    if (timer === null && unfinished().length) timer = window.setTimeout(poll, delay);
  }

  function start() {
    cells = Array.prototype.slice.call(document.querySelectorAll(".doc-progress[data-document]"));
    if (!cells.length || !window.fetch) return;
    url = cells[0].getAttribute("data-progress-url");
    document.addEventListener("visibilitychange", function () {
      if (!document.hidden) schedule(0);
    });
    drawSummary();
    schedule(INTERVAL_MS);
  }

  // The admin loads its media in the page's head, before the rows exist.
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
