/* The search page's answer as it is written. When the writer streams (the form says so with
 * data-stream), the search form gains stream=1 on submit: the page then lists the documents
 * and leaves the answer to this script, which posts the same
 * form to the answer stream (citations/stream_views.py, server-sent events: sources, parts,
 * done or error) and renders it as templates/search.html renders an answer; the sources arrive
 * rendered by the server (citations/event_stream.py) and are only put in place. Without this
 * script (or without fetch streams) the form has no stream=1 and the page answers as before. */
(function () {
  "use strict";
  // gettext and interpolate: django.views.i18n.JavaScriptCatalog, in the page's language (templates/base.html).

  var form = document.getElementById("search-form");
  var canStream = !!(window.fetch && window.TextDecoder && window.ReadableStream && window.URLSearchParams);
  if (!form || !canStream) return;

  form.addEventListener("submit", function () {
    if (!form.hasAttribute("data-stream") || form.querySelector("input[name=stream]")) return;
    var flag = document.createElement("input");
    flag.type = "hidden";
    flag.name = "stream";
    flag.value = "1";
    form.appendChild(flag);
  });

  var section = document.getElementById("answer");
  if (!section || !section.getAttribute("data-stream-url")) return;
  var heading = document.getElementById("answer-heading");
  var textBox = document.getElementById("answer-text");
  var status = document.getElementById("answer-status");
  var caveat = document.getElementById("caveat");
  var parts = [];
  var finished = false;

  // A source's own bracket numbers ("[22]") set apart from our markers, as citations/plain.py does.
  var SOURCE_REFERENCE = /\[\d{1,4}(?:\s*[,;\u2013-]\s*\d{1,4})*\]/g;

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function appendText(parent, text) {
    var last = 0;
    text.replace(SOURCE_REFERENCE, function (found, offset) {
      parent.appendChild(document.createTextNode(text.slice(last, offset)));
      var ref = el("span", "source-ref", found);
      ref.title = gettext("A reference of the source itself");
      parent.appendChild(ref);
      last = offset + found.length;
      return found;
    });
    parent.appendChild(document.createTextNode(text.slice(last)));
  }

  function renderParts() {
    textBox.textContent = "";
    parts.forEach(function (part) {
      if (part.cite) {
        var marker = el("a", "marker", "[" + part.cite + "]");
        marker.href = "#cite-" + part.cite;
        marker.setAttribute("aria-label", interpolate(gettext("Source %(n)s"), { n: part.cite }, true));
        textBox.appendChild(marker);
      } else {
        appendText(textBox, part.text);
      }
    });
  }

  function addPart(part) {
    var last = parts[parts.length - 1];
    if (part.text !== undefined && last && last.text !== undefined) last.text += part.text;
    else parts.push(part.text !== undefined ? { text: part.text } : { cite: part.cite });
    renderParts();
  }

  // The sources block comes rendered by the server, by the template the page's own answer uses
  // (templates/citations/_sources.html, its text escaped there): it is put in place, never redrawn here.
  // Focus inside the block (a source, or one of its links) would be lost with the old nodes: it
  // moves to the same place in the new block (the source by its id, the link by its rank in it),
  // else to the sources heading, so a keyboard or screen-reader user stays where they were.
  var FOCUSABLE = "a[href], button, [tabindex]";

  function placeSources(html) {
    var current = document.getElementById("sources");
    if (!current || typeof html !== "string") return;
    var focused = document.activeElement;
    var hadFocus = focused && focused !== current && current.contains(focused);
    var item = hadFocus ? focused.closest("[id]") : null;
    var itemId = item && item !== current ? item.id : "";
    var rank = item && item !== focused ? Array.prototype.indexOf.call(item.querySelectorAll(FOCUSABLE), focused) : -1;
    current.outerHTML = html;
    if (hadFocus) restoreFocus(itemId, rank);
  }

  function restoreFocus(itemId, rank) {
    var block = document.getElementById("sources");
    var item = itemId ? document.getElementById(itemId) : null;
    if (item && block && block.contains(item)) {
      var target = rank >= 0 ? item.querySelectorAll(FOCUSABLE)[rank] || item : item;
      target.focus({ preventScroll: true });
      if (document.activeElement === target) return;
    }
    var heading = document.getElementById("sources-heading");
    if (!heading) return;
    heading.setAttribute("tabindex", "-1");
    heading.focus({ preventScroll: true });
  }

  function note(className, text) {
    var p = el("p", className, text);
    p.setAttribute("role", "status");
    section.insertBefore(p, status);
  }

  function finish(answer) {
    finished = true;
    var state = answer.state;
    section.setAttribute("data-state", state);
    section.classList.add("state-" + state);
    if (answer.refused) section.classList.add("refused");
    heading.textContent = answer.refused ? gettext("No answer") :
      state === "caveat" ? gettext("Closest passages, with a caveat") : gettext("Answer");
    if (answer.refused) {
      parts = [];
      textBox.classList.add("refusal");
      textBox.textContent = answer.answer;
    } else {
      parts = answer.parts.map(function (p) { return p.cite ? { cite: p.cite } : { text: p.text }; });
      renderParts();
      if (state === "caveat" && answer.message) {
        caveat.textContent = answer.message;
        caveat.hidden = false;
      }
      if (answer.notice) note("notice", answer.notice);
      if (answer.uncited) note("warning", gettext("This answer cites none of the sources: read the sources below rather than trusting it."));
      if (answer.removed_markers.length) {
        note("warning", gettext("Removed references to sources that do not exist:") + " " +
          answer.removed_markers.map(function (n) { return "[" + n + "]"; }).join(", ") + ".");
      }
    }
    placeSources(answer.sources_html);  // now saying which sources the answer cites
    var feedback = document.getElementById("feedback-form");
    if (feedback && answer.id) {  // kept in the question log: the asker may say whether it helped
      feedback.action = feedback.getAttribute("data-action").replace("/0/", "/" + answer.id + "/");
      feedback.hidden = false;
    }
    status.className = "meta";
    status.textContent = answer.refused ? "" :
      interpolate(gettext("Written by the %(writer)s writer from the %(number)s closest passages."),
        { writer: answer.writer, number: answer.citations.length }, true) +
      (answer.writer === "extractive" ? " " + gettext("Every sentence is quoted verbatim from the source it cites.") : "");
    section.setAttribute("aria-busy", "false");
  }

  function fail(detail) {
    finished = true;
    status.className = "form-error";
    status.setAttribute("role", "alert");
    status.textContent = detail || gettext("The answer could not be written; try again.");
    section.classList.add("failed");
    section.setAttribute("aria-busy", "false");
  }

  function handle(block) {
    var name = "message";
    var data = "";
    block.split("\n").forEach(function (line) {
      if (line.indexOf("event:") === 0) name = line.slice(6).trim();
      else if (line.indexOf("data:") === 0) data += line.slice(5).trim();
    });
    if (!data) return;
    var payload = JSON.parse(data);
    if (name === "sources") placeSources(payload.sources_html);
    else if (name === "part") addPart(payload);
    else if (name === "done") finish(payload);
    else if (name === "error") fail(payload.detail);
  }

  function read(reader, decoder, pending) {
    return reader.read().then(function (chunk) {
      if (chunk.done) {
        if (!finished) fail(gettext("The answer stopped before it was complete; try again."));
        return;
      }
      var blocks = (pending + decoder.decode(chunk.value, { stream: true })).split("\n\n");
      var rest = blocks.pop();
      blocks.forEach(handle);
      return read(reader, decoder, rest);
    });
  }

  var body = new URLSearchParams(new FormData(form));
  body.delete("stream");
  fetch(section.getAttribute("data-stream-url"), {
    method: "POST",
    body: body,
    credentials: "same-origin",
    headers: { Accept: "text/event-stream", "X-CSRFToken": section.getAttribute("data-csrf") },
  })
    .then(function (response) {
      var type = response.headers.get("Content-Type") || "";
      if (response.ok && type.indexOf("text/event-stream") === 0) {
        return read(response.body.getReader(), new TextDecoder(), "");
      }
      if (response.status === 429) return fail(gettext("Too many questions for now: wait a minute and ask again."));
      return response.json().then(
        function (reply) { fail(reply.detail); },
        function () { fail(interpolate(gettext("The answer could not be written (HTTP %(status)s); try again."), { status: response.status }, true)); }
      );
    })
    .catch(function () {
      if (!finished) fail(gettext("The connection broke before the answer was complete; try again."));
    });
})();
