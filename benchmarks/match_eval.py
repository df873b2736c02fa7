"""Measure how often the right record ranks first for real error messages, in every paste form.

Run: python benchmarks/match_eval.py [--data stdlib site-packages] [--sample N] [--seed S] [--failures K]
                                     [--skip-accuracy] [--skip-false-confident]
     python benchmarks/match_eval.py --real [--failures K]   (benchmarks/real_eval.py: real libraries' real output)

Records come from real code, through errorsite's own extractor: the standard library of the
running Python and some packages installed next to errorsite. Every record's message is filled
the way programs fill it (reprs for `!r` and `%r`, numbers, words, paths, dotted names, empty
and multi-line text), then pasted in each form a user might paste it. Python (`search`) and the
browser script (one Node process, same index, same inputs) must both rank the record first.

A case is judged fairly when the filled message is also a full match of another template that
is at least as specific (same literal length, and for tracebacks and exception names the same
path and exception hits): the other record ranking first is then also right, and the case is
counted as ambiguous. Templates with no whole literal word or under 6 literal characters are
not concrete (only words can find them) and are left out; so are first-60 pastes whose cut
leaves no such word. The `conf` column counts pastes whose first result is right and confident.

The second measurement counts false-confident answers: real messages of code that has no
records in the site, pasted against a site of another project's records. The messages are the
other data set's templates filled as above, in four paste forms (message, exception line,
traceback, log line), and the messages Python itself prints for common mistakes (run here, so
they are exactly what users see). Any confident first answer is wrong, except when the site has a
template with the very same literal text (the same message raised in both): those are counted
apart. The target is at most 1%.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from errorsite.extract.scan import scan_files  # noqa: E402
from errorsite.search.index import SearchIndex, build_index, load_index  # noqa: E402
from errorsite.search.paste import read_paste  # noqa: E402
from errorsite.search.rank import frame_hit, search  # noqa: E402
from errorsite.search.template import compile_template, first_word, template_parts  # noqa: E402
from errorsite.search.text import tokenize  # noqa: E402

STDLIB = Path(sysconfig.get_paths()["stdlib"])
SITE = Path(sysconfig.get_paths()["purelib"])
PACKAGES = ("pygments", "jinja2", "markdown_it", "pip", "setuptools", "hypothesis", "jsonschema", "_pytest",
            "packaging", "attr", "referencing", "pkg_resources", "markupsafe", "mdurl", "pluggy")
SKIP = ("test/", "idlelib/idle_test/", "lib2to3/tests/", "site-packages/", "tkinter/test/")
LIMIT = 5
RUNNER = ROOT / "tests" / "match_runner.js"
BUILTIN = frozenset(n for n in dir(__builtins__ if isinstance(__builtins__, dict) else __builtins__.__dict__))

FORMS = ("message", "exception", "dotted", "traceback", "chained", "log-default", "log-basic", "log-flask",
         "log-uvicorn", "log-traceback", "wrapped", "collapsed", "first-60", "case")
EXTRA_FORMS = ("terminal-wrap",)
EXCEPTION_FORMS = frozenset({"exception", "dotted", "traceback", "chained", "log-traceback"})
TRACEBACK_FORMS = frozenset({"traceback", "chained", "log-traceback"})

_PERCENT = re.compile(r"%(?:\([^()]*\))?[-#0+]*(?:\*|[0-9]+)?(?:\.(?:\*|[0-9]+))?[hlL]?([diouxXeEfFgGcrsa])")
_WS = re.compile(r"\s+")

WORDS = ["name", "utf-8", "foo", "Bar", "config", "x", "__init__", "main", "ascii", "int", "str", "None", "latin-1",
         "GET", "request", "module", "readonly", "tcp", "item", "w+b", "Tokenizer", "value"]
PATHS = ["/tmp/a b/c.py", "/home/user/project/setup.cfg", "C:\\Users\\me\\data.txt", "./build/lib", "~/.config/app.toml",
         "src/pkg/__init__.py", "/var/log/app.log"]
DOTTED = ["os.path", "pkg.mod.SomeClass", "collections.abc.Mapping", "json.decoder", "builtins.dict", "app.views.index"]
LINES = ["line one\n  line two", "first\nsecond\nthird", "Traceback-free\n\tindented detail"]


# --- records ----------------------------------------------------------------


def read_tree(root: Path, prefix: str = "", skip: tuple[str, ...] = ()) -> dict[str, bytes]:
    """Return the .py files under `root` (no test folders), keyed by `prefix` + relative POSIX path."""
    files = {}
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel.startswith(skip) or "/tests/" in rel or "/test/" in rel:
            continue
        files[prefix + rel] = path.read_bytes()
    return files


def data_set(name: str) -> tuple[Path, dict[str, bytes]]:
    """Return (the folder its paths are relative to, the files) of a named data set."""
    if name == "stdlib":
        return STDLIB, read_tree(STDLIB, "", SKIP)
    files: dict[str, bytes] = {}
    for package in PACKAGES:
        if (SITE / package).is_dir():
            files.update(read_tree(SITE / package, package + "/"))
    return SITE, files


def make_records(name: str, files: dict[str, bytes]) -> list[dict[str, Any]]:
    """Return one record per raise site that spells out its message."""
    records = []
    for i, site in enumerate(scan_files(files).sites):
        rid = f"{name}-{i:05d}"
        records.append({
            "id": rid, "title": site.message, "exception": site.exception, "message": site.message,
            "path": site.path, "line": site.line, "function": site.function, "tags": [], "meaning": "",
            "status": "active", "url": f"errors/{rid}/",
        })
    return records


# --- filling a template the way a program does ------------------------------


def parts(message: str) -> list[tuple[str, str]]:
    """Return the template as ("lit", text) and ("ph", conversion) pieces (conversion: r, d, f, s ...)."""
    out = []
    for text, hole in template_parts(message):
        if not hole:
            out.append(("lit", text))
        elif text.startswith("{"):
            out.append(("ph", _brace_kind(text[1:-1])))
        else:
            out.append(("ph", _PERCENT.match(text).group(1)))
    return out


def _brace_kind(field: str) -> str:
    """Return the conversion a `{...}` field renders with: r for !r/!a, d/f/x for numeric specs, else s."""
    if re.search(r"![ra](?::|$)", field):
        return "r"
    spec = field.rsplit(":", 1)[1] if ":" in field and "lambda" not in field else ""
    if spec and spec[-1] in "dxXob":
        return "d"
    if spec and spec[-1] in "feEgG%":
        return "f"
    return "s"


def value(kind: str, rng: random.Random) -> str:
    """Return a value as a program would render it for a placeholder of `kind`."""
    if kind in "diouxXc":
        return str(rng.choice([0, 1, 3, 42, -1, 255, 1024, 65536, 2 ** 31])) if kind != "c" else rng.choice("abz?")
    if kind in "eEfFgG":
        return rng.choice(["0.5", "3.14", "1e-05", "100.0", "-2.25"])
    if kind in "ra":
        return repr(rng.choice([rng.choice(WORDS), rng.choice(PATHS), 42, -3, None, [1, 2], ("a", 1), {"k": "v"},
                                b"\x00ab", 3.5, rng.choice(DOTTED), ""]))
    roll = rng.random()
    if roll < 0.05:
        return ""
    if roll < 0.10:
        return rng.choice(LINES)
    if roll < 0.30:
        return str(rng.choice([0, 2, 17, -5, 4096, 3.5]))
    if roll < 0.45:
        return rng.choice(PATHS)
    if roll < 0.60:
        return rng.choice(DOTTED)
    if roll < 0.70:
        return " ".join(rng.sample(WORDS, 3))
    if roll < 0.75:
        return "<object object at 0x7f3a2c1b9e40>"
    return rng.choice(WORDS)


def render(message: str, rng: random.Random) -> str:
    """Return `message` with every placeholder filled."""
    return "".join(text if what == "lit" else value(text, rng) for what, text in parts(message))


# --- paste forms --------------------------------------------------------------


def shown_exception(record: dict[str, Any], dotted: bool) -> str:
    """Return the exception name as a traceback prints it (module-qualified unless built in)."""
    last = record["exception"].split(".")[-1]
    if last in BUILTIN or not dotted:
        return last
    module = record["path"].removesuffix(".py").removesuffix("/__init__").replace("/", ".")
    return f"{module}.{last}"


def exception_line(record: dict[str, Any], message: str, dotted: bool = False) -> str:
    """Return the final line(s) of a traceback for `message` (KeyError shows its repr)."""
    if record["exception"].split(".")[-1] == "KeyError":
        message = repr(message)
    return f"{shown_exception(record, dotted)}: {message}"


def traceback(record: dict[str, Any], message: str, base: Path, rng: random.Random) -> str:
    """Return a traceback whose last frame is the record's raise."""
    frames = [
        '  File "/home/user/app/main.py", line 12, in <module>\n    main()',
        f'  File "/home/user/app/cli.py", line {rng.randint(5, 400)}, in run\n    result = handler(args)\n'
        "             ^^^^^^^^^^^^^",
        f'  File "{base / record["path"]}", line {record["line"]}, in {record["function"] or "<module>"}\n'
        f"    raise {record['exception']}(...)",
    ]
    return "Traceback (most recent call last):\n" + "\n".join(frames) + "\n" + exception_line(record, message, True)


