"""Linking messages to pages from patterns.json, as a library that vendors link.py does."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import zlib
from pathlib import Path

import pytest

from errorsite import cli, link, load, render, validate
from errorsite import patterns as patterns_module

from conftest import FIXTURES

BASE = "https://example.github.io/tinyserve/errors/"
LINK_SOURCE = Path(link.__file__)


def old_pythons() -> list[str]:
    """Return interpreters of Python 3.8, 3.9 and 3.10 (no add_note) that run on this machine."""
    found = []
    for minor in (8, 9, 10):
        candidates = sorted(map(str, Path("/root/.pyenv/versions").glob(f"3.{minor}.*/bin/python3.{minor}")))
        candidates += [c for c in [shutil.which(f"python3.{minor}")] if c]
        for candidate in candidates:
            try:
                ran = subprocess.run([candidate, "-c", "import sys; print(sys.version_info[1])"],
                                     capture_output=True, text=True, timeout=30)
            except OSError:
                continue
            if ran.returncode == 0 and ran.stdout.strip() == str(minor):
                found.append(candidate)
                break
    return found


OLD_PYTHONS = old_pythons()
"""Interpreters older than 3.11 (no add_note) found on this machine."""


@pytest.fixture(scope="module")
def patterns(tmp_path_factory: pytest.TempPathFactory) -> Path:
    files = render.render_site(validate.build_site(load.load(FIXTURES / "basic")))
    path = tmp_path_factory.mktemp("api") / "patterns.json"
    path.write_bytes(files["api/patterns.json"])
    return path


def test_patterns_json_lists_active_records_only(patterns: Path) -> None:
    data = json.loads(patterns.read_text())
    assert data["version"] == 1
    assert [p["id"] for p in data["patterns"]] == ["batch-tokens-below-chunk", "batch-tokens-multiple"]
    assert data["patterns"][1]["pattern"] == ["max_batch_tokens must be a multiple of 8, got ", None]


@pytest.mark.parametrize("message, page", [
    ("max_batch_tokens (1024) must be at least chunk_size (4096); raise --max-batch-tokens or lower --chunk-size.",
     "batch-tokens-below-chunk"),
    ("max_batch_tokens must be a multiple of 8, got 1001", "batch-tokens-multiple"),
    ("MAX_BATCH_TOKENS must be a multiple of 8,\n   got 3", "batch-tokens-multiple"),
])
def test_url_for_a_concrete_message(patterns: Path, message: str, page: str) -> None:
    assert link.Linker.from_file(patterns).url_for(message, "ValueError") == f"{BASE}{page}/"


def test_no_url_for_an_unknown_message(patterns: Path) -> None:
    linker = link.Linker.from_file(patterns)
    assert linker.problem is None
    assert linker.url_for("something else entirely") is None
    assert linker.url_for("max_batch_tokens must be a multiple of 16") is None


@pytest.fixture(scope="module")
def compact(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Return the compact patterns file of the basic fixture, as `errorsite patterns` writes it."""
    out = tmp_path_factory.mktemp("compact") / "patterns.bin"
    assert cli.main(["patterns", "--content", str(FIXTURES / "basic"), "--out", str(out),
                     "--base-url", "https://example.github.io/tinyserve/"]) == 0
    return out


@pytest.mark.parametrize("message", [
    "max_batch_tokens (1024) must be at least chunk_size (4096); raise --max-batch-tokens or lower --chunk-size.",
    "max_batch_tokens must be a multiple of 8, got 1001",
    "MAX_BATCH_TOKENS must be a multiple of 8,\n   got 3",
    "max_batch_tokens must be a multiple of 16",
    "something else entirely",
    "",
])
def test_the_compact_file_gives_the_answers_of_the_json_one(patterns: Path, compact: Path, message: str) -> None:
    small = link.Linker.from_file(compact)
    assert small.problem is None and small.compact is not None
    assert small.url_for(message, "ValueError") == link.Linker.from_file(patterns).url_for(message, "ValueError")


def test_one_message_decodes_only_the_groups_of_its_words(compact: Path) -> None:
    linker = link.Linker.from_file(compact)
    assert linker.compact is not None
    assert linker.url_for("something else entirely") is None
    assert [word for word, found in linker.compact.parsed.items() if found] == []
    assert linker.url_for("max_batch_tokens must be a multiple of 8, got 1") == f"{BASE}batch-tokens-multiple/"
    assert [e.id for found in linker.compact.parsed.values() for e in found] == ["batch-tokens-multiple"]


