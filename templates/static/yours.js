/* On an error page opened from a search (?m=): the message the reader saw, and its values
   beside the placeholders of the wording it matches (the message or a variant). Text from the
   reader is only set as textContent, never as markup. */
(function () {
  "use strict";
  if (window.ErrorsiteYours) return;
  window.ErrorsiteYours = true;
  var M = window.ErrorsiteMatch, byId = document.getElementById.bind(document);
  var article = document.querySelector("article.error[data-pattern]");
  var text = new URLSearchParams(window.location.search).get("m");
  if (!article || !text || !M) return;

  function cell(value) {
    var td = document.createElement("td");
    td.textContent = value;
    return td;
  }

  var wordings = [article.querySelector(".message")].concat(Array.from(article.querySelectorAll(".variants li")));
  var values = null, names = [];
  wordings.forEach(function (w, i) {
    if (values) return;
    values = M.fill(JSON.parse((i ? w : article).getAttribute("data-pattern")), text);
    if (values) names = Array.from(w.querySelectorAll("var.ph")).map(function (v) { return v.textContent; });
  });
  if (!values) return;
  /* The block is made here, after the message: every page would otherwise carry it, hidden, for this script. */
  var box = document.createElement("div");
  box.className = "yours";
  box.id = "yours";
  box.innerHTML = '<h3>The message you saw</h3><pre class="message"><code id="yours-text"></code></pre>' + (values.length ?
    '<table class="values" id="yours-table"><caption class="vh">Values in your message</caption><thead><tr>' +
    '<th scope="col">Placeholder</th><th scope="col">Your value</th></tr></thead><tbody id="yours-values"></tbody></table>' : "");
  wordings[0].after(box);
  /* What the paste shows of the error, read as the search read it: after a traceback's frames, the exception's lines. */
  byId("yours-text").textContent = M.parts(text).lines.join("\n").trim() || text.trim();
  values.forEach(function (value, n) {
    byId("yours-values").appendChild(document.createElement("tr")).append(cell(names[n] || "{}"), cell(value));
  });
})();