def chained(record: dict[str, Any], message: str, base: Path, rng: random.Random) -> str:
    """Return a chained traceback: an earlier exception, then the record's."""
    first = ('Traceback (most recent call last):\n  File "/home/user/app/store.py", line 40, in get\n'
             "    return self._data[key]\n           ~~~~~~~~~~^^^^^\nKeyError: 'missing'\n\n")
    link = rng.choice(["During handling of the above exception, another exception occurred:",
                       "The above exception was the direct cause of the following exception:"])
    return first + link + "\n\n" + traceback(record, message, base, rng)


def terminal_wrap(text: str, width: int = 80) -> str:
    """Return `text` hard-wrapped as a terminal copy does: cut every `width` characters."""
    out = []
    for line in text.split("\n"):
        out += [line[i:i + width] for i in range(0, max(len(line), 1), width)]
    return "\n".join(out)


def paste_forms(record: dict[str, Any], message: str, base: Path, rng: random.Random) -> dict[str, str]:
    """Return each paste form of a filled message."""
    logger = record["path"].removesuffix(".py").replace("/", ".")
    width = rng.randint(40, 79)
    wrapped = "\n".join(textwrap.fill(line, width, break_long_words=False, break_on_hyphens=False)
                        for line in message.split("\n"))
    case = rng.choice([str.upper, str.lower, str.swapcase])
    forms = {
        "message": message,
        "exception": exception_line(record, message),
        "dotted": exception_line(record, message, True),
        "traceback": traceback(record, message, base, rng),
        "chained": chained(record, message, base, rng),
        "log-default": f"2024-05-01 12:00:03,114 ERROR {logger}: {message}",
        "log-basic": f"ERROR:{logger}:{message}",
        "log-flask": f"[2024-05-01 12:00:03,114] ERROR in {logger.split('.')[-1]}: {message}",
        "log-uvicorn": f"ERROR:    {message}",
        "log-traceback": f"2024-05-01 12:00:03,114 ERROR {logger}: request failed\n"
                         + traceback(record, message, base, rng),
        "wrapped": wrapped,
        "collapsed": " ".join(message.split()),
        "case": case(message),
        "terminal-wrap": terminal_wrap(exception_line(record, message)),
    }
    if len(message) > 60:
        forms["first-60"] = message[:60]
    return forms