@pytest.mark.parametrize("damage", ["header", "index", "block", "end"])
def test_a_damaged_compact_file_links_nothing_or_less_and_never_raises(compact: Path, tmp_path: Path,
                                                                         damage: str) -> None:
    data = compact.read_bytes()
    cut = data.index(b"\n\n")
    broken = {
        "header": data.replace(b"base_url\thttps://", b"base_url\t/"),
        "index": data[:cut + 2] + b"\xff" * 40 + data[cut + 42:],
        "block": data[:-20] + b"\x00" * 20,
        "end": data[:cut + 5],
    }[damage]
    path = tmp_path / "patterns.bin"
    path.write_bytes(broken)
    linker = link.Linker.from_file(path)
    assert linker.url_for("max_batch_tokens must be a multiple of 8, got 1") in (None, f"{BASE}batch-tokens-multiple/")
    assert linker.url_for("max_batch_tokens (1) must be at least chunk_size (2); raise --max-batch-tokens or lower "
                          "--chunk-size.") in (None, f"{BASE}batch-tokens-below-chunk/")
    if damage in ("header", "index", "end"):
        assert linker.problem and linker.url_for("max_batch_tokens must be a multiple of 8, got 1") is None


def test_url_for_alone_reads_the_patterns_beside_the_helper(compact: Path, tmp_path: Path) -> None:
    package = tmp_path / "lib" / "tinyserve"
    (package / "_errorsite").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    shutil.copy(LINK_SOURCE, package / "_errorsite" / "__init__.py")
    shutil.copy(compact, package / "_errorsite" / "patterns.bin")
    code = """
    import sys
    from tinyserve._errorsite import url_for
    print(url_for("max_batch_tokens must be a multiple of 8, got 1"))
    print(sys.excepthook is sys.__excepthook__)
    """
    result = run_python(code, package.parent)
    assert result.stdout.split() == [f"{BASE}batch-tokens-multiple/", "True"], result.stderr


def test_importing_the_helper_imports_nothing_else_and_reads_nothing(compact: Path, tmp_path: Path) -> None:
    package = tmp_path / "lib" / "tinyserve"
    (package / "_errorsite").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    shutil.copy(LINK_SOURCE, package / "_errorsite" / "__init__.py")
    (package / "_errorsite" / "patterns.bin").mkdir()  # reading it would fail loudly in strace, or here: not at all
    code = """
    import sys
    import tinyserve
    before = set(sys.modules)
    import tinyserve._errorsite as helper
    print(sorted(set(sys.modules) - before))
    print(helper._default, sys.excepthook is sys.__excepthook__)
    """
    result = run_python(code, package.parent)
    assert result.stdout.splitlines() == ["['tinyserve._errorsite']", "None True"], result.stderr


def test_the_helper_parses_as_python_3_8() -> None:
    import ast

    ast.parse(LINK_SOURCE.read_text(encoding="utf-8"), feature_version=(3, 8))


def test_the_helper_carries_its_license_notice() -> None:
    text = LINK_SOURCE.read_text(encoding="utf-8")
    notice = (Path(__file__).parent.parent / "LICENSE").read_text(encoding="utf-8")
    header = "\n".join(line[2:] for line in text.split('"""', 1)[0].splitlines() if line.startswith("# "))
    assert " ".join(notice.split()) in " ".join(header.split())


@pytest.mark.parametrize(("version", "query"), [("8.1.3", "?v=8.1.3"), ("1.0+cpu", "?v=1.0%2Bcpu"), ("", "")])
def test_the_version_goes_into_the_url(compact: Path, version: str, query: str) -> None:
    linker = link.Linker.from_file(compact, version=version)
    assert linker.url_for("max_batch_tokens must be a multiple of 8, got 1") == f"{BASE}batch-tokens-multiple/{query}"


