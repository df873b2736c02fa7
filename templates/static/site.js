/* Progressive enhancements: copy buttons on code, "/" to search, search as you type. */
(function () {
  "use strict";
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
    var box = document.querySelector("main input[type=search]") || document.querySelector("input[type=search]");
    if (box) {
      event.preventDefault();
      box.focus();
      box.select();
    }
  });

  /* Load the index, the engine and the UI on first use, in order, by script tags so
     that file:// works too; what the page already has is not loaded again. */
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
    load([["search-index.js", "ERRORSITE_INDEX"]].concat(ENGINE), function () {
      /* What was typed while the index loaded is searched now that it is here. */
      document.querySelectorAll(".top .searchbox input").forEach(function (input) {
        if (input.value) input.dispatchEvent(new Event("input"));
      });
    });
  }

  document.querySelectorAll(".top .searchbox input").forEach(function (input) {
    input.addEventListener("focus", loadSearch, { once: true });
  });
  addCopyButtons();
  if (document.querySelector("article.error") && new URLSearchParams(window.location.search).get("m")) load(ENGINE);
})();