# --- judging ------------------------------------------------------------------


def _norm(text: str) -> str:
    return _WS.sub(" ", text.lower()).strip()


def _regex(pieces: list[tuple[str, str]]) -> str:
    """Return a regular expression for normalised text rendered from `pieces` (placeholders: any text)."""
    out = []
    for k, (what, text) in enumerate(pieces):
        if what == "ph":
            out.append("(?:.*?)")
            continue
        lit = _norm(text) if text.strip() else ""
        lead = k > 0 and text[:1].isspace()
        trail = k < len(pieces) - 1 and text[-1:].isspace()
        body = r"\ ".join(re.escape(w) for w in lit.split(" ")) if lit else ""
        out.append((r"\ ?" if lead else "") + body + (r"\ ?" if trail else ""))
    return "".join(out)


def literal_length(message: str) -> int:
    """Return the number of literal characters of a template, normalised."""
    return sum(len(s) for s in compile_template(message) if s is not None)


def full_match(message: str, text: str) -> bool:
    """Return whether `text` could be `message` with its placeholders filled (reference matcher, not errorsite's)."""
    norm = _norm(text)
    if len(norm) > 3000:
        return False
    return re.fullmatch(_regex(parts(message)), norm, re.S) is not None


def prefix_cover(message: str, text: str) -> int:
    """Return the most literal characters a rendering of `message` that starts with `text` covers, or -1."""
    norm = _norm(text)
    pieces = parts(message)
    best = -1
    for k in range(len(pieces)):
        head = _regex(pieces[:k])
        what, lit = pieces[k]
        done = sum(len(_norm(t)) for w, t in pieces[:k] if w == "lit")
        if what == "ph":
            if re.fullmatch(head + "(?:.*)", norm, re.S):
                best = max(best, done)
            continue
        low = _norm(lit) if k == 0 else _WS.sub(" ", lit.lower())
        for m in range(1, len(low) + 1):
            if re.fullmatch(head + re.escape(low[:m]), norm, re.S):
                best = max(best, done + len(low[:m].strip() or " "))
                break
    return best


