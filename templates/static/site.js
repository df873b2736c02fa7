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

  var loading = null;
  /* Load the search engine and index on first use, by script tags so file:// works too. */
  window.errorsiteLoadSearch = function () {
    if (loading) return loading;
    loading = Promise.all(["search-index.js", "static/match.js", "static/search.js"].map(function (src) {
      return new Promise(function (resolve, reject) {
        var found = document.querySelector('script[src="' + root + src + '"]');
        if (found && (found.dataset.loaded || src === "search-index.js" && window.ERRORSITE_INDEX)) return resolve();
        var script = document.createElement("script");
        script.src = root + src;
        script.onload = function () { script.dataset.loaded = "1"; resolve(); };
        script.onerror = reject;
        document.head.appendChild(script);
      });
    }));
    return loading;
  };

  document.querySelectorAll(".top .searchbox input").forEach(function (input) {
    input.addEventListener("focus", function () { window.errorsiteLoadSearch(); }, { once: true });
  });
  addCopyButtons();
})();
