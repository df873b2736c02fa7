/* Search UI: the search page and suggestions under a box. Text from records and readers is
   only set as textContent, never as markup. */
(function () {
  "use strict";
  if (window.ErrorsiteSearch) return;
  var root = document.body.getAttribute("data-root") || "./";
  var M = window.ErrorsiteMatch, byId = document.getElementById.bind(document);
  /* A full match the engine is unsure of only resembles the message. */
  var KIND = { full: "matches your message", like: "resembles your message", partial: "matches the start of your message", words: "shares words", near: "did you mean", link: "your message links here", frame: "your traceback names this raise" };

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text != null) node.textContent = text;
    return node;
  }

  /* Spans count code points; append() takes strings as text. */
  function highlighted(node, text, spans) {
    var chars = Array.from(text), pos = 0;
    function part(a, b) { return chars.slice(a, b).join(""); }
    (spans || []).forEach(function (span) {
      if (span[0] < pos) return;
      node.append(part(pos, span[0]), el("mark", null, part(span[0], span[1])));
      pos = span[1];
    });
    node.append(part(pos));
  }

  /* A page explains the message when the engine says so (without a say: a full match). */
  function sure(r) { return r.confident == null ? r.kind === "full" : !!r.confident; }

  /* The index comes in fragments (generator/search/shards.py), each a script that hands its data to
     ERRORSITE_SHARD, so that file:// loads them too; a search loads only those its text needs. */
  var fragments = {}, waiting = {};
  window.ERRORSITE_SHARD = function (name, data) {
    fragments[name] = data;
    (waiting[name] || []).forEach(function (w) { w[0](data); });
    delete waiting[name];
  };
  function read(path) {
    var name = path.replace(/^search\//, "").replace(/\.js$/, "");
    if (name in fragments) return Promise.resolve(fragments[name]);
    return new Promise(function (resolve, reject) {
      if (!waiting[name]) {
        waiting[name] = [];
        var script = document.createElement("script");
        script.src = root + path;
        script.onerror = function () {
          (waiting[name] || []).forEach(function (w) { w[1](new Error("cannot load " + path)); });
          delete waiting[name];
        };
        document.head.appendChild(script);
      }
      waiting[name].push([resolve, reject]);
    });
  }

  /* A promise of the results, each with its record. */
  function run(text, limit) {
    if (!text.trim()) return Promise.resolve([]);
    return M.loadFor(read, text, limit).then(function (loaded) {
      return M.searchLoaded(loaded, text, limit).map(function (r) {
        r.record = M.record(loaded.index, r.id);
        /* The classes of the records that raise the same message and that nothing in the paste tells apart. */
        r.alsoAs = (r.twins || []).map(function (id) { return M.record(loaded.index, id).exception; })
          .filter(function (name, i, all) { return name !== r.record.exception && all.indexOf(name) === i; });
        return r;
      });
    });
  }
  /* Only the answer to the latest text is shown, whichever finishes first. */
  function latest(show) {
    var asked = 0;
    return function (text, limit) {
      var mine = ++asked;
      run(text, limit).then(function (results) { if (mine === asked) show(text, results, null); },
        function (error) { if (mine === asked) show(text, [], error); });
    };
  }

  /* A link (new tab, copy, middle click) that is also the listbox's option for the arrow keys. */
  function item(r, text, full) {
    var li = el("li"), a = li.appendChild(el("a")), rec = r.record, exact = r.kind === "full" || r.kind === "partial";
    /* The message shown is the wording that matched: the record's message or one of its variants. */
    var message = rec.templates[r.variant === null ? 0 : r.variant + 1].message;
    li.setAttribute("role", "none");
    a.id = "r-" + r.id;
    /* The reader's version (the search page's version field) goes along: the page says what that version printed. */
    var params = new URLSearchParams(), version = document.querySelector("main .searchbox input[name=v]");
    if (exact) params.set("m", text);
    if (version && version.value.trim()) params.set("v", version.value.trim());
    a.href = root + rec.url + "index.html" + (params.toString() ? "?" + params : "");
    a.setAttribute("role", "option");
    var notes = (r.places && r.places.length ? " · raised at " + (r.places.length + 1) + " places" : "") +
      (r.alsoAs && r.alsoAs.length ? " as " + [rec.exception].concat(r.alsoAs).join(", ") : "") +
      (r.other_class ? " · printed as " + r.other_class : "");
    a.append(el("span", "title", rec.title), el("span", "meta", " " + rec.exception + " · " + rec.path + ":" + rec.line + " · " + KIND[r.kind === "full" && !sure(r) ? "like" : r.kind] + notes
      + (rec.drafted ? " · AI draft, not reviewed" : rec.written ? "" : " · not yet written")));
    if (full) highlighted(a.appendChild(el("p", "message-line")).appendChild(el("code")), exact ? message : rec.title, r.spans);
    return li;
  }

  function fill(list, results, text, full) {
    list.replaceChildren.apply(list, results.map(function (r) { return item(r, text, full); }));
  }

  /* Down (from the box's last line) and Up move through the options, Up from the first back
     to the text; Enter follows the selected one (with none, site.js submits the form). */
  function keyboard(box, lists) {
    var at = -1;
    function options() {
      return lists.flatMap(function (l) { return Array.from(l.querySelectorAll("[role=option]")); });
    }
    function select(i) {
      var items = options();
      at = i;
      items.forEach(function (o, n) { o.setAttribute("aria-selected", n === i ? "true" : "false"); });
      if (i < 0) return box.removeAttribute("aria-activedescendant");
      box.setAttribute("aria-activedescendant", items[i].id);
      items[i].scrollIntoView({ block: "nearest" });
    }
    box.addEventListener("keydown", function (e) {
      var n = options().length, key = e.key;
      if (key === "ArrowDown" && n && (at >= 0 || box.value.indexOf("\n", box.selectionEnd) < 0)) select((at + 1) % n);
      else if (key === "ArrowUp" && at >= 0) select(at - 1);
      else if (key === "Enter" && !e.shiftKey && at >= 0) window.location.href = options()[at].href;
      else return;
      e.preventDefault();
    });
    return function reset() { at = -1; box.removeAttribute("aria-activedescendant"); };
  }

  function searchPage() {
    var list = byId("results"), others = byId("others"), head = byId("results-head"), othersHead = byId("others-head");
    var box = document.querySelector("main .searchbox textarea"), status = byId("search-status");
    [list, others].forEach(function (l) { l.setAttribute("role", "listbox"); });
    box.setAttribute("aria-controls", "results others");
    var reset = keyboard(box, [list, others]);
    var ask = latest(show);
    function show(text, results, error) {
      /* After a full match (or the page the message links to), other pages that explain it go with the other results. */
      var good = results.filter(sure);
      var full = good.filter(function (r) { return r.kind === "full" || r.linked; });
      if (full.length) good = full;
      var weak = results.filter(function (r) { return good.indexOf(r) < 0; }), n = good.length;
      reset();
      fill(list, n ? good : weak, text, true);
      fill(others, n ? weak.slice(0, 5) : [], text, true);
      head.hidden = !results.length;
      head.textContent = n ? (n === 1 ? "The page for this message" : "Pages for this message") : "Closest pages, none explains it";
      othersHead.hidden = !others.children.length;
      status.textContent = error ? "The search index could not be loaded. Browse all errors instead." :
        !text.trim() ? "Type words or paste an error message." :
        n ? n + (n === 1 ? " page explains" : " pages explain") + " this message." :
        results.length ? "No page explains this message." : "No error matches. Try fewer words, or browse all errors.";
      var url = new URL(window.location.href);
      if (text) url.searchParams.set("q", text); else url.searchParams.delete("q");
      var version = box.form.querySelector("input[name=v]");
      if (version && version.value.trim()) url.searchParams.set("v", version.value.trim()); else url.searchParams.delete("v");
      try { history.replaceState(null, "", url.href); } catch (e) { /* file:// may refuse */ }
    }
    function search() { ask(box.value, 20); }
    box.value = new URLSearchParams(window.location.search).get("q") || "";
    var versionBox = box.form.querySelector("input[name=v]");
    if (versionBox) {
      versionBox.value = new URLSearchParams(window.location.search).get("v") || "";
      versionBox.addEventListener("input", search);
    }
    box.addEventListener("input", search);
    box.form.addEventListener("submit", function (e) { e.preventDefault(); search(); });
    box.dispatchEvent(new Event("input"));
    if (!box.value) box.focus();
  }

  /* Suggestions under a box that opens the search page. */
  function suggest(box) {
    var list = box.parentNode.appendChild(el("ul", "suggest"));
    list.id = "suggest-" + box.id;
    list.setAttribute("role", "listbox");
    list.setAttribute("aria-label", "Matching errors");
    list.hidden = true;
    box.setAttribute("aria-controls", list.id);
    box.setAttribute("aria-autocomplete", "list");
    var reset = keyboard(box, [list]), ask = latest(function (text, results) {
      reset();
      fill(list, results, text, false);
      list.hidden = !results.length;
    });
    function search() { ask(box.value, 6); }
    box.addEventListener("input", search);
    box.addEventListener("keydown", function (e) { if (e.key === "Escape") list.hidden = true; });
    if (box.value) search();
  }

  /* run() is the page's own search (fragments and all), for checks made in the browser. */
  window.ErrorsiteSearch = { run: run };
  if (byId("results")) searchPage();
  else document.querySelectorAll(".searchbox textarea").forEach(suggest);
})();
