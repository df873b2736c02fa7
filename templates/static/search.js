/* Search UI: the search page, results under the header box, and the reader's own values
   on an error page (?m=). Text from records and from the reader is only ever set with
   textContent, never as markup. */
(function () {
  "use strict";
  if (window.ErrorsiteSearch) return;
  var root = document.body.getAttribute("data-root") || "./";
  var M = window.ErrorsiteMatch;
  var KIND = { full: "matches your message", partial: "matches the start of your message", words: "shares words", near: "did you mean" };
  var OTHERS = 5;

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text != null) node.textContent = text;
    return node;
  }

  function highlighted(text, spans) {
    var out = document.createDocumentFragment(), chars = Array.from(text), pos = 0;
    (spans || []).forEach(function (span) {
      if (span[0] < pos) return;
      out.appendChild(document.createTextNode(chars.slice(pos, span[0]).join("")));
      out.appendChild(el("mark", null, chars.slice(span[0], span[1]).join("")));
      pos = span[1];
    });
    out.appendChild(document.createTextNode(chars.slice(pos).join("")));
    return out;
  }

  /* A page explains the message when the engine says so; engines that do not say
     count a full match as that. */
  function confident(result) {
    return result.confident == null ? result.kind === "full" : !!result.confident;
  }

  function hrefFor(result, text) {
    var href = root + result.record.url + "index.html";
    return result.kind === "full" || result.kind === "partial" ? href + "?m=" + encodeURIComponent(text) : href;
  }

  var rows = null;
  /* The index stores each record as [id, title, message, exception, path, ..., line]. */
  function record(index, id) {
    if (!rows) {
      rows = {};
      index.records.forEach(function (row) { rows[row[0]] = row; });
    }
    var row = rows[id];
    return { title: row[1], message: row[2], exception: row[3], path: row[4], line: row[10], url: "errors/" + id + "/" };
  }

  function run(text, limit) {
    var index = window.ERRORSITE_INDEX;
    if (!index || !text.trim()) return [];
    return M.search(index, text, limit).map(function (r) {
      r.record = record(index, r.id);
      return r;
    });
  }

  /* A result is a link, so that it opens in a new tab, copies, and works with the
     middle button; as the listbox's option it is also reached with the arrow keys. */
  function resultItem(result, text, full) {
    var li = el("li"), a = el("a"), rec = result.record, other = result.variant != null;
    li.setAttribute("role", "none");
    a.id = "r-" + result.id;
    a.href = hrefFor(result, text);
    a.setAttribute("role", "option");
    a.setAttribute("aria-selected", "false");
    a.appendChild(el("span", "title", rec.title));
    a.appendChild(el("span", "meta", " " + rec.exception + " · " + rec.path + ":" + rec.line + " · " +
      KIND[result.kind] + (other ? " (another wording)" : "")));
    if (full) {
      var code = el("code"), exact = result.kind === "full" || result.kind === "partial";
      /* The spans of a match of another wording are not positions in the main message. */
      code.appendChild(highlighted(exact ? rec.message : rec.title, other && exact ? [] : result.spans));
      var p = el("p", "message-line");
      p.appendChild(code);
      a.appendChild(p);
    }
    li.appendChild(a);
    return li;
  }

  function onLastLine(box) {
    return box.value.indexOf("\n", box.selectionEnd) < 0;
  }

  /* Down (from the last line of the box) and Up move through the options, Up from the first
     back to the text; Enter follows the selected one. Enter with nothing selected submits
     the form (site.js), Shift+Enter is a new line. */
  function keyboard(box, lists) {
    var selected = -1;
    function options() {
      return lists.reduce(function (all, list) { return all.concat(Array.from(list.querySelectorAll("[role=option]"))); }, []);
    }
    function select(i) {
      var items = options();
      selected = i;
      items.forEach(function (item, n) { item.setAttribute("aria-selected", n === i ? "true" : "false"); });
      if (i < 0) return box.removeAttribute("aria-activedescendant");
      box.setAttribute("aria-activedescendant", items[i].id);
      items[i].scrollIntoView({ block: "nearest" });
    }
    box.addEventListener("keydown", function (event) {
      var count = options().length;
      if (event.key === "ArrowDown" && count && (selected >= 0 || onLastLine(box))) {
        event.preventDefault();
        select((selected + 1) % count);
      } else if (event.key === "ArrowUp" && selected >= 0) {
        event.preventDefault();
        select(selected - 1);
      } else if (event.key === "Enter" && !event.shiftKey && selected >= 0) {
        event.preventDefault();
        window.location.href = options()[selected].href;
      }
    });
    return function reset() { selected = -1; box.removeAttribute("aria-activedescendant"); };
  }

  function fillList(list, results, text, full) {
    list.textContent = "";
    results.forEach(function (r) { list.appendChild(resultItem(r, text, full)); });
  }

  function plural(n, one, many) { return n + " " + (n === 1 ? one : many); }

  function searchPage() {
    var list = document.getElementById("results");
    if (!list) return;
    var others = document.getElementById("others");
    var head = document.getElementById("results-head"), othersHead = document.getElementById("others-head");
    var box = document.querySelector("main .searchbox textarea");
    var status = document.getElementById("search-status");
    [list, others].forEach(function (l) { l.setAttribute("role", "listbox"); });
    box.setAttribute("aria-controls", "results others");
    var reset = keyboard(box, [list, others]);
    function show() {
      var text = box.value, results = run(text, 20);
      var sure = results.filter(confident), weak = results.filter(function (r) { return !confident(r); });
      reset();
      fillList(list, sure.length ? sure : weak, text, true);
      fillList(others, sure.length ? weak.slice(0, OTHERS) : [], text, true);
      head.hidden = !results.length;
      head.textContent = sure.length ? (sure.length === 1 ? "The page for this message" : "Pages for this message") :
        "Closest pages, none explains it";
      othersHead.hidden = !others.children.length;
      status.textContent = !text.trim() ? "Type words or paste an error message." :
        sure.length ? plural(sure.length, "page explains", "pages explain") + " this message." :
        results.length ? "No page explains this message." : "No error matches. Try fewer words, or browse all errors.";
      var url = new URL(window.location.href);
      if (text) url.searchParams.set("q", text); else url.searchParams.delete("q");
      try { history.replaceState(null, "", url.href); } catch (e) { /* file:// may refuse */ }
    }
    box.value = new URLSearchParams(window.location.search).get("q") || "";
    box.addEventListener("input", show);
    box.form.addEventListener("submit", function (event) { event.preventDefault(); show(); });
    box.dispatchEvent(new Event("input"));
    if (!box.value) box.focus();
  }

  /* Suggestions under a box that opens the search page: the header's, the home page's. */
  function suggestBox(box) {
    var list = el("ul", "suggest");
    list.id = "suggest-" + box.id;
    list.setAttribute("role", "listbox");
    list.setAttribute("aria-label", "Matching errors");
    list.hidden = true;
    box.parentNode.appendChild(list);
    box.setAttribute("aria-controls", list.id);
    box.setAttribute("aria-autocomplete", "list");
    var reset = keyboard(box, [list]);
    function show() {
      var results = run(box.value, 6);
      reset();
      fillList(list, results, box.value, false);
      list.hidden = !results.length;
    }
    box.addEventListener("input", show);
    box.addEventListener("keydown", function (event) { if (event.key === "Escape") list.hidden = true; });
    if (box.value) show();
  }

  /* What a paste shows of the error: after a traceback's frames, the exception's line(s). */
  function messageLines(text) {
    var lines = text.split(/\r\n|\r|\n/), start = -1, at = 0;
    lines.forEach(function (line, i) { if (/^\s*Traceback \(most recent call last\):\s*$/.test(line)) start = i; });
    if (start < 0) return text.trim();
    var rest = lines.slice(start + 1);
    while (at < rest.length && (!rest[at].trim() || /^[ \t]/.test(rest[at]))) at++;
    return rest.slice(at).join("\n").trim() || text.trim();
  }

  /* On an error page: the reader's own message, its values beside the placeholders of the
     wording it matches (the message or one of its variants). */
  function yourValues() {
    var article = document.querySelector("article.error[data-message]");
    var text = new URLSearchParams(window.location.search).get("m");
    if (!article || !text) return;
    var wordings = [article.querySelector(".message")].concat(Array.from(article.querySelectorAll(".variants li")));
    var templates = [article.getAttribute("data-message")].concat(wordings.slice(1).map(function (li) { return li.getAttribute("data-message"); }));
    var values = null, names = [];
    for (var i = 0; i < templates.length && !values; i++) {
      values = M.fill(templates[i], text);
      if (values) names = Array.from(wordings[i].querySelectorAll("var.ph")).map(function (v) { return v.textContent; });
    }
    if (!values) return;
    document.getElementById("yours-text").textContent = messageLines(text);
    var table = document.getElementById("yours-table");
    if (table && values.length) {
      var body = document.getElementById("yours-values");
      values.forEach(function (value, n) {
        var tr = el("tr");
        tr.appendChild(el("td", null, names[n] || "{}"));
        tr.appendChild(el("td", null, value));
        body.appendChild(tr);
      });
    } else if (table) table.hidden = true;
    document.getElementById("yours").hidden = false;
  }

  window.ErrorsiteSearch = true;
  yourValues();
  searchPage();
  if (!document.getElementById("results")) document.querySelectorAll(".searchbox textarea").forEach(suggestBox);
})();