def test_annotate_adds_the_link_once_per_page(patterns: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(link.OPT_OUT, raising=False)
    linker = link.Linker.from_file(patterns)
    first = linker.annotate(ValueError("max_batch_tokens must be a multiple of 8, got 1"))
    again = linker.annotate(ValueError("max_batch_tokens must be a multiple of 8, got 2"))
    assert first.__notes__ == [f"See {BASE}batch-tokens-multiple/"]
    assert not hasattr(again, "__notes__")


def test_annotate_without_add_note_sets_notes_as_python_3_11_would(patterns: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(link.OPT_OUT, raising=False)
    monkeypatch.setattr(link, "NOTES_SHOWN", False)

    class NoNotes(ValueError):
        """An exception as on Python 3.10: no add_note."""

        def __getattribute__(self, name: str) -> object:
            if name == "add_note":
                raise AttributeError(name)
            return super().__getattribute__(name)

    error = link.Linker.from_file(patterns).annotate(NoNotes("max_batch_tokens must be a multiple of 8, got 1"))
    assert error.__notes__ == [f"See {BASE}batch-tokens-multiple/"]


# --- a vendored copy inside a package, in a subprocess ---------------------------------------

BATCHING = '''\
"""tinyserve's batching checks (lines as in the records)."""


def check_batching(chunk, budget):
    if budget < chunk:
        raise ValueError(f"max_batch_tokens ({budget}) must be at least chunk_size ({chunk}); "
                         "raise --max-batch-tokens or lower --chunk-size.")
    if budget % 8:
        raise ValueError(f"max_batch_tokens must be a multiple of 8, got {budget}")
'''


def vendored(tmp_path: Path, patterns: bytes | None) -> Path:
    """Return a folder holding a package `tinyserve` with link.py vendored and `patterns` beside it."""
    package = tmp_path / "lib" / "tinyserve"
    (package / "config").mkdir(parents=True)
    shutil.copy(LINK_SOURCE, package / "_errorlinks.py")
    (package / "__init__.py").write_text(
        "from pathlib import Path\nfrom tinyserve import _errorlinks\n"
        "_errorlinks.use(Path(__file__).with_name('patterns.json')).install()\n")
    (package / "config" / "__init__.py").write_text("")
    (package / "config" / "batching.py").write_text(BATCHING)
    if patterns is not None:
        (package / "patterns.json").write_bytes(patterns)
    return package.parent


def run_python(code: str, path: Path, python: str = sys.executable, **env: str) -> subprocess.CompletedProcess[str]:
    """Run `code` with `path` importable, in a clean environment."""
    environment = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(path), **env}
    return subprocess.run([python, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          env=environment, timeout=120)


HOOKED = """
import sys
import tinyserve
from tinyserve.config.batching import check_batching
for n in (1001, 1002):
    try:
        check_batching(8, n)
    except ValueError as error:
        sys.excepthook(type(error), error, error.__traceback__)
check_batching(8, 1003)
"""


@pytest.mark.parametrize("opt_out, expected", [("", 1), ("1", 0), ("0", 1)])
def test_vendored_hook_prints_the_link_once_and_honours_the_opt_out(patterns: Path, tmp_path: Path,
                                                                   opt_out: str, expected: int) -> None:
    result = run_python(HOOKED, vendored(tmp_path, patterns.read_bytes()), **{link.OPT_OUT: opt_out})
    assert result.returncode == 1
    assert result.stderr.count("Traceback") == 3
    assert result.stderr.count(f"See {BASE}batch-tokens-multiple/") == expected


def test_the_users_own_error_with_the_same_message_gets_no_link(patterns: Path, tmp_path: Path) -> None:
    user = """
    import tinyserve
    def check(budget):
        raise ValueError(f"max_batch_tokens must be a multiple of 8, got {budget}")
    check(1001)
    """
    result = run_python(user, vendored(tmp_path, patterns.read_bytes()))
    assert result.returncode == 1 and "ValueError: max_batch_tokens must be a multiple of 8" in result.stderr
    assert "See " not in result.stderr


def test_an_error_of_a_user_callback_called_by_the_library_gets_no_link(patterns: Path, tmp_path: Path) -> None:
    lib = vendored(tmp_path, patterns.read_bytes())
    (lib / "tinyserve" / "config" / "hooks.py").write_text("def call(function):\n    return function()\n")
    user = """
    import tinyserve
    from tinyserve.config.hooks import call
    def mine():
        raise ValueError("max_batch_tokens must be a multiple of 8, got 3")
    call(mine)
    """
    result = run_python(user, lib)
    assert result.returncode == 1 and "in call" in result.stderr and "See " not in result.stderr


HOSTILE_FILES: dict[str, bytes | None] = {
    "missing": None,
    "empty": b"",
    "truncated": b'{"version": 1, "patterns": [{"id": "x", "url": "https://e.x/',
    "not JSON": b"<html>404</html>",
    "binary": bytes(range(256)),
    "newer version": b'{"version": 2, "patterns": []}',
    "no version": b'{"patterns": []}',
    "a list": b"[1, 2, 3]",
    "a string": b'"patterns"',
    "null": b"null",
    "patterns an object": b'{"version": 1, "patterns": {"a": 1}}',
    "version true": b'{"version": true, "patterns": []}',
    "nested too deep": b"[" * 200_000 + b"]" * 200_000,
    "huge number": b'{"version": 1' + b"0" * 5000 + b', "patterns": []}',
    "version a string": b'{"version": "1", "patterns": []}',
}
"""Whatever a shipped patterns.json may hold or lack; a later test adds hostile entries."""

HOSTILE_ENTRIES = [
    None, 1, "x", [], {},
    {"id": "a", "url": "https://e.x/a/", "pattern": "max_batch_tokens"},
    {"id": "a", "url": "https://e.x/a/", "pattern": [None]},
    {"id": "a", "url": "https://e.x/a/", "pattern": []},
    {"id": "a", "url": "https://e.x/a/", "pattern": [1, None]},
    {"id": "a", "url": "https://e.x/a/", "pattern": ["  "]},
    {"id": "a", "url": "https://e.x/a/", "pattern": ["x"] * 100_000},
    {"id": "a", "url": None, "pattern": ["max_batch_tokens must be a multiple of 8, got ", None]},
    {"id": "a", "url": "javascript:alert(1)", "pattern": ["max_batch_tokens must be a multiple of 8, got ", None]},
    {"id": "a", "url": "https://e.x/\x1b[2J\x1b[31mpwned", "pattern": ["max_batch_tokens must be a multiple of 8, got ", None]},
    {"id": "a", "url": "https://e.x/a/\nSee https://evil.example/", "pattern": ["max_batch_tokens must be", None]},
    {"id": "a", "url": "https://e.x/\u202eevil/", "pattern": ["max_batch_tokens must be a multiple of 8, got ", None]},
    {"id": "a", "url": "https://e.x/" + "a" * 100_000, "pattern": ["max_batch_tokens must be a multiple of 8, got ", None]},
    {"id": ["x"], "url": "https://e.x/weird/", "exception": {"a": 1}, "pattern": ["max_batch_tokens must", None],
     "path": 5, "line": "ten", "function": None, "variants": "no", "written": "yes"},
]


@pytest.mark.parametrize("name", sorted(HOSTILE_FILES))
def test_no_patterns_json_can_break_the_import_or_the_hook(tmp_path: Path, name: str) -> None:
    result = run_python(HOOKED, vendored(tmp_path, HOSTILE_FILES[name]))
    assert result.returncode == 1
    assert result.stderr.count("Traceback") == 3, result.stderr[-2000:]
    assert "Error in sys.excepthook" not in result.stderr and "See " not in result.stderr
    assert link.Linker.from_file(tmp_path / "lib" / "tinyserve" / "patterns.json").problem


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are a POSIX thing")
def test_special_files_are_not_read(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")
    for special in (tmp_path / "fifo", Path("/dev/zero"), tmp_path):
        linker = link.use(special)
        assert linker.entries == [] and "cannot read" in (linker.problem or "")


def test_hostile_entries_are_skipped_and_good_ones_still_link(tmp_path: Path, patterns: Path) -> None:
    good = json.loads(patterns.read_text())["patterns"]
    data = {"version": 1, "patterns": [*HOSTILE_ENTRIES, *good]}
    result = run_python(HOOKED, vendored(tmp_path, json.dumps(data).encode()))
    assert result.returncode == 1 and result.stderr.count("Traceback") == 3
    assert result.stderr.count(f"See {BASE}batch-tokens-multiple/") == 1
    assert "Error in sys.excepthook" not in result.stderr and "e.x" not in result.stderr
    assert not any(ord(c) < 32 and c != "\n" for c in result.stderr)
    linker = link.Linker(data)
    assert [e.url for e in linker.entries] == ["https://e.x/weird/", *(g["url"] for g in good)]
    assert linker.problem == f"{len(HOSTILE_ENTRIES) - 1} of {len(data['patterns'])} patterns skipped: not well-formed"


def compact_file(index: bytes, blocks: list[bytes], block_lengths: str | None = None) -> bytes:
    """Return a compact patterns file of an index and blocks as given (compressed), its header as errorsite writes."""
    header = (f"base_url\t{BASE[:-7]}\npage\terrors/{{id}}/\ndistribution\t\nfields\t"
              f"{' '.join(patterns_module.FIELDS)}\nindex\t{len(index)}\n"
              f"blocks\t{block_lengths if block_lengths is not None else ' '.join(str(len(b)) for b in blocks)}\n\n")
    return link.MAGIC + header.encode() + index + b"".join(blocks)


def every_block(count: int) -> bytes:
    """Return an index that files the group of the empty word, which every message looks up, in `count` blocks."""
    return zlib.compress(b"\n\t" + ",".join(map(str, range(count))).encode() + b"\n")


ROW = b"\ta\tValueError\tconfig/batching.py\t10\tcheck_batching\t0\tmax_batch_tokens must\n"
BOMB = zlib.compress(b"\n" + b"x" * (8 * 1024 * 1024 - 1), 9)
"""A block of 8 KB that unpacks to 8 MiB."""

OUT_OF_BOUNDS_FILES = {
    # 130 blocks of 8 MiB: 1 GiB unpacked from a file of 1 MB.
    "blocks past 1 GiB in all": compact_file(every_block(130), [BOMB] * 130),
    "a header of a million blocks": compact_file(every_block(1), [], " ".join(["1"] * 1_000_000)),
    "a header of 100,000 blocks": compact_file(every_block(1), [], " ".join(["1"] * 100_000)),
    # 100,000 rows of the group of the empty word in each of 40 blocks: four million entries.
    "millions of rows": compact_file(every_block(40), [zlib.compress(b"\n" + ROW * 100_000)] * 40),
    "a group that names a block a million times": compact_file(
        zlib.compress(b"\n\t" + b",".join([b"0"] * 1_000_000) + b"\n"), [zlib.compress(b"\n" + ROW)]),
    "a row of three million fields": compact_file(every_block(1), [zlib.compress(
        b"\n" + ROW[:-1] + b"\tx" * 3_000_000 + "\U0001f600".encode() + b"\n")]),
    "two million JSON objects": b"[" + b"{}," * 2_000_000 + b"{}]",
}
"""Patterns files made to make the host's first url_for allocate hundreds of MB or more."""


@pytest.mark.parametrize("name", sorted(OUT_OF_BOUNDS_FILES))
def test_a_patterns_file_past_a_limit_links_nothing_and_costs_little(tmp_path: Path, name: str) -> None:
    package = tmp_path / "lib" / "tinyserve"
    (package / "_errorsite").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    shutil.copy(LINK_SOURCE, package / "_errorsite" / "__init__.py")
    (package / "_errorsite" / "patterns.bin").write_bytes(OUT_OF_BOUNDS_FILES[name])
    code = """
    import resource, tracemalloc
    # A helper that reads past its limits would take the machine's memory: this process may take 1 GiB.
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
    from tinyserve import _errorsite as helper
    tracemalloc.start()
    print(helper.url_for("max_batch_tokens must be a multiple of 8, got 1"))
    print(helper.url_for("max_batch_tokens must be a multiple of 8, got 2"))
    print(tracemalloc.get_traced_memory()[1] // 2 ** 20)
    print(helper.default().problem)
    """
    result = run_python(code, package.parent)
    url, again, peak, problem = result.stdout.splitlines()
    assert (url, again) == ("None", "None"), result.stderr
    assert int(peak) < 64, f"{peak} MiB"
    assert "past a limit of the link helper" in problem


def test_an_exception_whose_str_raises_does_not_break_the_hook(tmp_path: Path, patterns: Path) -> None:
    code = """
    import sys, tinyserve
    from tinyserve import _errorlinks
    class Hostile(ValueError):
        def __str__(self):
            raise RuntimeError("no message for you")
    assert _errorlinks._default.annotate(Hostile()) is not None
    assert _errorlinks._default.link(Hostile()) is None
    raise Hostile()
    """
    result = run_python(code, vendored(tmp_path, patterns.read_bytes()))
    assert result.returncode == 1 and "Hostile" in result.stderr
    assert "Error in sys.excepthook" not in result.stderr and "no message for you" not in result.stderr


@pytest.mark.parametrize("where", ["main", "thread"])
@pytest.mark.parametrize("raised", ["SystemExit(0)", "SystemExit(3)", "KeyboardInterrupt()"])
def test_an_error_whose_str_raises_anything_leaves_the_process_as_without_the_hook(
        tmp_path: Path, patterns: Path, raised: str, where: str) -> None:
    lib = vendored(tmp_path, patterns.read_bytes())
    code = f"""
    import threading, tinyserve
    class Hostile(ValueError):
        def __str__(self):
            raise {raised}
    def fail():
        raise Hostile()
    if {where == "thread"}:
        worker = threading.Thread(target=fail)
        worker.start(); worker.join()
        print("after the thread")
    fail()
    """
    hooked = run_python(code, lib)
    init = lib / "tinyserve" / "__init__.py"
    init.write_text(init.read_text().replace(".install()", ""))
    plain = run_python(code, lib)
    assert hooked.returncode == plain.returncode == 1, (hooked.stderr, plain.stderr)
    assert hooked.stdout == plain.stdout == ("after the thread\n" if where == "thread" else "")
    assert "Error in sys.excepthook" not in hooked.stderr and "Exception in threading" not in hooked.stderr
    assert hooked.stderr.count("Traceback") == plain.stderr.count("Traceback") == (2 if where == "thread" else 1)


def test_two_hundred_threads_raising_at_once_show_the_page_once(compact: Path, tmp_path: Path) -> None:
    # "install() shows each page once per process" (docs/linking.md): the threads' hooks run at once.
    package = tmp_path / "lib" / "tinyserve"
    (package / "config").mkdir(parents=True)
    (package / "_errorsite").mkdir()
    (package / "__init__.py").write_text("from tinyserve._errorsite import install\ninstall()\n")
    (package / "config" / "__init__.py").write_text("")
    (package / "config" / "batching.py").write_text(BATCHING)
    shutil.copy(LINK_SOURCE, package / "_errorsite" / "__init__.py")
    shutil.copy(compact, package / "_errorsite" / "patterns.bin")
    code = """
    import threading
    # A host that keeps its threads' tracebacks quiet: the links are all that is printed.
    threading.excepthook = lambda args: None
    import tinyserve
    from tinyserve.config.batching import check_batching
    start = threading.Barrier(200)
    def work(n):
        start.wait()
        check_batching(8, 1001 + 8 * n)
    threads = [threading.Thread(target=work, args=(n,)) for n in range(200)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(threading.active_count())
    """
    for _ in range(3):
        result = run_python(code, package.parent)
        assert result.returncode == 0 and result.stdout == "1\n", result.stderr
        assert result.stderr == f"See {BASE}batch-tokens-multiple/\n"


# --- ties: the raising frame chooses the page ------------------------------------------------


def entry(name: str, pattern: list[str | None], path: str, line: int, function: str, written: bool = False) -> dict:
    return {"id": name, "url": f"https://e.x/errors/{name}/", "exception": "ValueError", "pattern": pattern,
            "path": path, "line": line, "function": function, "written": written}


SAME = ["not a number: ", None]


def test_the_raising_frame_chooses_between_pages_with_the_same_message(tmp_path: Path) -> None:
    package = tmp_path / "mylib"
    package.mkdir()
    (package / "core.py").write_text("def parse(v):\n    raise ValueError(f'not a number: {v!r}')\n")
    (package / "io.py").write_text("\n\ndef read(v):\n    raise ValueError(f'not a number: {v!r}')\n")
    data = {"version": 1, "patterns": [
        entry("core", SAME, "src/mylib/core.py", 2, "parse"),
        entry("io", SAME, "src/mylib/io.py", 4, "read"),
        entry("io-moved", SAME, "src/mylib/io.py", 40, "read_more"),
    ]}
    linker = link.Linker(data, root=package)
    sys.path.insert(0, str(tmp_path))
    try:
        from mylib import core, io  # type: ignore[import-not-found]

        errors = {}
        for name, function in (("core", core.parse), ("io", io.read)):
            try:
                function("x")
            except ValueError as error:
                errors[name] = error
    finally:
        sys.path.remove(str(tmp_path))
        for name in ("mylib", "mylib.core", "mylib.io"):
            sys.modules.pop(name, None)
    assert linker.link(errors["core"]) == "https://e.x/errors/core/"
    assert linker.link(errors["io"]) == "https://e.x/errors/io/"
    # The line moved (another release): the file and the function still decide.
    data["patterns"] = [data["patterns"][2], entry("io-old", SAME, "src/mylib/io.py", 9, "read"), data["patterns"][0]]
    assert link.Linker(data, root=package).link(errors["io"]) == "https://e.x/errors/io-old/"
    # Raised elsewhere than the library's folder: no link at all.
    assert link.Linker(data, root=tmp_path / "other").link(errors["io"]) is None


def test_without_a_traceback_a_written_page_comes_first_then_the_file_order() -> None:
    data = {"version": 1, "patterns": [entry("b", SAME, "b.py", 1, "f"), entry("a", SAME, "a.py", 1, "f"),
                                       entry("c", SAME, "c.py", 1, "f", written=True)]}
    assert link.Linker(data).url_for("not a number: 'x'") == "https://e.x/errors/c/"
    data["patterns"][2]["written"] = False
    assert link.Linker(data).url_for("not a number: 'x'") == "https://e.x/errors/b/"
    longer = entry("d", ["not a number: ", None, " (strict)"], "d.py", 1, "f")
    data["patterns"].append(longer)
    assert link.Linker(data).url_for("not a number: 'x' (strict)") == "https://e.x/errors/d/"


def test_variants_link_to_their_page() -> None:
    data = {"version": 1, "patterns": [{**entry("files", ["expected one file, got ", None], "a.py", 1, "f"),
                                        "variants": [["expected ", None, " files, got ", None]]}]}
    assert link.Linker(data).url_for("expected 3 files, got 2") == "https://e.x/errors/files/"


# --- threads, IPython, Python 3.9 and 3.10 ---------------------------------------------------


def test_an_uncaught_error_in_a_thread_gets_its_link(tmp_path: Path, patterns: Path) -> None:
    code = """
    import threading, tinyserve
    from tinyserve.config.batching import check_batching
    worker = threading.Thread(target=check_batching, args=(8, 1001))
    worker.start(); worker.join()
    """
    result = run_python(code, vendored(tmp_path, patterns.read_bytes()))
    assert result.returncode == 0 and "Exception in thread" in result.stderr
    assert result.stderr.count(f"See {BASE}batch-tokens-multiple/") == 1


def test_under_ipython_the_link_follows_the_traceback(tmp_path: Path, patterns: Path) -> None:
    code = """
    from IPython.core.interactiveshell import InteractiveShell
    shell = InteractiveShell.instance()
    shell.run_cell("import tinyserve")
    shell.run_cell("from tinyserve.config.batching import check_batching; check_batching(8, 1001)")
    shell.run_cell("raise ValueError('max_batch_tokens must be a multiple of 8, got 5')")
    """
    result = run_python(code, vendored(tmp_path, patterns.read_bytes()), HOME=str(tmp_path))
    output = result.stdout + result.stderr
    assert "check_batching" in output and output.count("ValueError") >= 2
    assert output.count(f"See {BASE}batch-tokens-multiple/") == 1
    assert "Custom TB Handler failed" not in output


@pytest.mark.parametrize("python", OLD_PYTHONS or [pytest.param(None, marks=pytest.mark.skip(
    reason="no Python 3.9 or 3.10 on this machine; the simulated test above covers the code path"))])
def test_on_python_before_3_11_the_hook_and_annotate_show_the_link(tmp_path: Path, patterns: Path,
                                                                   python: str) -> None:
    code = HOOKED.replace("check_batching(8, 1003)", textwrap.dedent("""
    from tinyserve import _errorlinks
    assert not hasattr(ValueError(), "add_note")
    try:
        check_batching(8, 4)
    except ValueError as error:
        error = _errorlinks._default.annotate(error)
        assert error.__notes__ == ["See https://example.github.io/tinyserve/errors/batch-tokens-below-chunk/"]
        raise
    """))
    result = run_python(code, vendored(tmp_path, patterns.read_bytes()), python=python)
    assert result.returncode == 1 and result.stderr.count("Traceback") == 3, result.stderr
    assert result.stderr.count(f"See {BASE}batch-tokens-multiple/") == 1
    assert result.stderr.count(f"See {BASE}batch-tokens-below-chunk/") == 1


# --- errorsite patterns ------------------------------------------------------------------------


def test_patterns_command_writes_places_and_only_when_changed(content: Path, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "src" / "tinyserve" / "patterns.bin"
    assert cli.main(["patterns", "--content", str(content), "--out", str(out)]) == 0
    assert capsys.readouterr().out == f"wrote {out} (2 patterns)\n"
    decoded = patterns_module.decode(out.read_bytes())
    assert decoded is not None
    assert dict(decoded.header)["base_url"] == "https://example.github.io/tinyserve/"
    rows = sorted(row.split("\t")[1:6] for row in decoded.rows if row)
    assert rows == [["batch-tokens-below-chunk", "ValueError", "config/batching.py", "5", "check_batching"],
                    ["batch-tokens-multiple", "ValueError", "config/batching.py", "10", "check_batching"]]
    assert link.Linker.from_file(out).problem is None
    before = out.stat().st_mtime_ns
    assert cli.main(["patterns", "--content", str(content), "--out", str(out)]) == 0
    assert capsys.readouterr().out.startswith("unchanged:") and out.stat().st_mtime_ns == before


def test_patterns_command_refuses_to_replace_other_files(content: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    mine = tmp_path / "pyproject.toml"
    mine.write_text("[project]\n")
    for out in (mine, tmp_path):
        assert cli.main(["patterns", "--content", str(content), "--out", str(out)]) == 1
        assert "errors/patterns-out-not-ours/" in capsys.readouterr().err
    assert mine.read_text() == "[project]\n"


def test_patterns_command_needs_an_absolute_base_url(content: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "patterns.json"
    assert cli.main(["patterns", "--content", str(content), "--out", str(out), "--base-url", "/"]) == 1
    assert "errors/patterns-base-url/" in capsys.readouterr().err and not out.exists()


def test_build_publishes_no_patterns_a_helper_cannot_use(content: Path, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    site = tmp_path / "site"
    assert cli.main(["build", "--content", str(content), "--out", str(site), "--base-url", "/"]) == 0
    assert "note: no api/patterns.json: the link helper prints absolute URLs" in capsys.readouterr().err
    assert not (site / "api" / "patterns.json").exists() and (site / "api" / "errors.json").is_file()
    assert cli.main(["build", "--content", str(content), "--out", str(site)]) == 0
    assert capsys.readouterr().err == "" and (site / "api" / "patterns.json").is_file()
    out = tmp_path / "pkg" / "_errorsite"
    assert cli.main(["vendor", str(out), "--content", str(content), "--base-url", "/docs/"]) == 1
    assert "errors/patterns-base-url/" in capsys.readouterr().err and not out.exists()


def test_vendor_copies_the_helper_and_the_patterns_and_refuses_a_folder_of_the_library(
        content: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    package = tmp_path / "src" / "tinyserve"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("VERSION = 1\n")
    assert cli.main(["vendor", str(package), "--content", str(content)]) == 1
    assert "errors/vendor-not-ours/" in capsys.readouterr().err
    assert (package / "__init__.py").read_text() == "VERSION = 1\n" and not (package / "patterns.bin").exists()
    folder = package / "_errorsite"
    assert cli.main(["vendor", str(folder), "--content", str(content)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"wrote {folder / '__init__.py'} (the link helper, errorsite {cli.__version__})"
    assert out[1].startswith(f"wrote {folder / 'patterns.bin'} (2 patterns, ")
    assert (folder / "__init__.py").read_bytes() == LINK_SOURCE.read_bytes()
    assert cli.main(["vendor", str(folder), "--content", str(content)]) == 0
    assert [line.split()[0] for line in capsys.readouterr().out.splitlines()] == ["unchanged:", "unchanged:"]


# --- a real package: wheel, fresh virtual environment ------------------------------------------

LIBRARY = {
    "pyproject.toml": """\
        [build-system]
        requires = ["setuptools>=61"]
        build-backend = "setuptools.build_meta"

        [project]
        name = "mylib"
        version = "8.1.3"
        requires-python = ">=3.8"

        [tool.setuptools.packages.find]
        where = ["src"]

        [tool.setuptools.package-data]
        "mylib._errorsite" = ["patterns.bin"]
        """,
    "src/mylib/__init__.py": """\
        from mylib._errorsite import install

        install()
        """,
    "src/mylib/core.py": """\
        def parse(value):
            if not value.isdigit():
                raise ValueError(f"not a number: {value!r}")
            return int(value)


        def check(size):
            if size > 10:
                raise ValueError(f"size {size} is larger than the limit of 10")
            return size
        """,
    "src/mylib/io.py": """\
        def read(text):
            if not text.strip():
                raise ValueError(f"not a number: {text!r}")
            return text
        """,
    "tests/test_core.py": "def test_nothing():\n    raise ValueError('not a number: 1')\n",
}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """Return a wheel of a small library with link.py and patterns.json as package data, and its pages."""
    root = tmp_path_factory.mktemp("mylib")
    repo = root / "repo"
    for name, text in LIBRARY.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(textwrap.dedent(text))
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@e.x"]
    subprocess.run([*git[:3], "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "library"], check=True)
    content = root / "content"
    content.mkdir()
    (content / "site.toml").write_text('title = "mylib errors"\nbase_url = "https://owner.github.io/mylib/"\n'
                                       'repo = "owner/mylib"\n')
    assert cli.main(["extract", str(repo), "--repo", "owner/mylib", "--content", str(content)]) == 0
    assert cli.main(["vendor", str(repo / "src/mylib/_errorsite"), "--content", str(content)]) == 0
    decoded = patterns_module.decode((repo / "src/mylib/_errorsite/patterns.bin").read_bytes())
    assert decoded is not None and dict(decoded.header)["distribution"] == "mylib"
    pages = {f"{fields[3]}:{fields[4]}": f"https://owner.github.io/mylib/errors/{fields[1]}/?v=8.1.3"
             for fields in (row.split("\t") for row in decoded.rows if row)}
    assert sorted(pages) == ["mylib/core.py:3", "mylib/core.py:9", "mylib/io.py:3"]
    dist = root / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "--no-index",
                    "-w", str(dist), str(repo)], check=True, capture_output=True)
    return next(dist.glob("mylib-8.1.3-*.whl")), pages


@pytest.mark.parametrize("python", [sys.executable, *OLD_PYTHONS])
def test_a_wheel_of_a_library_links_its_errors_and_not_the_users(wheel: tuple[Path, dict[str, str]],
                                                                tmp_path: Path, python: str) -> None:
    built, pages = wheel
    env = tmp_path / "venv"
    # The environment gets no pip of its own (copying one in is most of a venv's making): this pip installs
    # into it, run by the environment's interpreter.
    subprocess.run([python, "-m", "venv", "--without-pip", str(env)], check=True)
    subprocess.run([sys.executable, "-m", "pip", "--python", str(env / "bin" / "python"), "install", "-q", "--no-deps",
                    "--no-index", str(built)], check=True, capture_output=True)

    def run(code: str) -> str:
        result = subprocess.run([str(env / "bin" / "python"), "-c", textwrap.dedent(code)], capture_output=True,
                                text=True, cwd=tmp_path, env={"PATH": "/usr/bin:/bin"}, timeout=120)
        assert result.returncode == 1 and "Traceback" in result.stderr, result.stderr
        return result.stderr

    assert run("import mylib.core\nmylib.core.parse('x')").endswith(f"See {pages['mylib/core.py:3']}\n")
    assert run("import mylib.core\nmylib.core.check(11)").endswith(f"See {pages['mylib/core.py:9']}\n")
    # The same message as core.parse, raised in io.py: the raising frame chooses io's page.
    assert run("import mylib.io\nmylib.io.read(' ')").endswith(f"See {pages['mylib/io.py:3']}\n")
    # The user's own error with a message of the library gets no link.
    assert "See " not in run("import mylib\nraise ValueError(\"not a number: 'x'\")")
    # A package that lost its patterns file still imports and raises as before.
    installed = next((env / "lib").glob("python3.*/site-packages/mylib/_errorsite/patterns.bin"))
    installed.unlink()
    stderr = run("import mylib.core\nmylib.core.parse('x')")
    assert stderr.rstrip().endswith("ValueError: not a number: 'x'") and "See " not in stderr