def content(form: str, text: str, message: str) -> str:
    """Return what the user's paste says about the message (the message itself, or its first 60 characters)."""
    return text if form == "first-60" else message


def rival(form: str, case: dict[str, Any], other: dict[str, Any], me: dict[str, Any], frames: Callable[[str], Any]) -> bool:
    """Return whether `other` explains the paste at least as well as the expected record `me`."""
    if form == "first-60":
        mine, theirs = prefix_cover(me["message"], case["text"]), prefix_cover(other["message"], case["text"])
        if theirs < 0 or theirs < mine:
            return False
        key_me, key_other = (mine,), (theirs,)
    else:
        if not full_match(other["message"], case["message"]):
            return False
        key_me, key_other = (literal_length(me["message"]),), (literal_length(other["message"]),)
    if form in EXCEPTION_FORMS:
        shown = me["exception"].split(".")[-1]
        key_me += (frames(me["id"]), 1)
        key_other += (frames(other["id"]), int(other["exception"].split(".")[-1] == shown))
    return key_other >= key_me


def frame_hits(index: SearchIndex, text: str) -> Callable[[str], Any]:
    """Return, for a record id, where the traceback in `text` names its raise (errorsite's own rule)."""
    frames = read_paste(text).frames
    position = {row.id: d for d, row in enumerate(index.rows)}
    return lambda rid: frame_hit(index.rows[position[rid]], frames)


def concrete(message: str) -> bool:
    """Return whether a template has a whole literal word and 6+ literal characters."""
    segs = compile_template(message)
    return literal_length(message) >= 6 and any(
        w for k, s in enumerate(segs) if s is not None
        for w in re.findall(r"[a-z0-9\x80-\U0010ffff]{2,}", s[(1 if k else 0):])
    )


def cut_concrete(message: str, text: str) -> bool:
    """Return whether a cut paste still holds 6+ literal characters, among them the template's first whole word."""
    word = first_word(compile_template(message))
    return prefix_cover(message, text) >= 6 and word in {w for w, _, _ in tokenize(text)}


# --- running --------------------------------------------------------------------


def run_node(index: dict[str, Any], texts: list[str], limit: int = LIMIT) -> list[Any]:
    """Return the browser script's results for every text, at most `limit` each, from one Node process."""
    node = shutil.which("node")
    if node is None:
        raise SystemExit("node is not installed")
    payload = json.dumps({"index": index, "calls": [["search", t, limit] for t in texts]}, ensure_ascii=False)
    done = subprocess.run([node, str(RUNNER)], input=payload.encode(), capture_output=True, check=True)
    return json.loads(done.stdout)


