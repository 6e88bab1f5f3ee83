// Keyboard navigation of search results and the copy button of a context.
"use strict";
(function () {
  function results() { return Array.from(document.querySelectorAll("li.result")); }
  var current = -1;
  function select(i) {
    var items = results();
    if (!items.length) return;
    current = Math.max(0, Math.min(items.length - 1, i));
    items.forEach(function (li, n) { li.classList.toggle("selected", n === current); });
    items[current].focus();
    items[current].scrollIntoView({ block: "nearest" });
  }
  function typing(target) {
    var tag = (target && target.tagName) || "";
    return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (target && target.isContentEditable);
  }
  document.addEventListener("keydown", function (ev) {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    var q = document.getElementById("q");
    if (typing(ev.target)) {
      if (ev.key === "Escape" && ev.target === q) { q.blur(); }
      if (ev.key === "ArrowDown" && ev.target === q && results().length) { ev.preventDefault(); q.blur(); select(0); }
      return;
    }
    if (ev.key === "/" && q) { ev.preventDefault(); q.focus(); q.select(); return; }
    if (!results().length) return;
    if (ev.key === "j" || ev.key === "ArrowDown") { ev.preventDefault(); select(current + 1); }
    else if (ev.key === "k" || ev.key === "ArrowUp") { ev.preventDefault(); select(current - 1); }
    else if (ev.key === "Enter" && current >= 0) {
      var link = results()[current].querySelector("a.symbol");
      if (link) { ev.preventDefault(); window.location.assign(link.href); }
    }
  });
  // empty filters stay out of the URL: a shared link reads as what was asked
  var form = document.querySelector("form.search");
  if (form) {
    form.addEventListener("submit", function () {
      Array.from(form.elements).forEach(function (el) {
        if (el.name && el.name !== "q" && !el.value) el.disabled = true;
      });
    });
  }
  document.addEventListener("click", function (ev) {
    var button = ev.target.closest && ev.target.closest("button.copy");
    if (!button) return;
    var source = document.getElementById(button.getAttribute("data-copy-target"));
    var note = button.parentNode.querySelector(".copied");
    var value = source ? source.textContent : "";
    function done(ok) { if (note) note.textContent = ok ? "copied" : "select the text and copy it"; }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(value).then(function () { done(true); }, function () { done(false); });
    } else {
      // plain http on another host: no Clipboard API; select the text and copy
      var range = document.createRange();
      range.selectNodeContents(source);
      var sel = window.getSelection();
      sel.removeAllRanges(); sel.addRange(range);
      var ok = false;
      try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
      done(ok);
    }
  });
})();
