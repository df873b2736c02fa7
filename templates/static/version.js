/* On an error page opened with the reader's version (?v=8.1.3, as the link helper prints it):
   whether that version raises this error, and with which wording, from the page's history
   (#versions: each release, its change, the wording it printed from then on). Without the
   version, or without JavaScript, the line under the title says the same for every release.
   The version is only set as textContent, never as markup. */
(function () {
  "use strict";
  var asked = new URLSearchParams(window.location.search).get("v");
  var box = document.getElementById("reader-version"), data = document.getElementById("versions");
  if (!asked || !box || !data) return;
  var rows = JSON.parse(data.textContent);
  if (!rows.length) return;

  /* A version as numbers: 8.1.3 -> [8,1,3,0,0]; a pre-release (8.0.0rc1) sorts before its release. */
  var PRE = { dev: -4, a: -3, alpha: -3, b: -2, beta: -2, c: -1, rc: -1, pre: -1, preview: -1 };
  function parse(text) {
    var m = /^\s*[vV]?(\d+(?:\.\d+)*)(?:[-._]?(dev|alpha|beta|preview|pre|rc|a|b|c)[-._]?(\d*))?/.exec(text);
    if (!m) return null;
    var nums = m[1].split(".").map(Number);
    while (nums.length < 4) nums.push(0);
    return nums.concat([m[2] ? PRE[m[2]] : 0, m[3] ? Number(m[3]) : 0]);
  }
  function compare(a, b) {
    var n = Math.max(a.length, b.length);
    for (var i = 0; i < n; i++) {
      var d = (a[i] || 0) - (b[i] || 0);
      if (d) return d;
    }
    return 0;
  }
  var version = parse(asked);
  var at = -1;
  rows.forEach(function (row, i) {
    var r = parse(row.release);
    if (row.release === asked || (version && r && compare(r, version) <= 0)) at = i;
  });
  if (!version && at < 0 && !rows.some(function (row) { return row.release === asked; })) {
    box.textContent = "This page cannot place version " + asked + " among the releases above.";
  } else if (at < 0) {
    box.textContent = "Version " + asked + " does not raise this error: release " + rows[0].release + " first raised it.";
  } else if (rows[at].change === "removed") {
    box.textContent = "Version " + asked + " does not raise this error: release " + rows[at].release + " no longer raised it.";
  } else {
    var now = rows.filter(function (row) { return row.message !== null; }).pop().message;
    var later = rows.slice(at + 1).filter(function (row) { return row.change === "changed"; })[0];
    if (!later) {
      box.textContent = "Version " + asked + " raises this error with the wording shown here.";
    } else if (rows[at].message === now) {
      box.textContent = "Version " + asked + " raises this error; release " + later.release + " changed its wording since.";
    } else {
      box.append("Version " + asked + " raises this error, worded as it was before release " + later.release + ": ");
      box.appendChild(document.createElement("code")).textContent = rows[at].message;
    }
  }
  box.hidden = false;
})();
