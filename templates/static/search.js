/* Search UI: the search page, results under the header box, and the reader's own values
   on an error page (?m=). Text from records and from the reader is only ever set with
   textContent, never as markup. */
(function () {
  "use strict";
  if (window.ErrorsiteSearch) return;
  var root = document.body.getAttribute("data-root") || "./";
  var M = window.ErrorsiteMatch;
  var KIND = { full: "matches your message", partial: "matches the start of your message", words: "shares words", near: "did you mean" };

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

  function hrefFor(result, text) {
    var href = root + result.record.url + "index.html";
    return result.kind === "full" || result.kind === "partial" ? href + "?m=" + encodeURIComponent(text) : href;
  }

  /* The message shown is the wording that matched: the record's message or one of its variants. */
  function record(index, result) {
    var row = M.record(index, result.id);
    return { title: row.title, message: row.templates[result.variant === null ? 0 : result.variant + 1].message,
      exception: row.exception, path: row.path, line: row.line, url: "errors/" + result.id + "/" };
  }

  function run(text, limit) {
    var index = window.ERRORSITE_INDEX;
    if (!index || !text.trim()) return [];
    return M.search(index, text, limit).map(function (r) {
      r.record = record(index, r);
      return r;
    });
  }

  function resultItem(result, text, full) {
    /* An option may hold no link (axe: nested-interactive): it carries its address, and
       Enter or a click follows it. */
    var li = el("li"), rec = result.record;
    li.id = "r-" + result.id;
    li.setAttribute("role", "option");
    li.setAttribute("data-href", hrefFor(result, text));
    li.appendChild(el("span", "title", rec.title));
    var meta = el("span", "meta", " " + rec.exception + " · " + rec.path + ":" + rec.line + " · " + KIND[result.kind]);
    li.appendChild(meta);
    if (full) {
      var code = el("code");
      code.appendChild(highlighted(result.kind === "full" || result.kind === "partial" ? rec.message : rec.title, result.spans));
      var p = el("p", "message-line");
      p.appendChild(code);
      li.appendChild(p);
    }
    return li;
  }

  /* Arrow keys move through the options; Enter follows the selected one, as does a click. */
  function keyboard(input, list, onEnterWithout) {
    var selected = -1;
    function select(i) {
      var items = list.querySelectorAll("li");
      if (!items.length) return;
      selected = (i + items.length) % items.length;
      items.forEach(function (item, n) { item.setAttribute("aria-selected", n === selected ? "true" : "false"); });
      input.setAttribute("aria-activedescendant", items[selected].id);
      items[selected].scrollIntoView({ block: "nearest" });
    }
    input.addEventListener("keydown", function (event) {
      if (event.key === "ArrowDown") { event.preventDefault(); select(selected + 1); }
      else if (event.key === "ArrowUp") { event.preventDefault(); select(selected - 1); }
      else if (event.key === "Enter" && selected >= 0) {
        event.preventDefault();
        window.location.href = list.querySelectorAll("li")[selected].getAttribute("data-href");
      } else if (event.key === "Enter" && onEnterWithout) { onEnterWithout(event); }
    });
    list.addEventListener("click", function (event) {
      var option = event.target.closest("li[data-href]");
      if (option) window.location.href = option.getAttribute("data-href");
    });
    return function reset() { selected = -1; input.removeAttribute("aria-activedescendant"); };
  }

  function searchPage() {
    var list = document.getElementById("results");
    if (!list) return;
    var input = document.querySelector("main .searchbox input");
    var status = document.getElementById("search-status");
    list.setAttribute("role", "listbox");
    list.setAttribute("aria-label", "Results");
    input.setAttribute("aria-controls", "results");
    var reset = keyboard(input, list);
    function show() {
      var text = input.value;
      var results = run(text, 20);
      list.textContent = "";
      reset();
      results.forEach(function (r) { list.appendChild(resultItem(r, text, true)); });
      status.textContent = !text.trim() ? "Type words or paste an error message." :
        results.length ? results.length + " result" + (results.length === 1 ? "" : "s") + "." : "No error matches. Try fewer words, or browse all errors.";
      var url = new URL(window.location.href);
      if (text) url.searchParams.set("q", text); else url.searchParams.delete("q");
      try { history.replaceState(null, "", url.href); } catch (e) { /* file:// may refuse */ }
    }
    input.value = new URLSearchParams(window.location.search).get("q") || "";
    input.addEventListener("input", show);
    input.form.addEventListener("submit", function (event) { event.preventDefault(); show(); });
    show();
    if (!input.value) input.focus();
  }

  function headerBox(input) {
    if (document.getElementById("results")) return;
    var list = el("ul", "suggest");
    list.id = "suggest-" + input.id;
    list.setAttribute("role", "listbox");
    list.setAttribute("aria-label", "Matching errors");
    list.hidden = true;
    input.parentNode.appendChild(list);
    input.setAttribute("aria-controls", list.id);
    input.setAttribute("aria-autocomplete", "list");
    var reset = keyboard(input, list);
    function show() {
      var results = run(input.value, 6);
      list.textContent = "";
      reset();
      results.forEach(function (r) { list.appendChild(resultItem(r, input.value, false)); });
      list.hidden = !results.length;
    }
    input.addEventListener("input", show);
    input.addEventListener("keydown", function (event) { if (event.key === "Escape") list.hidden = true; });
    if (input.value) show();
  }

  /* On an error page: the reader's own message, its values beside the placeholders. */
  function yourValues() {
    var article = document.querySelector("article.error[data-message]");
    var text = new URLSearchParams(window.location.search).get("m");
    if (!article || !text) return;
    var template = article.getAttribute("data-message");
    var values = M.fill(template, text);
    if (!values) return;
    var names = Array.from(article.querySelectorAll(".message var.ph")).map(function (v) { return v.textContent; });
    document.getElementById("yours-text").textContent = text;
    var body = document.getElementById("yours-values");
    values.forEach(function (value, i) {
      var tr = el("tr");
      tr.appendChild(el("td", null, names[i] || "{}"));
      tr.appendChild(el("td", null, value));
      body.appendChild(tr);
    });
    document.getElementById("yours").hidden = false;
  }

  window.ErrorsiteSearch = true;
  yourValues();
  searchPage();
  document.querySelectorAll(".top .searchbox input").forEach(headerBox);
})();