def evaluate(name: str, sample: int, seed: int, failures: int) -> dict[str, dict[str, float]]:
    """Print and return per-form accuracy for one data set."""
    base, files = data_set(name)
    records = make_records(name, files)
    index = json.loads(json.dumps(build_index(records)))
    loaded = load_index(index)
    by_id = {r["id"]: r for r in records}
    rng = random.Random(seed)
    chosen = [r for r in records if concrete(r["message"])]
    left_out = len(records) - len(chosen)
    if sample and sample < len(chosen):
        chosen = rng.sample(chosen, sample)
    cases = []
    for record in chosen:
        message = render(record["message"], rng)
        for form, text in paste_forms(record, message, base, rng).items():
            if form == "first-60" and not cut_concrete(record["message"], text):
                continue
            cases.append({"form": form, "id": record["id"], "text": text, "message": message})
    print(f"\n== {name}: {len(files)} files, {len(records)} records, {left_out} not concrete, "
          f"{len(chosen)} filled, {len(cases)} pastes")
    start = time.perf_counter()
    py = [search(loaded, c["text"], LIMIT) for c in cases]
    py_time = time.perf_counter() - start
    start = time.perf_counter()
    js = run_node(index, [c["text"] for c in cases])
    js_time = time.perf_counter() - start
    print(f"python {py_time / len(cases) * 1000:.2f} ms/paste, node {js_time / len(cases) * 1000:.2f} ms/paste "
          "(node includes start-up and parsing)")
    table: dict[str, dict[str, float]] = {}
    shown: dict[str, int] = {}
    for case, p, j in zip(cases, py, js):
        row = table.setdefault(case["form"], {"n": 0, "py": 0, "js": 0, "agree": 0, "ambiguous": 0, "confident": 0})
        frames = frame_hits(loaded, case["text"])
        me = by_id[case["id"]]
        row["n"] += 1
        row["agree"] += p == j
        others = {r["id"] for r in p} - {me["id"]}
        if any(rival(case["form"], case, by_id[o], me, frames) for o in sorted(others)):
            row["ambiguous"] += 1
        for key, results in (("py", p), ("js", j)):
            top = results[0]["id"] if results else None
            ok = top == me["id"] or (top is not None and rival(case["form"], case, by_id[top], me, frames))
            row[key] += ok
            if key == "py" and ok and results[0]["confident"]:
                row["confident"] += 1
            if not ok and key == "py" and shown.get(case["form"], 0) < failures:
                shown[case["form"]] = shown.get(case["form"], 0) + 1
                print(f"\n[{case['form']}] expected {me['id']} {me['message']!r}\n  paste: {case['text'][-300:]!r}")
                for r in results[:3]:
                    print(f"  got {r['id']} {r['kind']} {r['score']} {by_id[r['id']]['message']!r}")
    print(f"\n{'form':14} {'n':>6} {'python':>8} {'node':>8} {'agree':>8} {'ambig':>6} {'conf':>8}")
    for form in FORMS + EXTRA_FORMS:
        row = table.get(form)
        if row:
            n = row["n"]
            print(f"{form:14} {n:6d} {100 * row['py'] / n:7.2f}% {100 * row['js'] / n:7.2f}% "
                  f"{100 * row['agree'] / n:7.2f}% {row['ambiguous']:6d} {100 * row['confident'] / n:7.2f}%")
    return table


# --- false-confident answers ----------------------------------------------------

