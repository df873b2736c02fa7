/* Progressive enhancements: copy buttons on code, "/" to search, a paste field that grows and
   searches on Enter, search as you type. The page of a retired id (redirect.html) loads it before
   its body, only to move on. */
(function () {
  "use strict";
  /* A retired id's page sends the reader on to its successor with the query and anchor it was
     opened with (?v= from the link helper, #source), which its meta refresh, there for readers
     without JavaScript, drops. From this file, not the page: no page has an inline script, so a
     site can forbid them (Content-Security-Policy: script-src 'self'). */
  var moved = document.documentElement.getAttribute("data-moved-to");
  if (moved !== null) {
    window.location.replace(moved + window.location.search + window.location.hash);
    return;
  }
  var root = document.body.getAttribute("data-root") || "./";

  function addCopyButtons() {
    if (!navigator.clipboard) return;
    document.querySelectorAll("pre.code").forEach(function (pre) {
      var wrap = document.createElement("div");
      wrap.className = "copy-wrap";
      pre.parentNode.insertBefore(wrap, pre);
      wrap.appendChild(pre);
      var button = document.createElement("button");
      button.type = "button";
      button.className = "copy";
      button.textContent = "Copy";
      button.setAttribute("aria-label", "Copy code");
      button.addEventListener("click", function () {
        navigator.clipboard.writeText(pre.innerText).then(function () {
          button.textContent = "Copied";
          setTimeout(function () { button.textContent = "Copy"; }, 1500);
        });
      });
      wrap.appendChild(button);
    });
  }

  function isTyping(target) {
    var tag = target && target.tagName;
    return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (target && target.isContentEditable);
  }

  document.addEventListener("keydown", function (event) {
    if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey || isTyping(event.target)) return;
    var box = document.querySelector("main .searchbox textarea") || document.querySelector(".searchbox textarea");
    if (box) {
      event.preventDefault();
      box.focus();
      box.select();
    }
  });

  /* Load the engine and the UI on first use, in order, by script tags so that file:// works
     too (they load the index's fragments a search needs); what the page already has is not
     loaded again. */
  function load(scripts, done) {
    (function next(i) {
      if (i === scripts.length) return done && done();
      if (window[scripts[i][1]]) return next(i + 1);
      var script = document.createElement("script");
      script.src = root + scripts[i][0];
      script.onload = function () { next(i + 1); };
      document.head.appendChild(script);
    })(0);
  }
  var ENGINE = [["static/match.js", "ErrorsiteMatch"], ["static/search.js", "ErrorsiteSearch"]];
  var loading = false;
  function loadSearch() {
    if (loading) return;
    loading = true;
    load(ENGINE, function () {
      /* What was typed while the engine loaded is searched now that it is here. */
      boxes.forEach(function (box) {
        if (box.value) box.dispatchEvent(new Event("input"));
      });
    });
  }

  /* The box grows with what is pasted; Enter searches (unless an option is selected, which
     search.js follows), Shift+Enter starts a new line. */
  function grow(box) {
    box.style.height = "auto";
    box.style.height = box.scrollHeight + box.offsetHeight - box.clientHeight + "px";
  }
  var boxes = Array.from(document.querySelectorAll(".searchbox textarea"));
  boxes.forEach(function (box) {
    box.addEventListener("input", function () { grow(box); });
    box.addEventListener("keydown", function (event) {
      if (event.key !== "Enter" || event.shiftKey || event.isComposing || box.hasAttribute("aria-activedescendant")) return;
      event.preventDefault();
      box.form.requestSubmit();
    });
    if (!document.getElementById("results")) box.addEventListener("focus", loadSearch, { once: true });
  });
  addCopyButtons();
  /* An error page opened from a search shows the reader's own message (yours.js). */
  if (document.querySelector("article.error") && new URLSearchParams(window.location.search).get("m")) {
    load([ENGINE[0], ["static/yours.js", "ErrorsiteYours"]]);
  }
})();
