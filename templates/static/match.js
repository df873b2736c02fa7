/* Error message matching: the algorithm of docs/matching.md, identical to generator/search/. */
(function (root) {
  "use strict";
  var K1 = 1.2, B = 0.75, MIN_LITERAL = 6, MAX_EXPR = 300, MAX_QUERY_TERMS = 64,
    MAX_FUZZY_TOKENS = 8, MAX_PREFIX_TERMS = 50, PREFIX_WEIGHT = 0.9, FUZZY_WEIGHTS = [1, 0.7, 0.5];
  var WS = "[\t-\r\x1c- \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]";
  WS = RegExp("^" + WS + "$");
  var NON_WORD = [0x80, 0xbf, 0xd7, 0xd7, 0xf7, 0xf7, 0x2000, 0x2bff, 0x3000, 0x303f, 0xff00, 0xff0f, 0x1f000, 0x1faff];
  var FRAME = /^[ \t]*File "([^"]+)", line ([0-9]+)(?:, in ([^ \t]+))?/;
  var TRACEBACK = /Traceback \(most recent call last\):/;
  var EXCEPTION = /^((?:[A-Za-z_][A-Za-z0-9_]*\.)*[A-Za-z_][A-Za-z0-9_]*):(?:[ \t]+|$)/;
  var SEP = /[ \t]*(?:[:|]|-(?![^ \t]))?[ \t]*/y;
  var BRACKET = /\[[^\]\r\n]{1,80}\]/y;
  var STAMP = /[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{2}:[0-9]{2}:[0-9]{2}|DEBUG|INFO|WARN|ERROR|CRITICAL|FATAL/;
  var TIMESTAMP = new RegExp("[0-9]{4}-[0-9]{2}-[0-9]{2}(?:[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2})?(?:[.,][0-9]+)?)?" +
    "(?:Z|[+-][0-9]{2}:?[0-9]{2})?|[0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]+)?", "y");
  var LEVEL = /(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL)(?=[ \t:|-]|$)/y;
  var LOGGER = /in [A-Za-z_][A-Za-z0-9_.]*:|[A-Za-z_][A-Za-z0-9_.]*(?::(?=[^ \t])|(?=[ \t]+-[ \t]))/y;
  var SUGGESTION = /[ \t]+(?:Did you mean[^\n]*\?|\(Possible options: [^\n]*\))[ \t]*$/;
  var ASCII = /^[\x00-\x7f]*$/, URLISH = /[^ \t\n\r\f\v\xa0'"<>()[\]{}`]+/g;
  // What Python's repr of a value looks like: quoted, bracketed, a call, a number or a constant.
  var REPR = new RegExp("^(?:[bBrRuUfF]{0,2}(['\"])[\\s\\S]*\\1|\\[[\\s\\S]*\\]|\\([\\s\\S]*\\)|\\{[\\s\\S]*\\}|<[\\s\\S]*>" +
    "|[A-Za-z_][A-Za-z0-9_.]*\\([\\s\\S]*\\)|[-+]?[0-9][A-Za-z0-9_.+-]*|None|True|False|Ellipsis|NotImplemented|[-+]?inf|nan)$");
  var CONFIDENT_LITERAL = 20, CONFIDENT_CUT = 30, MIN_WRAP = 40, MAX_HELD = 16, GENERIC_EXCEPTIONS = ["Error", "Exception", "Warning"];
  var GROUP = /^[ \t]*\+ Exception Group Traceback \(most recent call last\):/m;
  // A line between the sub-exceptions of a group, and the `|` margins (and a group header's `+`) in front of its lines.
  var GROUP_SEPARATOR = /^[ \t]*\+(?:-\+)*-+(?: [0-9]+ -+| \.\.\. -+| and [0-9]+ more exceptions -+)?[ \t]*$/;
  var GROUP_OWN = /\([0-9]+ sub-exceptions?\)[ \t]*$/;
  var MARGIN = /^[ \t]*(?:[|+](?:[ \t]|$))+/;

  function isWs(ch) { return WS.test(ch); }
  function cpLen(s) { var n = 0; for (var i = 0; i < s.length; i++) { var c = s.charCodeAt(i); if (c < 0xdc00 || c > 0xdfff) n++; } return n; }
  function cmp(a, b) { a = Array.from(a); b = Array.from(b); for (var i = 0; i < a.length && i < b.length; i++) { var d = a[i].codePointAt(0) - b[i].codePointAt(0); if (d) return d; } return a.length - b.length; }

  // Lowercasing by one table, the same in every browser and in Python (generator/search/text.py reads
  // this line): runs of [gap from the last run's end, count (negative: every other code point), offset].
  // Written by scripts/lower_table.py from Python's str.lower.
  var LOWER_RUNS = [65,26,32,101,23,32,1,7,32,33,-24,1,3,-3,1,2,-8,1,2,-23,1,1,1,-121,0,-3,1,3,1,210,0,-2,1,1,1,206,0,1,1,1,2,205,0,1,1,2,1,79,0,1,202,0,1,203,0,1,1,1,1,205,0,1,207,1,1,211,0,1,209,0,1,1,3,1,211,0,1,213,1,1,214,0,-3,1,1,1,218,0,1,1,1,1,218,2,1,1,1,1,218,0,1,1,1,2,217,0,-2,1,1,1,219,0,1,1,3,1,1,7,1,2,0,1,1,1,1,2,0,1,1,1,1,2,0,-9,1,2,-9,1,2,1,2,0,-2,1,1,1,-97,0,1,-56,0,-20,1,1,1,-130,1,-9,1,7,1,10795,0,1,1,1,1,-163,0,1,10792,2,1,1,1,1,-195,0,1,69,0,1,71,0,-5,1,289,-2,1,3,1,1,8,1,116,6,1,38,1,3,37,1,1,64,1,2,63,1,17,32,1,9,32,35,1,8,8,-12,1,5,1,-60,2,1,1,1,1,-7,0,1,1,2,3,-130,0,16,80,0,32,32,48,-17,1,9,-27,1,1,1,15,0,-7,1,2,-48,1,2,38,48,2889,38,7264,1,1,7264,5,1,7264,722,80,38864,0,6,8,2202,43,-3008,2,3,-3008,320,-75,1,9,1,-7615,1,-48,1,9,8,-8,8,6,-8,10,8,-8,8,8,-8,8,6,-8,11,-4,-8,8,8,-8,24,8,-8,8,8,-8,8,8,-8,8,2,-8,0,2,-74,0,1,-9,11,4,-86,0,1,-9,11,2,-8,0,2,-100,12,2,-8,0,2,-112,0,1,-7,11,2,-128,0,2,-126,0,1,-9,297,1,-7517,3,1,-8383,0,1,-8262,6,1,28,45,16,16,19,1,1,818,26,26,1840,48,48,48,1,1,1,1,-10743,0,1,-3814,0,1,-10727,2,-3,1,1,1,-10780,0,1,-10749,0,1,-10783,0,1,-10782,1,1,1,2,1,1,8,2,-10815,0,-50,1,8,-2,1,4,1,1,31053,-23,1,19,-14,1,135,-7,1,3,-31,1,10,-2,1,1,1,-35332,0,-5,1,4,1,1,1,1,-42280,2,-2,1,3,-10,1,1,1,-42308,0,1,-42319,0,1,-42315,0,1,-42305,0,1,-42308,1,1,-42258,0,1,-42282,0,1,-42261,0,1,928,0,-8,1,1,1,-48,0,1,-42307,0,1,-35384,0,-2,1,6,1,1,5,-2,1,28,1,1,22315,26,32,1221,40,40,136,36,40,156,11,39,1,15,39,1,7,39,1,2,39,1770,51,64,3053,32,32,21888,32,32,31392,34,34];
  var LOWER = new Map();
  for (var r = 0, end = 0; r < LOWER_RUNS.length; r += 3) {
    var n = Math.abs(LOWER_RUNS[r + 1]), step = LOWER_RUNS[r + 1] < 0 ? 2 : 1, at = end + LOWER_RUNS[r];
    for (var k = 0; k < n; k++) LOWER.set(at + k * step, at + k * step + LOWER_RUNS[r + 2]);
    end = at + (n - 1) * step + 1;
  }
  function lower(s) {
    if (ASCII.test(s)) return s.toLowerCase();
    var out = "";
    for (var ch of s) { var l = LOWER.get(ch.codePointAt(0)); out += l === undefined ? ch : String.fromCodePoint(l); }
    return out;
  }
  function isWord(c) {
    if (c < 0x80) return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
    if (isWs(String.fromCharCode(c))) return false;
    for (var i = 0; i < NON_WORD.length; i += 2) if (c >= NON_WORD[i] && c <= NON_WORD[i + 1]) return false;
    return true;
  }
  function cpBefore(s, q) { var c = s.charCodeAt(q - 1); return c >= 0xdc00 && c <= 0xdfff && q > 1 ? s.codePointAt(q - 2) : c; }
  function normalize(text) {
    var low = lower(text), out = [], where = [], space = false;
    for (var i = 0; i < low.length; i++) {
      var ch = low[i];
      if (isWs(ch)) { space = true; continue; }
      if (space && out.length) { out.push(" "); where.push(i - 1); }
      space = false; out.push(ch); where.push(i);
    }
    return [out.join(""), where];
  }
  function tokenize(text) {
    var words = [], start = -1, i = 0, cur = "";
    for (var ch of lower(text) + " ") {
      if (isWord(ch.codePointAt(0)) && ch !== " ") { if (start < 0) { start = i; cur = ""; } cur += ch; }
      else if (start >= 0) { if (i - start >= 2) words.push([cur, start, i]); start = -1; }
      i++;
    }
    return words;
  }

  function pair(m, i) { var p = m.substr(i, 2); return p === "{{" || p === "}}" || p === "%%"; }

  function boundary(t, q, lit) { return q === 0 || !isWord(lit.codePointAt(0)) || !isWord(cpBefore(t, q)); }
  function findFirst(t, lit) {
    var q = t.indexOf(lit);
    while (q >= 0 && !boundary(t, q, lit)) q = t.indexOf(lit, q + 1);
    return q >= 0 ? q : -2;
  }
  // A literal only of a space starts earlier only when not found at or after p: values are rarely empty.
  function findAfter(t, lit, p) {
    var q = t.indexOf(lit, p);
    if (lit[0] === " " && (lit !== " " || q < 0)) {
      if (p === 0 && t.startsWith(lit.slice(1))) return -1;
      if (p > 0 && t[p - 1] === " ") q = t.indexOf(lit, p - 1);
    }
    return q >= 0 ? q : -2;
  }
  function endsAt(t, lit, p, first) {
    var q = t.length - lit.length;
    if (first) return q >= 0 && t.endsWith(lit) && boundary(t, q, lit) ? q : -2;
    if (q >= p && t.endsWith(lit)) return q;
    if (lit[0] === " " && q === p - 1 && (p === 0 || t[p - 1] === " ") && t.endsWith(lit.slice(1))) return q;
    return -2;
  }
  function tail(t, lit, p, first) {
    var n = t.length;
    if (!first && lit[0] === " " && (p === 0 || t[p - 1] === " ")) {
      if (p === 0 && n > 0 && lit.slice(1).startsWith(t)) return n + 1;
      p = Math.max(p - 1, 0);
    }
    for (var q = Math.max(p, n - lit.length + 1); q < n; q++) {
      q = t.indexOf(lit[0], q);
      if (q < 0) return 0;
      if (lit.startsWith(t.slice(q)) && (!first || boundary(t, q, lit))) return n - q;
    }
    return 0;
  }
  // Returns {end ("full", "cut" or "noise"), covered (code points per literal), values (UTF-16 ranges)}, as walk.py.
  function walk(segs, t) {
    var covered = [], values = [], p = 0, open = -1, opening = 0, last = segs.length - 1;
    function cov(seg, k) { covered.push(cpLen(seg.slice(0, k))); }
    if (!segs.length) return { end: "cut", covered, values };
    for (var k = 0; k < segs.length; k++) {
      var seg = segs[k];
      if (seg === null) { open = p; continue; }
      var first = k === 0, q;
      if (k === last) q = endsAt(t, seg, p, first);
      else q = first ? findFirst(t, seg) : findAfter(t, seg, p);
      if (q === -2 && k === last - 1 && seg.length > 1 && seg[seg.length - 1] === " ") {
        // The last placeholder was empty, and trimming took the space before it.
        q = endsAt(t, seg.slice(0, -1), p, first);
        if (q !== -2) {
          if (first) opening = q;
          if (open >= 0) values.push(open, Math.max(q, open));
          cov(seg, seg.length);
          return { end: explained(opening), covered, values: values.concat([t.length, t.length]) };
        }
      }
      if (q === -2) {
        if (k === last && (first ? findFirst(t, seg) : findAfter(t, seg, p)) !== -2) {
          cov(seg, seg.length);
          return { end: "noise", covered, values: [] };
        }
        var got = tail(t, seg, p, first);
        cov(seg, got);
        if (first) opening = t.length - got;
        return { end: opening === 0 ? "cut" : "noise", covered, values: [] };
      }
      if (first) opening = q;
      if (open >= 0) { values.push(open, Math.max(q, open)); open = -1; }
      cov(seg, seg.length);
      p = q + seg.length;
    }
    if (open >= 0) values.push(open, t.length);
    return { end: explained(opening), covered, values };
  }
  // A full match explains the text from its start; a template found further in is noise.
  function explained(opening) { return opening === 0 ? "full" : "noise"; }

  function sticky(re, s, pos) { re.lastIndex = pos; return re.exec(s) ? re.lastIndex : -1; }
  // Returns [line without its log prefix, without it up to a logger name only] (a "logger" may start the message).
  function stripLog(line) {
    var pos = 0, seen = false, logger = -1;
    for (;;) {
      pos = sticky(SEP, line, pos);
      var end = sticky(BRACKET, line, pos);
      if (end >= 0) { seen = seen || STAMP.test(line.slice(pos, end)); pos = end; continue; }
      end = sticky(TIMESTAMP, line, pos);
      if (end < 0) end = sticky(LEVEL, line, pos);
      var named = end < 0 && seen;
      if (named) end = sticky(LOGGER, line, pos);
      if (end < 0 || end === pos) break;
      if (named && logger < 0) logger = pos;
      seen = true; pos = end;
    }
    return seen ? [line.slice(pos), line.slice(logger >= 0 ? logger : pos)] : [line, line];
  }
  function blank(line) { return !/[^ \t]/.test(line); }
  // Returns [the exception name in front of head ("" when none), the messages after it].
  function named(head, rest) {
    var m = EXCEPTION.exec(head);
    if (!m) return ["", []];
    var lines = [head.slice(m[0].length)].concat(rest), message = lines.join("\n");
    // KeyError shows its message as a repr, in quotes.
    if (lastName(m[1]) === "KeyError" && /^(['"])[\s\S]*\1$/.test(message))
      return [m[1], [message.slice(1, -1), message]];
    var before = beforeDetails(lines);
    return [m[1], before === null ? [message] : [message, before]];
  }
  // An exception that prints details after its message, past a blank line or indented under it, is read by the
  // lines before them too, after the whole message. Returns null when it has none.
  function beforeDetails(lines) {
    var gap = 0;
    for (var i = 1; i < lines.length && !gap; i++) if (blank(lines[i]) || /^[ \t]/.test(lines[i])) gap = i;
    return gap && lines.slice(0, gap).some(line => !blank(line)) ? lines.slice(0, gap).join("\n") : null;
  }
  // The parts of an exception group's output (the group's own traceback, then each sub-exception's), or null.
  function groupMembers(text) {
    if (!GROUP.test(text)) return null;
    var parts = [[]];
    text.split(/\r\n|\r|\n/).forEach(line => {
      if (GROUP_SEPARATOR.test(line)) parts.push([]);
      else parts[parts.length - 1].push(line.replace(MARGIN, ""));
    });
    var members = parts.map(p => p.join("\n").replace(/^\n+|\n+$/g, "")).filter(p => /[^ \t\n]/.test(p));
    // Each sub-exception's part, then the groups' own (`ExceptionGroup: ... (2 sub-exceptions)`).
    return members.filter(m => !GROUP_OWN.test(m)).concat(members.filter(m => GROUP_OWN.test(m)));
  }
  // A terminal's hard wrap cuts lines at its width: a line of the greatest length (MIN_WRAP+ code points)
  // continues on the next, unless that starts with whitespace or is blank, or the line is a traceback's
  // header or frame. Returns null when none is cut.
  function unwrap(text) {
    var lines = text.split(/\r\n|\r|\n/), width = lines.reduce((w, l) => Math.max(w, cpLen(l)), 0), out = lines[0], joined = false;
    for (var i = 1; i < lines.length; i++) {
      var cut = width >= MIN_WRAP && cpLen(lines[i - 1]) === width && /^[^ \t]/.test(lines[i]) && !FRAME.test(lines[i - 1]) && !TRACEBACK.test(lines[i - 1]);
      joined = joined || cut;
      out += (cut ? "" : "\n") + lines[i];
    }
    return joined ? out : null;
  }
  // Returns {forms, exception, frames, firsts (where each reading's most cleaned form is)}: of the text with
  // its cut lines joined, then as pasted.
  function readPaste(text) {
    var joined = unwrap(text), paste = read(text);
    if (joined === null) return paste;
    var first = read(joined), forms = first.forms.concat(paste.forms);
    forms = forms.filter((f, i) => forms.indexOf(f) === i);
    return { forms, exception: first.exception, frames: first.frames, firsts: [0, forms.indexOf(paste.forms[0])], causes: first.causes };
  }
  function framesOf(lines) {
    var frames = [], m;
    lines.forEach(line => {
      if ((m = FRAME.exec(line))) frames.push({ path: m[1].replace(/\\/g, "/"), line: +m[2], "function": m[3] || "" });
    });
    return frames;
  }
  // Returns {lines (those that carry the message: after the last traceback's frames and code, without blank
  // edges), frames (of that traceback, outermost first), causes (the frames of each earlier, chained traceback,
  // the one just before the last first), traceback (whether there is one)}, lines as they are.
  // An error page shows the reader's message through it too (yours.js), so both read a paste alike.
  function parts(text) {
    var lines = text.split(/\r\n|\r|\n/), starts = [];
    lines.forEach((line, i) => { if (TRACEBACK.test(line)) starts.push(i); });
    var start = starts.length ? starts[starts.length - 1] : -1, causes = [];
    // Lines of an earlier, chained traceback belong to another exception; its frames are where the error the
    // last one handled or wraps was raised.
    for (var k = starts.length - 2; k >= 0; k--) causes.push(framesOf(lines.slice(starts[k] + 1, starts[k + 1])));
    var body = lines.slice(start + 1), at = 0, frames = framesOf(body);
    if (start >= 0) {
      while (at < body.length && /^([ \t]|$)/.test(body[at])) at++;
      body = body.slice(at);
      while (body.length && blank(body[body.length - 1])) body = body.slice(0, -1);
    }
    while (body.length && blank(body[0])) body = body.slice(1);
    return { lines: body, frames, causes, traceback: start >= 0 };
  }
  // Returns {forms (most cleaned first), exception, frames (of the last traceback, outermost first)}, lines as they are.
  function read(text) {
    var p = parts(text), body = p.lines, frames = p.frames, causes = p.causes;
    if (!body.length) return { forms: [text], exception: "", frames, firsts: [0], causes };
    var stripped = stripLog(body[0]), head = stripped[0], found = named(head, body.slice(1));
    var exception = found[0], forms = found[1];
    if (!p.traceback) {
      // A CLI prints its usage, a blank line, then `Error: message`: the last paragraph is the error.
      var ends = body.length, gap = -1;
      while (ends && blank(body[ends - 1])) ends--;
      for (var i = 0; i < ends; i++) if (blank(body[i])) gap = i;
      var tail = gap > 0 ? named(body[gap + 1], body.slice(gap + 2, ends)) : ["", []];
      if (tail[0]) { exception = tail[0]; forms = tail[1].concat([body.slice(gap + 1, ends).join("\n")], forms); }
    }
    forms.push([head].concat(body.slice(1)).join("\n"));
    // A message pasted without its class, with a parser's source line and caret indented under it.
    var before = exception ? null : beforeDetails([head].concat(body.slice(1)));
    if (before !== null) forms.push(before);
    forms.push([stripped[1]].concat(body.slice(1)).join("\n"), text);
    // A suggestion a library appends to the message (`Did you mean --mode?`) is no part of its template.
    var start = forms[0].lastIndexOf("\n") + 1, last = forms[0].slice(start), hint = cpLen(last) <= MAX_EXPR && SUGGESTION.exec(last);
    if (hint) forms.unshift(forms[0].slice(0, start + hint.index));
    return { forms: forms.filter((f, i) => forms.indexOf(f) === i), exception, frames, firsts: [0], causes };
  }
  // The space an empty placeholder implies is covered for the spans, but is not in the paste.
  function quality(segs, t, covered, length) {
    var total = covered.reduce((a, b) => a + b, 0);
    if (segs.length > 1 && segs[0] === null && segs[1][0] === " " && covered.length) {
      var lit = segs[1].slice(1);
      if (t.startsWith(lit) || lit.startsWith(t)) total--;
    }
    return Math.min(total, length);
  }
  function valuesOf(raw, where, spans) {
    var out = [];
    for (var i = 0; i < spans.length; i += 2) out.push(spans[i + 1] > spans[i] ? raw.slice(where[spans[i]], where[spans[i + 1] - 1] + 1) : "");
    return out;
  }
  // The values of a compiled template's placeholders (generator/search/template.py compiles it) in the text, or null.
  function fill(segs, text) {
    var forms = readPaste(text).forms;
    for (var i = 0; i < forms.length; i++) {
      var nw = normalize(forms[i]), r = walk(segs, nw[0]);
      if (r.end === "full") return valuesOf(forms[i], nw[1], r.values);
    }
    return null;
  }

  // The index read by the names in its `fields`, once per index object.
  var cache = new WeakMap();
  // A template {message, pattern, spans, first, reprs} with its segments (a placeholder is 0 in the pattern).
  function template(v) { return Object.assign({ segments: v.pattern.map(s => s || null) }, v); }
  function load(index) {
    var loaded = cache.get(index);
    if (loaded) return loaded;
    var at = {}, number = new Map(index.terms.map((t, i) => [t, i]));
    index.fields.forEach((name, i) => { at[name] = i; });
    // Words that say nothing alone: a record that shares only these with the paste is no result.
    var stop = new Set(index.stop);
    var rows = index.records.map(values => {
      function get(name) { return values[at[name]]; }
      var templates = [{ message: get("message"), pattern: get("pattern"), spans: get("spans"),
        first: get("first"), reprs: get("reprs") }].concat(get("variants")).map(template);
      return { id: get("id"), url: index.url.replace("{id}", get("id")), title: get("title"), exception: get("exception"), path: get("path"), line: get("line"),
        "function": get("function"), removed: !!get("removed"), written: !!get("written"), drafted: get("written") === 1, length: get("dl"), templates,
        yielded: !!get("yielded") };
    });
    var places = new Map(), byLine = new Map(), byFirst = new Map();
    rows.forEach((row, d) => {
      new Set(row.templates.map(tpl => tpl.first).filter(f => f)).forEach(f => { if (!byFirst.has(f)) byFirst.set(f, []); byFirst.get(f).push(d); });
      row.templates.forEach(tpl => {
        var key = row.exception + "\n" + tpl.message;
        if (!places.has(key)) places.set(key, []);
        var ids = places.get(key);
        if (ids[ids.length - 1] !== row.id) ids.push(row.id);
      });
      if (row.path) { if (!byLine.has(row.line)) byLine.set(row.line, []); byLine.get(row.line).push(d); }
    });
    loaded = { rows, places, byLine, byFirst, byId: new Map(rows.map((row, d) => [row.id, d])), terms: index.terms, number, idf: index.idf, postings: index.postings, avgdl: index.avgdl, stop, base: index.base_url || "" };
    cache.set(index, loaded);
    return loaded;
  }

  // --- words
  function edits(a, b, limit) {
    var prev = [], cur, i, j;
    for (j = 0; j <= b.length; j++) prev.push(j);
    for (i = 1; i <= a.length; i++) {
      cur = [i];
      for (j = 1; j <= b.length; j++) cur.push(Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] !== b[j - 1])));
      if (Math.min(...cur) > limit) return limit + 1;
      prev = cur;
    }
    return Math.min(prev[b.length], limit + 1);
  }
  function completions(ix, token) {
    var out = [];
    ix.terms.forEach((t, i) => { if (out.length < MAX_PREFIX_TERMS && t !== token && t.startsWith(token)) out.push({ term: i, weight: PREFIX_WEIGHT, near: false }); });
    return out;
  }
  // The edit distance of a token's near spellings: 1, or 2 for tokens longer than 6.
  function fuzzyLimit(token) { return token.length <= 6 ? 1 : 2; }
  function nearSpellings(ix, token) {
    var limit = fuzzyLimit(token), out = [];
    ix.terms.forEach((t, i) => {
      if (Math.abs(t.length - token.length) <= limit && ASCII.test(t)) {
        var d = edits(token, t, limit);
        if (d <= limit) out.push({ term: i, weight: FUZZY_WEIGHTS[d], near: true });
      }
    });
    return out;
  }
  // Returns the distinct tokens of the message (sorted), each {word, stop, expansions}.
  function query(ix, message) {
    var words = tokenize(message), tokens = [...new Set(words.map(w => w[0]))].slice(0, MAX_QUERY_TERMS);
    var lastTok = tokens[tokens.length - 1];
    var typing = words.length > 0 && words[words.length - 1][2] === cpLen(message) && words[words.length - 1][0] === lastTok;
    var fuzzy = tokens.filter(t => !ix.number.has(t) && t.length >= 4 && ASCII.test(t) && !/^[0-9]+$/.test(t)).slice(0, MAX_FUZZY_TOKENS);
    var out = [];
    tokens.slice().sort(cmp).forEach(token => {
      var exp = ix.number.has(token) ? [{ term: ix.number.get(token), weight: 1, near: false }] : [];
      if (typing && token === lastTok && cpLen(token) >= 3) exp = exp.concat(completions(ix, token));
      if (fuzzy.indexOf(token) >= 0) exp = exp.concat(nearSpellings(ix, token));
      if (exp.length) out.push({ word: token, stop: ix.stop.has(token), expansions: exp });
    });
    return out;
  }
  // Returns {score, near, content (rows a token that is no stop word reached), shown (terms to highlight)}.
  function wordScores(ix, tokens) {
    var found = { score: new Map(), near: new Set(), content: new Set(), shown: new Set() };
    tokens.forEach(token => {
      var best = new Map();
      token.expansions.forEach(e => {
        var idf = ix.idf[e.term], post = ix.postings[e.term], d = 0;
        if (!token.stop) found.shown.add(ix.terms[e.term]);
        for (var i = 0; i < post.length; i++) {
          d += Math.floor(post[i] / 8);
          var tf = post[i] % 8, norm = K1 * (1 - B + B * ix.rows[d].length / ix.avgdl);
          var s = e.weight * (idf * (tf * (K1 + 1)) / (tf + norm));
          var b = best.get(d);
          if (!b || s > b[0]) best.set(d, [s, e.near]);
        }
      });
      Array.from(best.keys()).sort((a, b) => a - b).forEach(d => {
        found.score.set(d, (found.score.get(d) || 0) + best.get(d)[0]);
        if (best.get(d)[1]) found.near.add(d);
        if (!token.stop) found.content.add(d);
      });
    });
    return found;
  }

  // --- templates against the paste
  var WORDS = 1, NOISY = 2, EXPLAINS = 3;
  function tierOf(m) { return m.end === "noise" ? NOISY : EXPLAINS; }
  function fits(a, b) { return tierOf(a) - tierOf(b) || a.quality - b.quality || (a.end === "full") - (b.end === "full") || a.reprsHold - b.reprsHold || a.cleaned - b.cleaned; }
  // The template explains the paste on its own text (docs/matching.md, Confidence).
  function explains(m) {
    if (m.end === "full") return (3 * m.quality >= 2 * (m.length - m.held) || m.quality >= CONFIDENT_LITERAL) && m.reprsHold;
    return m.end === "cut" && m.quality >= CONFIDENT_CUT && m.covered[m.covered.length - 1] > 0;
  }
  // Code points of a full match's values that are one word like a repr and that a literal follows, or that end the
  // message in a placeholder that shows a repr.
  function held(segs, t, spans, reprs) {
    var n = 0, sum = 0;
    segs.forEach((seg, k) => {
      if (seg !== null) return;
      var value = t.slice(spans[2 * n], spans[2 * n + 1]), word = value.trim(), at = n;
      n++;
      if ((k < segs.length - 1 || reprs.indexOf(at) >= 0) && word && word.indexOf(" ") < 0 && REPR.test(word)) sum += cpLen(value);
    });
    return sum;
  }
  // A full match of the text in its own right, which a class name printed in front of it cannot take away.
  function whole(m) {
    return m.end === "full" && m.reprsHold && m.quality >= CONFIDENT_LITERAL && 3 * m.quality >= 2 * (m.length - m.held);
  }
  // Literal code points of a full match (template starting with a placeholder) in the first `removed` UTF-16 units.
  function inRemoved(segs, t, spans, removed) {
    var j = 0, sum = 0;
    segs.forEach(seg => { if (seg !== null) { var s = spans[2 * j++ + 1]; sum += cpLen(t.slice(s, Math.min(s + seg.length, removed))); } });
    return sum;
  }
  // Literals of a full match that start one character early, on the space the literal before them ends with.
  function overlaps(segs, t, spans) {
    var n = 0, count = 0;
    segs.forEach((seg, k) => {
      if (seg !== null) return;
      var after = k + 1 < segs.length ? segs[k + 1] : null, start = spans[2 * n], stop = spans[2 * n + 1];
      n++;
      if (k && after && after[0] === " " && start === stop && !t.startsWith(after, start)) count++;
    });
    return count;
  }
  // Literals after the opening one that a partial stopped inside a value found and that hold no word character:
  // punctuation found inside what may be one value is no sign that the paste was cut from this template.
  function wordless(segs, covered) {
    var lits = segs.filter(s => s !== null), sum = 0;
    covered.forEach((count, k) => { if ((k || segs[0] === null) && !Array.from(lits[k]).some(ch => isWord(ch.codePointAt(0)))) sum += count; });
    return sum;
  }
  function matchTemplate(tpl, forms, variant) {
    var segs = tpl.segments, best = null;
    for (var i = 0; i < forms.length; i++) {
      var f = forms[i], w = walk(segs, f.norm), total = quality(segs, f.norm, w.covered, f.length), end = w.end;
      // A leading placeholder took what cleaning removed: literal text found there is no message text.
      if (end === "full" && segs[0] === null && f.removed) total -= inRemoved(segs, f.norm, w.values, f.removed);
      if (end === "full") total -= overlaps(segs, f.norm, w.values);
      else if (end === "cut" && w.covered[w.covered.length - 1] === 0) total -= wordless(segs, w.covered);
      if ((total < MIN_LITERAL && 2 * total < f.length) || total === 0) continue;
      // A full or cut match fits the whole paste; text after the closing literal does not.
      // In a less cleaned form a leading placeholder would take the exception name or
      // log prefix as its value: such a partial is cut only in the most cleaned form.
      if (end === "cut" && !f.first && segs[0] === null) end = "noise";
      var values = end === "full" ? valuesOf(f.raw, f.where, w.values) : [];
      var reprsHold = tpl.reprs.every(n => n >= values.length || REPR.test(values[n]));
      var found = { end, quality: total, covered: w.covered, values, variant, length: f.length, reprsHold,
        cleaned: f.first || segs[0] !== null, held: end === "full" ? held(segs, f.norm, w.values, tpl.reprs) : 0, around: -1 };
      if (!best || fits(found, best) > 0) best = found;
      // A full match stops the search, unless a value that shows a repr took what a later form leaves out.
      if (end === "full" && reprsHold) break;
    }
    return best;
  }
  function matchRow(row, forms, present) {
    var best = null;
    row.templates.forEach((tpl, k) => {
      if (!tpl.first || !present.has(tpl.first)) return;
      var found = matchTemplate(tpl, forms, k ? k - 1 : null);
      if (found && (!best || fits(found, best) > 0)) best = found;
    });
    return best;
  }

  // --- ranking: a key's fields compare in this order, greater first; equal keys go by id
  var RANK_ORDER = ["linked", "raised", "tier", "strength", "full", "cleaned", "frames", "exception", "active", "written", "words"];
  var FRAME_ORDER = ["atLine", "inFunction", "inFile", "suffix"];
  function compareBy(order, a, b) {
    for (var i = 0; i < order.length; i++) {
      var x = a[order[i]], y = b[order[i]];
      var c = order[i] === "frames" ? compareBy(FRAME_ORDER, x, y) : Number(x) - Number(y);
      if (c) return c;
    }
    return 0;
  }
  function sharedSuffix(mine, theirs) {
    var n = 0;
    while (n < Math.min(mine.length, theirs.length) && mine[mine.length - 1 - n] === theirs[theirs.length - 1 - n]) n++;
    return n;
  }
  // Depth (1 = outermost, 0 = none) of the innermost frame naming the row's file at its line, in its function, at all.
  function frameHit(row, frames) {
    var hit = { atLine: 0, inFunction: 0, inFile: 0, suffix: 0 };
    if (!frames.length || !row.path) return hit;
    var mine = row.path.split("/"), fn = lastName(row["function"]) || "<module>";
    frames.forEach((frame, i) => {
      var n = sharedSuffix(mine, frame.path.split("/"));
      if (n < Math.min(2, mine.length)) return;
      hit.inFile = i + 1; hit.suffix = Math.max(hit.suffix, n);
      if (frame.line === row.line) hit.atLine = i + 1;
      if (lastName(frame["function"]) === fn) hit.inFunction = i + 1;
    });
    return hit;
  }
  // Rows whose page's URL under the index's base_url the text contains (docs/matching.md, Links).
  function linked(ix, text) {
    var found = new Set();
    pageIds(text, ix.base).forEach(id => { if (ix.byId.has(id)) found.add(ix.byId.get(id)); });
    return found;
  }
  // The ids of the pages under base whose URL the text contains.
  function pageIds(text, base) {
    var found = new Set(), site = base.split("://")[1] || "", path = site ? site.slice(site.indexOf("/")) : base;
    if (text.indexOf("errors/") >= 0) (text.match(URLISH) || []).forEach(url => {
      url = url.replace(/[.,;:!?]+$/, "").split("#")[0].replace(/\/index\.html$/, "").replace(/\/$/, "");
      var web = /^https?:\/\//.exec(url), prefix = web ? site : path, rest = web ? url.slice(web[0].length) : url;
      if (prefix && rest.startsWith(prefix + "errors/")) found.add(rest.slice(prefix.length + 7));
    });
    return found;
  }
  function namesAClass(name) { return /^[A-Z]/.test(name); }
  // The pasted exception's class when it is a class other than the row's, else null.
  function otherClass(paste, row) {
    var theirs = lastName(paste.exception), mine = lastName(row.exception);
    return namesAClass(theirs) && GENERIC_EXCEPTIONS.indexOf(theirs) < 0 && namesAClass(mine) && theirs !== mine ? theirs : null;
  }
  // The paste has a traceback and none of its frames, chained ones included, is in the row's file.
  function elsewhere(paste, row, frames) {
    // A yielded error is raised by a caller elsewhere: its own file need not be in the traceback; nor need the file
    // of the message a class builds itself, when the paste names that class.
    if (!paste.frames.length || row.yielded || frames.inFile || ownMessage(row) && sameClass(paste, row) || madeCode(paste, row)) return false;
    return !paste.causes.some(cause => frameHit(row, cause).inFile);
  }
  // The traceback holds, below its outermost frame (a user's `<string>`), a frame of no Python file (`<unknown>`,
  // `<template>`, `page.html`) and passes through the row's package: code the library made, or a traceback it rewrote.
  function madeCode(paste, row) {
    var pkg = packageOf(row.path || "");
    return pkg !== "" && paste.frames.slice(1).some(frame => !frame.path.endsWith(".py"))
      && paste.frames.some(frame => frame.path.split("/").slice(0, -1).includes(pkg));
  }
  // The top folder of a record's file (`jinja2` of `jinja2/compiler.py`, `attr` of `src/attr/_make.py`), or "".
  function packageOf(path) {
    var folders = path.split("/").slice(0, -1);
    while (folders.length && (folders[0] === "src" || folders[0] === "lib")) folders.shift();
    return folders.length ? folders[0] : "";
  }
  // The record is the message its class builds itself (`UnexpectedCharError.__init__`): raised wherever the class is.
  function ownMessage(row) {
    var fn = row["function"] || "", dot = fn.lastIndexOf("."), method = fn.slice(dot + 1), owner = dot < 0 ? "" : fn.slice(0, dot);
    return ["__init__", "__str__", "format_message"].indexOf(method) >= 0 && lastName(owner) === lastName(row.exception);
  }
  function sameClass(paste, row) { return !!paste.exception && lastName(paste.exception) === lastName(row.exception); }
  function atRaise(row, frame) {
    var mine = row.path.split("/");
    return frame.line === row.line && sharedSuffix(mine, frame.path.split("/")) >= Math.min(2, mine.length);
  }
  // A record whose message is one placeholder passes on the text of an error it handled.
  function relays(row) { return row.templates[0].segments.length === 1 && row.templates[0].segments[0] === null; }
  // The rows whose raise the innermost frame of the pasted traceback that is at any record's raise is at; when all pass
  // a handled error's text on, the chained traceback before it is read the same way; when no frame of it is at a
  // record's raise, the frame names no record: the text decides.
  function raisedRows(ix, paste) {
    var found = new Set();
    if (!paste.frames.length) return found;
    var chain = [paste.frames].concat(paste.causes);
    for (var c = 0; c < chain.length; c++) {
      var inner = new Set();
      for (var i = chain[c].length - 1; i >= 0 && !inner.size; i--) {
        (ix.byLine.get(chain[c][i].line) || []).forEach(d => { if (atRaise(ix.rows[d], chain[c][i])) inner.add(d); });
      }
      if (!inner.size) { if (c) found = new Set(); break; }
      found = inner;
      if (!Array.from(inner).every(d => relays(ix.rows[d]))) break;
    }
    return found;
  }
  function candidate(ix, d, m, words, paste, link, raised) {
    var row = ix.rows[d], score = words.score.get(d) || 0, frames = frameHit(row, paste.frames);
    var key = { linked: link, raised, tier: m ? tierOf(m) : WORDS, cleaned: !!m && m.cleaned, strength: m ? m.quality : score, full: !!m && m.end === "full",
      frames, exception: !!paste.exception && lastName(paste.exception) === lastName(row.exception),
      active: !row.removed, written: row.written, words: m ? score : 0 };
    // A pasted class other than the record's (a base class, a wrapper) leaves a full match of the text the answer;
    // a template of one word (`Expected {expected}`) explains a message only under the record's own class, and never
    // inside the message its class builds around it, where the same word may be a value computed anywhere.
    var fits = !!m && explains(m) && !elsewhere(paste, row, frames) && (otherClass(paste, row) === null || whole(m))
      && !(oneWord(row, m) && (m.around >= 0 || !key.exception));
    return { row: d, key, match: m, confident: link || raised || fits };
  }
  // The template that matched has one word of literal text, or none.
  function oneWord(row, m) {
    var tpl = row.templates[m.variant === null ? 0 : m.variant + 1];
    return tokenize(tpl.segments.filter(s => s !== null).join(" ")).length < 2;
  }
  // A value of a full match, as a paste form of its own: the message a class built its own around.
  function valueForm(raw) {
    var nw = normalize(raw);
    return { raw, norm: nw[0], where: nw[1], length: cpLen(nw[0]), first: true, removed: 0 };
  }
  // The rows whose template is a full match of a value of the full match of the message a class builds around
  // another, of the same class, as matches of the paste; loose: of any full match and any class.
  function composedMatches(ix, matched, present, loose) {
    var found = new Map();
    Array.from(matched.keys()).sort((a, b) => a - b).forEach(r => {
      var around = matched.get(r), row = ix.rows[r];
      if (around.end !== "full" || !(loose || ownMessage(row))) return;
      around.values.forEach(value => {
        var form = valueForm(value), words = new Set(tokenize(form.norm).map(w => w[0]).filter(w => present.has(w))), rows = new Set();
        words.forEach(w => (ix.byFirst.get(w) || []).forEach(d => { if (d !== r) rows.add(d); }));
        Array.from(rows).sort((a, b) => a - b).forEach(d => {
          if (!loose && lastName(ix.rows[d].exception) !== lastName(row.exception)) return;
          var inner = matchRow(ix.rows[d], [form], words);
          if (!inner || inner.end !== "full") return;
          var m = { end: "full", quality: around.quality + inner.quality, covered: inner.covered, values: inner.values,
            variant: inner.variant, length: around.length, reprsHold: around.reprsHold && inner.reprsHold,
            cleaned: around.cleaned, held: around.held, around: r };
          if (!found.has(d) || fits(m, found.get(d)) > 0) found.set(d, m);
        });
      });
    });
    return found;
  }
  function candidates(ix, paste, forms, words, limit, links, loose) {
    // Every form's words: a form may join a word a terminal cut, and the whole paste need not be the last form.
    var present = new Set(forms.flatMap(f => tokenize(f.norm).map(w => w[0]))), matched = new Map(), raised = raisedRows(ix, paste);
    ix.rows.forEach((row, d) => { var m = matchRow(row, forms, present); if (m) matched.set(d, m); });
    composedMatches(ix, matched, present, !!loose).forEach((m, d) => { if (!matched.has(d) || fits(m, matched.get(d)) > 0) matched.set(d, m); });
    var eligible = [];
    words.score.forEach((s, d) => { if (words.content.has(d)) eligible.push([d, s]); });
    // Only the best `limit` word scores (and their ties) can reach the top.
    var floor = eligible.map(e => e[1]).sort((x, y) => y - x)[limit - 1] || 0;
    var rows = new Set([...matched.keys(), ...links, ...raised]);
    eligible.forEach(e => { if (e[1] >= floor) rows.add(e[0]); });
    // A message of one word inside the message its class builds may be a value computed anywhere as well as what that
    // raise passed: which of the two it was is a guess.
    var guessed = new Set();
    matched.forEach((m, d) => { if (m.around >= 0 && oneWord(ix.rows[d], m)) guessed.add(m.around); });
    return Array.from(rows).map(d => candidate(ix, d, matched.get(d) || null, words, paste, links.has(d), raised.has(d)))
      .map(c => guessed.has(c.row) ? Object.assign({}, c, { confident: c.key.linked || c.key.raised }) : c);
  }

  // --- results
  function endOf(message, start, count) {
    var m = Array.from(message), i = start;
    while (count > 0 && i < m.length) {
      if (isWs(m[i])) { while (i < m.length && isWs(m[i])) i++; }
      else i += pair(m.slice(i, i + 2).join(""), 0) ? 2 : 1;
      count--;
    }
    return i;
  }
  function templateSpans(tpl, covered) {
    var lits = tpl.segments.filter(s => s !== null), spans = [];
    covered.forEach((count, k) => {
      var start = tpl.spans[2 * k], end = tpl.spans[2 * k + 1];
      if (count) spans.push([start, count === cpLen(lits[k]) ? end : endOf(tpl.message, start, count)]);
    });
    return spans;
  }
  // One result: `twins` are the records it stands for that raise its message as another exception, `places` every
  // other record that raises it.
  function result(ix, c, words, paste, twins, places) {
    var row = ix.rows[c.row], m = c.match, link = c.key.linked, spans = [];
    if (m) spans = templateSpans(matchedTemplate(row, m.variant), m.covered);
    else tokenize(row.title).forEach(w => { if (words.shown.has(w[0]) && !ix.stop.has(w[0])) spans.push([w[1], w[2]]); });
    return { id: row.id, score: m ? m.quality : c.key.strength,
      kind: m ? (m.end === "full" ? "full" : "partial") : link ? "link" : c.key.raised ? "frame" : words.near.has(c.row) ? "near" : "words",
      values: m ? m.values : [], spans, confident: c.confident, variant: m ? m.variant : null, linked: link,
      other_class: otherClass(paste, row), places, twins: twins.map(t => ix.rows[t.row].id) };
  }
  function matchedTemplate(row, variant) { return row.templates[variant === null ? 0 : variant + 1]; }
  function sameSegments(a, b) { return a.length === b.length && a.every((s, i) => s === b[i]); }
  // The ids of every other record an answer stands for, in id order: those that raise its wording as its exception,
  // and its twins and theirs (each wording of theirs that reads like the one that matched).
  function answerPlaces(lead, variant, twins, placesOf) {
    var segments = matchedTemplate(lead, variant).segments, found = new Set(placesOf(lead.exception, matchedTemplate(lead, variant).message));
    twins.forEach(twin => {
      found.add(twin.id);
      twin.templates.forEach(tpl => { if (sameSegments(tpl.segments, segments)) placesOf(twin.exception, tpl.message).forEach(i => found.add(i)); });
    });
    found.delete(lead.id);
    return Array.from(found).sort(cmp);
  }
  // What records that raise one message share: the exception and the wording (the one that matched).
  function messageKey(row, m) { return row.exception + "\n" + matchedTemplate(row, m ? m.variant : null).message; }
  function lastName(name) { return name.split(".").pop(); }

  function formsOf(paste) {
    var normal = paste.forms.map(normalize);
    return paste.forms.map((raw, i) => {
      var norm = normal[i][0], clean = normal[paste.firsts.filter(f => f <= i).pop()][0];
      return { raw, norm, where: normal[i][1], length: cpLen(norm), first: paste.firsts.includes(i), removed: norm.endsWith(clean) ? norm.length - clean.length : 0 };
    });
  }
  // An exception group's output is read part by part: the first result of each part, then the second, and so on, the
  // parts whose first result is confident first. So is an error that holds others' messages (a dict or list of them):
  // each message, then the whole paste; confident only when each message is.
  function search(index, text, limit) {
    if (limit === undefined) limit = 10;
    var members = groupMembers(text);
    if (members !== null) {
      var parts = members.map(m => searchOne(index, m, limit)), sure = results => results.length > 0 && results[0].confident;
      return interleave(parts.filter(sure).concat(parts.filter(results => !sure(results))), limit);
    }
    var held = heldMessages(text);
    if (held === null) return searchOne(index, text, limit);
    var answers = held.map(m => searchOne(index, m, limit)), sure = answers.every(results => results.length && results[0].confident);
    var merged = interleave(answers.concat([searchOne(index, text, limit)]), limit);
    return sure ? merged : merged.map(r => Object.assign({}, r, { confident: false }));
  }
  function interleave(answers, limit) {
    var merged = new Map();
    for (var rank = 0; rank < limit; rank++) answers.forEach(results => {
      if (rank < results.length && !merged.has(results[rank].id)) merged.set(results[rank].id, results[rank]);
    });
    return Array.from(merged.values()).slice(0, limit);
  }
  // The messages an error that aggregates others prints as a dict or list of them, each as a paste of its own behind
  // the pasted exception name, in order, each once; null when the pasted message is no such structure. A string that
  // a colon follows is a key (a field's name), not a message.
  // The message is one bracketed structure: the bracket it starts with closes at its end, string literals read whole.
  var STRING = /'(?:[^'\\\n]|\\[^\n])*'|"(?:[^"\\\n]|\\[^\n])*"/y;
  function oneStructure(message) {
    var depth = 0;
    for (var i = 0; i < message.length;) {
      var ch = message[i];
      if (ch === "'" || ch === '"') {
        STRING.lastIndex = i;
        if (!STRING.exec(message)) return false;
        i = STRING.lastIndex;
        continue;
      }
      if ("{[(".indexOf(ch) >= 0) depth++;
      else if ("}])".indexOf(ch) >= 0 && --depth <= 0 && i < message.length - 1) return false;
      i++;
    }
    return depth === 0;
  }
  function heldMessages(text) {
    var paste = readPaste(text), message = paste.forms[0].replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, ""), found = [], m;
    if (!/^[{[]/.test(message) || !oneStructure(message)) return null;
    var literal = new RegExp(STRING.source, "g");
    while ((m = literal.exec(message))) {
      if (/^[ \t]*:/.test(message.slice(literal.lastIndex))) continue;
      var value = m[0].slice(1, -1).replace(/\\([^\n])/g, (all, c) => c === "n" ? "\n" : c === "t" ? "\t" : c);
      if (/[^ \t]/.test(value)) found.push(value);
    }
    if (!found.length) return null;
    var name = paste.exception ? paste.exception + ": " : "";
    return found.filter((v, i) => found.indexOf(v) === i).slice(0, MAX_HELD).map(v => name + v);
  }
  // One message raised at several places is one answer: the best ranked of them, whose page lists the others.
  function searchOne(index, text, limit) {
    var ix = load(index), paste = readPaste(text), forms = formsOf(paste);
    var words = wordScores(ix, query(ix, forms[0].norm)), found = candidates(ix, paste, forms, words, limit, linked(ix, text));
    // Ids are unique: no two candidates compare equal.
    found.sort((a, b) => compareBy(RANK_ORDER, b.key, a.key) || (ix.rows[a.row].id < ix.rows[b.row].id ? -1 : 1));
    var shown = new Map(), twins = new Map();
    found.forEach(c => {
      var key = messageKey(ix.rows[c.row], c.match);
      if (shown.has(key)) return;
      var lead = Array.from(shown.values()).find(s => areTwins(ix, s, c));
      if (lead) twins.get(lead.row).push(c);
      else if (shown.size < limit) { shown.set(key, c); twins.set(c.row, []); }
    });
    var placesOf = (exception, message) => ix.places.get(exception + "\n" + message) || [];
    return Array.from(shown.values()).map(c => result(ix, c, words, paste, twins.get(c.row),
      answerPlaces(ix.rows[c.row], c.match ? c.match.variant : null, twins.get(c.row).map(t => ix.rows[t.row]), placesOf)));
  }
  // What of a rank key the paste decides: links, the frame, the match, the traceback, the class.
  var EVIDENCE = ["linked", "raised", "tier", "strength", "full", "cleaned", "frames", "exception"];
  // One message raised at two places that nothing in the paste (its class, its traceback) tells apart: the same wording
  // matched alike. Which raise it was is a guess, so they are one answer.
  function areTwins(ix, lead, other) {
    if (!lead.match || !other.match || compareBy(EVIDENCE, lead.key, other.key) !== 0) return false;
    return sameSegments(matchedTemplate(ix.rows[lead.row], lead.match.variant).segments, matchedTemplate(ix.rows[other.row], other.match.variant).segments);
  }
  // A record of the index by id, fields by name, with its page's url (for the search page).
  function record(index, id) { var ix = load(index); return ix.rows[ix.byId.get(id)]; }

  // --- the index in fragments (generator/search/shards.py): what one search loads, and the index of it
  var SHARDS_VERSION = 3, TEMPLATE_SPREAD = 8, INDEX_VERSION = 3, FOLDER = "search/", PREFIX = 2, SHORTEST = 2, LONGEST = 24;
  var DIGITS = "", BASE;
  for (var c = 0x23; c < 0x7f; c++) if (c !== 0x5c && c !== 0x3c) DIGITS += String.fromCharCode(c);
  BASE = DIGITS.length / 2;
  function decodeNumbers(text) {
    var out = [], value = 0;
    for (var i = 0; i < text.length; i++) {
      var digit = text.charCodeAt(i) - 0x23;
      digit -= (digit > 0x3c - 0x23) + (digit > 0x5c - 0x23);
      if (digit >= BASE) value = value * BASE + digit - BASE;
      else { out.push(value * BASE + digit); value = 0; }
    }
    return out;
  }
  // Each value one digit, but one of LONGER or more: the digit LONGER, then the value less LONGER as decodeNumbers reads it.
  function decodeLengths(text) {
    var out = [], longer = DIGITS.length - 1;
    for (var i = 0; i < text.length; i++) {
      var digit = DIGITS.indexOf(text[i]);
      if (digit < longer) { out.push(digit); continue; }
      var end = i + 1;
      while (DIGITS.indexOf(text[end]) >= BASE) end++;
      out.push(longer + decodeNumbers(text.slice(i + 1, end + 1))[0]);
      i = end;
    }
    return out;
  }
  function bucket(text, count) {
    var h = 0;
    for (var ch of text) h = (Math.imul(h, 31) + ch.codePointAt(0)) >>> 0;
    return h % count;
  }
  function prefix(term) { return Array.from(term).slice(0, PREFIX).join(""); }
  function lengthName(n) { return FOLDER + "l/" + Math.min(Math.max(n, SHORTEST), LONGEST) + ".js"; }
  // An index of the whole index's form, of the rows given and the loaded terms' postings (kept to those rows).
  function subIndex(m, terms, rows, postings, keep) {
    return { version: INDEX_VERSION, url: m.url, base_url: m.base_url, avgdl: m.avgdl, fields: m.fields, stop: m.stop,
      records: rows, terms, idf: terms.map(t => postings.has(t) ? postings.get(t)[0] : 0),
      postings: terms.map(t => postings.has(t) ? keep(decodeNumbers(postings.get(t)[1])) : []) };
  }
  // What one paste (an exception group's part, or the whole text) asks of the index.
  function plan(text) {
    var paste = readPaste(text), forms = formsOf(paste), tokens = tokenize(forms[0].norm);
    var words = [...new Set(tokens.map(w => w[0]))].slice(0, MAX_QUERY_TERMS), lines = new Set();
    var typing = tokens.length > 0 && tokens[tokens.length - 1][2] === cpLen(forms[0].norm) && tokens[tokens.length - 1][0] === words[words.length - 1];
    if (paste.frames.length) [paste.frames].concat(paste.causes).forEach(frames => frames.forEach(f => lines.add(raiseKey(f.line, f.path))));
    return { text, query: forms[0].norm, words, typing, present: new Set(forms.flatMap(f => tokenize(f.norm).map(w => w[0]))),
      norms: forms.map(f => f.norm), lines };
  }
  // What a traceback's frame and the raises it can be at share: the line and the file's name.
  function raiseKey(line, path) { return line + " " + path.split("/").pop(); }
  // Whether a template of these literals (its first, until ANCHOR code points; `whole`: all of them, uncut) may
  // match any of the normalised paste forms `norms` ({norm, cps: its code points}): what
  // generator/search/match.py anchored decides, alike.
  function anchored(literals, whole, norms) {
    return norms.some(({ norm, cps }) => {
      var n = cps.length, before = 0;
      for (var k = 0; k < literals.length; k++) {
        var literal = literals[k], core = literal[0] === " " ? literal.slice(1) : literal, most = 0;
        for (var q = Math.max(0, n - cpLen(core) - 1); q < n && !most; q++) {
          var tail = cps.slice(q).join("").replace(/^ +/, "");
          if (tail && core.startsWith(tail)) most = n - q + 1;
        }
        var got = before + most;
        if (got >= MIN_LITERAL || (got > 0 && 2 * got >= n)) return true;
        var last = whole && k === literals.length - 1;
        if (!norm.includes(core) && !(last && core.endsWith(" ") && norm.endsWith(core.slice(0, -1)))) return false;
        before += cpLen(literal);
      }
      return true;
    });
  }
  function templatesOf(row, at) {
    return [[row[at.first], row[at.pattern], row[at.reprs], row[at.message]]].concat(row[at.variants].map(v => [v.first, v.pattern, v.reprs, v.message]));
  }
  // Returns a promise of {index (of the rows that can be among the first `limit` results, and of the terms
  // the paste needs), places (the ids of every record raising those rows' messages), paths (each fragment
  // read)}; read(path) returns a promise of a fragment's data. The same steps as generator/search/shards.py
  // load_for, so the same fragments.
  function loadFor(read, text, limit) {
    if (limit === undefined) limit = 10;
    var paths = [], m, count, vocabulary = {}, linkedIds = {}, lengths = [], raises = new Map(), places = new Map();
    var postings = new Map(), idf = new Map(), long = new Map(), anchors = [], terms = new Set(), fuzzy = new Set();
    var plans = (groupMembers(text) || (heldMessages(text) || []).concat([text])).map(plan), present = new Set(), ids, lines = new Set();
    var words = new Set(), typed = new Set();
    plans.forEach(p => {
      p.present.forEach(w => present.add(w)); p.words.forEach(w => { present.add(w); words.add(w); }); p.lines.forEach(l => lines.add(l));
      if (p.typing && cpLen(p.words[p.words.length - 1]) >= 3) typed.add(p.words[p.words.length - 1]);
    });
    function get(path) { paths.push(path); return read(path); }
    function all(list, each) {
      list = Array.from(new Set(list)).sort(cmp);
      return Promise.all(list.map(get)).then(found => found.forEach((data, i) => each(list[i], data)));
    }
    // A term is known when the postings' fragment of its bucket has it; a long posting is in a fragment of its own.
    function readPostings(list) {
      return all(list, (p, data) => Object.keys(data).forEach(t => {
        idf.set(t, data[t][0]);
        if (data[t].length > 1) postings.set(t, data[t]);
      }));
    }
    function readLong(list) {
      var wanted = list.filter(t => idf.has(t) && !postings.has(t));
      return all(wanted.map(t => path("t", t)).filter(p => paths.indexOf(p) < 0), (p, data) => Object.keys(data).forEach(t => long.set(t, data[t])))
        .then(() => wanted.forEach(t => postings.set(t, [idf.get(t), long.get(t)])));
    }
    function path(kind, key) { return FOLDER + kind + "/" + bucket(key, count * (kind === "f" ? TEMPLATE_SPREAD : 1)) + ".js"; }
    return get(MANIFEST).then(found => {
      m = found; count = m.buckets; ids = pageIds(text, m.base_url || "");
      return Promise.all([
        readPostings([...words].map(w => path("p", w))),
        all([...typed].map(w => path("v", prefix(w))), (p, data) => { vocabulary[p] = data; }),
        all([...present].map(w => path("f", w)), (p, data) => Object.keys(data).forEach(first => {
          if (present.has(first)) data[first].forEach(e => anchors.push(e));
        })),
        m.records ? get(FOLDER + "lengths.js").then(data => { lengths = decodeLengths(data); }) : null,
        all([...ids].map(i => path("i", i)), (p, data) => { Object.keys(data).forEach(i => { if (ids.has(i)) linkedIds[i] = data[i]; }); }),
        all([...lines].map(key => path("n", key)), (p, data) => Object.keys(data).forEach(key => {
          if (lines.has(key)) data[key].forEach(e => raises.set(e[0], [e[1], parseInt(key, 10), !!e[2]]));
        }))]);
    }).then(() => {
      words.forEach(w => { if (idf.has(w)) terms.add(w); });
      plans.forEach(p => {
        var last = p.words.length ? p.words[p.words.length - 1] : "";
        if (p.typing && cpLen(last) >= 3)
          vocabulary[path("v", prefix(last))].filter(t => t.startsWith(last) && t !== last).slice(0, MAX_PREFIX_TERMS).forEach(t => terms.add(t));
        p.words.filter(w => !idf.has(w) && w.length >= 4 && ASCII.test(w) && !/^[0-9]+$/.test(w)).slice(0, MAX_FUZZY_TOKENS).forEach(w => fuzzy.add(w));
      });
      var near = [];
      fuzzy.forEach(w => { for (var k = -fuzzyLimit(w); k <= fuzzyLimit(w); k++) near.push(lengthName(w.length + k)); });
      return Promise.all([
        readPostings([...terms].filter(t => !idf.has(t)).map(t => path("p", t))),
        all(near, (p, data) => data.forEach(t => terms.add(t))),
        readLong([...words])]);
    }).then(() => {
      terms = Array.from(terms).sort(cmp);
      var ix = load(subIndex(m, terms, [], new Map(), p => p)), searched = new Set();
      plans.forEach(p => query(ix, p.query).forEach(token => token.expansions.forEach(e => searched.add(ix.terms[e.term]))));
      searched = [...searched];
      return readPostings(searched.filter(t => !idf.has(t)).map(t => path("p", t))).then(() => readLong(searched));
    }).then(() => {
      var at = {}, byRow = new Map(), norms = plans.flatMap(p => p.norms).map(norm => ({ norm, cps: Array.from(norm) }));
      m.fields.forEach((name, i) => { at[name] = i; });
      Object.keys(linkedIds).forEach(i => byRow.set(linkedIds[i], i));
      // A row per record, with only what finds the rows that word scores, links and the traceback can make results:
      // length, linked id, and the place of a raise the traceback may name.
      var stubs = lengths.map((length, d) => {
        var row = m.fields.map(() => ""), raise = raises.get(d) || ["", 0, false];
        row[at.id] = byRow.get(d) || ""; row[at.dl] = length; row[at.path] = raise[0]; row[at.line] = raise[1];
        row[at.first] = ""; row[at.pattern] = raise[2] ? [0] : ["\u0000"]; row[at.reprs] = []; row[at.message] = "";
        row[at.spans] = []; row[at.variants] = [];
        row[at.removed] = row[at.written] = row[at.yielded] = 0;
        return row;
      });
      var index = subIndex(m, terms, stubs, postings, p => p), rows = new Set(), full = {};
      plans.forEach(p => candidateRows(index, p.text, limit).forEach(d => rows.add(d)));
      // An entry of the templates of a first word: [rows, 1 when its literals are all the template's, literals...].
      anchors.forEach(e => { if (anchored(e.slice(2), !!e[1], norms)) e[0].forEach(d => rows.add(d)); });
      rows = Array.from(rows).sort((a, b) => a - b);
      return all(rows.map(d => FOLDER + "r/" + d + ".js"), (p, data) => { full[p] = data; }).then(() => {
        var keys = new Set();
        rows.forEach(d => { var row = full[FOLDER + "r/" + d + ".js"]; templatesOf(row, at).forEach(t => keys.add(row[at.exception] + "\n" + t[3])); });
        return all([...keys].map(k => path("s", k)), (p, data) => Object.keys(data).forEach(k => { if (keys.has(k)) places.set(k, data[k]); }));
      }).then(() => {
        var number = new Map(rows.map((d, k) => [d, k]));
        function keep(posting) {
          var out = [], d = 0, last = 0;
          posting.forEach(value => {
            d += Math.floor(value / 8);
            if (number.has(d)) { out.push((number.get(d) - last) * 8 + value % 8); last = number.get(d); }
          });
          return out;
        }
        return { index: subIndex(m, terms, rows.map(d => full[FOLDER + "r/" + d + ".js"]), postings, keep), places, paths };
      });
    });
  }
  // The results of `text` from what loadFor loaded: the whole index's results, value for value.
  function searchLoaded(loaded, text, limit) {
    var ix = load(loaded.index), placesOf = (exception, message) => loaded.places.get(exception + "\n" + message) || [];
    return search(loaded.index, text, limit).map(r => {
      r.places = answerPlaces(ix.rows[ix.byId.get(r.id)], r.variant, r.twins.map(i => ix.rows[ix.byId.get(i)]), placesOf);
      return r;
    });
  }
  var MANIFEST = FOLDER + "manifest.js";
  // The rows that can be among the first `limit` results of `text`, ascending.
  function candidateRows(index, text, limit) {
    var ix = load(index), paste = readPaste(text), forms = formsOf(paste);
    var words = wordScores(ix, query(ix, forms[0].norm));
    return candidates(ix, paste, forms, words, limit, linked(ix, text), true).map(c => c.row).sort((a, b) => a - b);
  }

  var api = { search, fill, record, parts, loadFor, searchLoaded, lower };
  if (typeof module !== "undefined" && module.exports) module.exports = api;
  else root.ErrorsiteMatch = api;
})(this);