RUNTIME = (
    "a, b = (1, 2, 3)", "a, b, c = (1, 2)", "[][1]", "(1, 2)[5]", "'abc'[10]", "{}['name']", "{'a': 1}[('x', 2)]",
    "int('abc')", "int('12', 1)", "float('x1')", "complex('zz')", "None.shape", "(1).append(2)", "'s'.foo()",
    "object().config", "1 / 0", "1 % 0", "2.0 // 0", "len(5)", "'a' + 1", "1 + 'a'", "[1] * 'x'", "None()",
    "'str'()", "abs('x')", "iter(5)", "next(iter([]))", "[].pop()", "{}.popitem()", "set().pop()", "[1].index(9)",
    "'abc'.index('z')", "[].remove(3)", "sorted([1, 'a'])", "max([])", "min([])", "divmod(1, 0)",
    "import no_such_module_here", "from os import no_such_name", "open('/no/such/dir/file.txt')",
    "open('/', 'w')", "bytes('x')", "'x'.encode('no-such-codec')", "b'\\xff'.decode('utf-8')",
    "chr(-1)", "ord('ab')", "range(1, 2, 0)", "list(1)", "dict([1, 2])", "(lambda x: x)()", "(lambda: 0)(1)",
    "(lambda x: x)(y=1)", "print(undefined_name_here)", "hash([])", "{[]: 1}", "frozenset([[]])",
    "type('X', (), {})().missing", "getattr(1, 'real', 2, 3)", "isinstance(1, 2)", "round('x')",
    "'%d' % 'x'", "'{}{}'.format(1)", "'{x}'.format(y=1)", "'%s %s' % (1,)", "int(None)", "float([])",
    "memoryview(1)", "bytearray(-1)", "[0] * (2 ** 70)", "import json; json.loads('{bad')",
    "import json; json.loads('')", "import re; re.compile('(')", "import re; re.compile('[a-')",
    "import datetime; datetime.date(2024, 13, 1)", "import datetime; datetime.datetime.strptime('x', '%Y')",
    "import math; math.sqrt(-1)", "import math; math.log(0)", "import os; os.listdir('/no/such/dir')",
    "import os; os.remove('/no/such/file')", "import struct; struct.pack('i', 'x')", "import base64; base64.b64decode('a')",
    "import decimal; decimal.Decimal('x')", "import fractions; fractions.Fraction(1, 0)", "import uuid; uuid.UUID('x')",
    "import ipaddress; ipaddress.ip_address('999.1.1.1')", "import socket; socket.inet_aton('x.y')",
    "import shutil; shutil.copy('/no/such/a', '/tmp/b')", "import subprocess; subprocess.run(['/no/such/binary'])",
    "import pathlib; pathlib.Path('/no/such/x').read_text()", "import csv; csv.reader([1]).__next__()",
    "import tomllib; tomllib.loads('a = ')", "import zipfile; zipfile.ZipFile('/no/such.zip')",
    "import importlib; importlib.import_module('..x')", "import itertools; itertools.islice([], -1)",
    "import statistics; statistics.mean([])", "import random; random.choice([])", "import random; random.randint(5, 1)",
    "import operator; operator.itemgetter(5)([])", "import enum; enum.Enum('E', 'A')('B')",
    "import collections; collections.deque(maxlen=-1)", "import heapq; heapq.heappop([])",
    "import functools; functools.reduce(lambda a, b: a, [])", "import locale; locale.setlocale(locale.LC_ALL, 'xx_YY')",
    "import codecs; codecs.lookup('nope')", "import array; array.array('q', [1.5])", "import time; time.strptime('x', '%d')",
)


_VALUE = re.compile(r"'[^']*'|\"[^\"]*\"|(?<![\w.])-?[0-9]+(?:\.[0-9]+)?(?![\w.])")


def runtime_messages() -> list[tuple[str, str]]:
    """Return what Python prints for each of a list of common mistakes: (exception name, message)."""
    out = []
    for code in RUNTIME:
        try:
            exec(code, {})  # noqa: S102 - fixed snippets above, run to see their real messages
        except Exception as error:  # noqa: BLE001 - every one of them raises, that is the point
            out.append((type(error).__name__, str(error)))
    return out


def runtime_template(message: str) -> str:
    """Return the template a runtime message was likely made from: quoted text and numbers are values."""
    return _VALUE.sub("{}", message.replace("{", "{{").replace("}", "}}"))


