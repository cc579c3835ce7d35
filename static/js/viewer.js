/* The text viewer: highlight #char=a,b (code-point offsets into the canonical text) and scroll
 * it into view; #page=N scrolls to where page N begins. Reacts to hashchange (a fragment typed
 * by hand, or a link on the page) without reloading. The text is one DOM text node; the
 * highlight splits it with a Range, and removing the highlight joins it again. */
(function () {
  "use strict";
  // gettext and interpolate: django.views.i18n.JavaScriptCatalog, in the page's language (templates/base.html).

  var container = document.getElementById("doc-text");
  if (!container) return;
  var pageStartsNode = document.getElementById("page-starts");
  var pageStarts = pageStartsNode ? JSON.parse(pageStartsNode.textContent) : [];
  var status = document.getElementById("highlight-status");
  var pageLink = document.getElementById("page-link");
  var fileLink = document.getElementById("file-link");
  var jumpLink = document.getElementById("jump-link");
  var pagesUrl = container.getAttribute("data-pages-url") || "";

  function clearHighlight() {
    var mark = container.querySelector("mark");
    if (mark) {
      mark.replaceWith(document.createTextNode(mark.textContent));
    }
    container.normalize();
    if (jumpLink) jumpLink.hidden = true;
  }

  function textNode() {
    container.normalize();
    var node = container.firstChild;
    if (!node) {
      node = document.createTextNode("");
      container.appendChild(node);
    }
    return node;
  }

  /* Python counts code points; the DOM counts UTF-16 units. Map code-point offsets to units. */
  function toUnits(text, points) {
    if (!/[\uD800-\uDFFF]/.test(text)) {
      return points.map(function (p) { return Math.min(p, text.length); });
    }
    return points.map(function (target) {
      var unit = 0;
      for (var cp = 0; cp < target && unit < text.length; cp++) {
        var code = text.charCodeAt(unit);
        unit += code >= 0xd800 && code <= 0xdbff && unit + 1 < text.length ? 2 : 1;
      }
      return unit;
    });
  }

  function pageOf(offset) {
    var page = 1;
    for (var i = 0; i < pageStarts.length; i++) {
      if (pageStarts[i] <= offset) page = i + 1;
      else break;
    }
    return page;
  }

  function showPageLinks(page, query) {
    if (!pageStarts.length) return;
    if (pageLink) {
      pageLink.href = pagesUrl.replace(/\/pages\/1$/, "/pages/" + page) + (query ? query + "#passage" : "");
      pageLink.textContent = interpolate(gettext("Page %(page)s image"), { page: page }, true);
      pageLink.hidden = false;
    }
    if (fileLink) fileLink.href = fileLink.getAttribute("data-base") + "#page=" + page;
  }

  function say(message) {
    if (status) status.textContent = message;
  }

  function highlight(start, end) {
    var node = textNode();
    var units = toUnits(node.data, [start, end]);
    if (units[0] >= units[1]) {
      say(interpolate(gettext("The link points outside this document's text (characters %(start)s–%(end)s)."), { start: start, end: end }, true));
      return;
    }
    var range = document.createRange();
    range.setStart(node, units[0]);
    range.setEnd(node, units[1]);
    var mark = document.createElement("mark");
    mark.id = "highlight";
    mark.tabIndex = -1;
    range.surroundContents(mark);
    var page = pageOf(start);
    showPageLinks(page, "?char=" + start + "," + end);
    if (jumpLink) jumpLink.hidden = false;
    say(pageStarts.length ?
      interpolate(gettext("Highlighted characters %(start)s–%(end)s, page %(page)s."), { start: start, end: end, page: page }, true) :
      interpolate(gettext("Highlighted characters %(start)s–%(end)s."), { start: start, end: end }, true));
    mark.scrollIntoView({ block: "center", inline: "nearest" });
    mark.focus({ preventScroll: true });
  }

  function scrollToPage(page) {
    if (!pageStarts.length || page < 1 || page > pageStarts.length) {
      say(interpolate(gettext("This document has no page %(page)s."), { page: page }, true));
      return;
    }
    var node = textNode();
    var offset = toUnits(node.data, [pageStarts[page - 1]])[0];
    var range = document.createRange();
    range.setStart(node, offset);
    range.setEnd(node, Math.min(offset + 1, node.data.length));
    var rect = range.getBoundingClientRect();
    window.scrollTo({ top: window.scrollY + rect.top - 96 });
    showPageLinks(page, "");
    say(interpolate(gettext("Page %(page)s."), { page: page }, true));
  }

  function apply() {
    clearHighlight();
    var hash = window.location.hash || "";
    try {
      hash = decodeURIComponent(hash);
    } catch (error) {
      /* a malformed escape: match the fragment as typed */
    }
    var chars = /^#char=(\d+),(\d+)$/.exec(hash);
    var page = /^#page=(\d+)$/.exec(hash);
    if (chars) highlight(parseInt(chars[1], 10), parseInt(chars[2], 10));
    else if (page) scrollToPage(parseInt(page[1], 10));
    else say("");
  }

  if (jumpLink) {
    jumpLink.addEventListener("click", function (event) {
      var mark = document.getElementById("highlight");
      if (!mark) return;
      event.preventDefault();
      mark.scrollIntoView({ block: "center" });
      mark.focus({ preventScroll: true });
    });
  }
  window.addEventListener("hashchange", apply);
  apply();
})();