def other_pastes(name: str, site_templates: set[tuple[Any, ...]], rng: random.Random, sample: int
                 ) -> tuple[list[dict[str, str]], int]:
    """Return pastes of data set `name`'s messages (and the runtime's) whose template the site lacks, and how many it has."""
    base, files = data_set(name)
    records = [r for r in make_records(name, files) if concrete(r["message"])]
    if sample and sample < len(records):
        records = rng.sample(records, sample)
    same = 0
    pastes = []
    for record in records:
        if tuple(compile_template(record["message"])) in site_templates:
            same += 1
            continue
        message = render(record["message"], rng)
        forms = paste_forms(record, message, base, rng)
        for form in ("message", "exception", "traceback", "log-default"):
            pastes.append({"form": form, "text": forms[form], "message": message, "source": record["message"]})
    for name, message in runtime_messages():
        source = runtime_template(message)
        pastes.append({"form": "runtime", "text": f"{name}: {message}", "message": message, "source": source})
        pastes.append({"form": "runtime", "text": message, "message": message, "source": source})
    return pastes, same


def false_confident(site: str, other: str, sample: int, seed: int, failures: int) -> tuple[int, int]:
    """Print and return (confident first answers, pastes) for messages of `other` against a site of `site`."""
    _, files = data_set(site)
    records = make_records(site, files)
    index = load_index(json.loads(json.dumps(build_index(records))))
    by_id = {r["id"]: r for r in records}
    rng = random.Random(seed)
    pastes, same = other_pastes(other, {tuple(compile_template(r["message"])) for r in records}, rng, sample)
    py = [search(index, p["text"], LIMIT) for p in pastes]
    js = run_node(json.loads(json.dumps(build_index(records))), [p["text"] for p in pastes])
    print(f"\n== false-confident: {other} messages against a site of {site} ({len(records)} records): "
          f"{len(pastes)} pastes; {same} templates left out as present in both")
    wrong = {"py": 0, "js": 0}
    excused = 0
    by_form: dict[str, list[int]] = {}
    shown = 0
    for paste, p, j in zip(pastes, py, js):
        counts = by_form.setdefault(paste["form"], [0, 0])
        counts[1] += 1
        for key, results in (("py", p), ("js", j)):
            if not results or not results[0]["confident"]:
                continue
            top = by_id[results[0]["id"]]
            if same_message(top["message"], paste):
                excused += key == "py"
                continue
            wrong[key] += 1
            if key == "py":
                counts[0] += 1
                if shown < failures:
                    shown += 1
                    print(f"  [{paste['form']}] {paste['text'][-160:]!r}\n    -> {results[0]['kind']} {top['message']!r}")
    n = len(pastes) - excused
    for form, (bad, total) in by_form.items():
        print(f"  {form:12} {bad:5d} of {total:6d}  {100 * bad / total:6.2f}%")
    print(f"  {excused} confident answers with a template as specific as the message's own (the same message), left out")
    print(f"  python {wrong['py']} of {n} ({100 * wrong['py'] / n:.2f}%), node {wrong['js']} ({100 * wrong['js'] / n:.2f}%)")
    return wrong["py"], n


def same_message(template: str, paste: dict[str, str]) -> bool:
    """Return whether `template` explains the pasted message at least as specifically as its own source does."""
    return full_match(template, paste["message"]) and literal_length(template) >= literal_length(paste["source"])


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", nargs="+", default=["stdlib", "site-packages"], choices=["stdlib", "site-packages"])
    parser.add_argument("--sample", type=int, default=0, help="records to fill per data set (0: all)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--failures", type=int, default=0, help="failures to show per form")
    parser.add_argument("--skip-accuracy", action="store_true")
    parser.add_argument("--skip-false-confident", action="store_true")
    parser.add_argument("--real", action="store_true",
                        help="measure the real output of the programs of benchmarks/real_programs/ instead (real_eval.py)")
    args = parser.parse_args()
    if args.real:
        sys.path.insert(0, str(ROOT / "benchmarks"))
        import real_eval

        return real_eval.main(["--failures", str(args.failures)])
    if not args.skip_accuracy:
        for name in args.data:
            evaluate(name, args.sample, args.seed, args.failures)
    if not args.skip_false_confident:
        wrong = total = 0
        for site, other in (("stdlib", "site-packages"), ("site-packages", "stdlib")):
            bad, n = false_confident(site, other, args.sample, args.seed, args.failures)
            wrong, total = wrong + bad, total + n
        print(f"\nfalse-confident rate: {100 * wrong / total:.2f}% ({wrong} of {total} pastes of code the site has no records of)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
