"""Facts kept between scans (`extract.facts`): a scan that keeps them finds what a scan without them finds, after
any sequence of edits, renames and deletions; a damaged or foreign entry is made again, never trusted; two
repositories that share the cache never see each other's facts."""

from __future__ import annotations

import os
import random
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from errorsite.extract.facts import FactStore, blob_id
from errorsite.extract.scan import scan_files
from errorsite.extract.sites import Scan


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Give each test a cache folder of its own: what it counts there is its own."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _library() -> dict[str, bytes]:
    """Return a small library whose raises read each other's files: helpers, factories, exception classes that
    print their own message, messages in a base class's attributes and tables, and methods that build them."""
    files = {
        "lib/__init__.py": "from .errors import LibError, ParseError\nfrom .helpers import fail\n",
        "lib/errors.py": """
            class LibError(Exception):
                def __init__(self, message, code=None):
                    super().__init__(f"{message} (code {code})")


            class ParseError(LibError):
                def __str__(self):
                    return f"cannot parse {self.args[0]!r}"


            class Missing(LookupError):
                pass
            """,
        "lib/helpers.py": """
            from .errors import LibError


            def fail(message):
                raise LibError(message)


            def make_error(message):
                return ValueError(f"invalid input: {message}")


            def message(default, cls=None):
                def decorator(f):
                    def wrapper(*args):
                        try:
                            return f(*args)
                        except ValueError:
                            raise (cls or LibError)(default)
                    return wrapper
                return decorator
            """,
        "lib/base.py": """
            class Field:
                default_error_messages = {"required": "Missing data for required field.", "null": "Field may not be null."}
                message_min = "Shorter than minimum length {min}."

                def __init__(self):
                    self.error_messages = dict(self.default_error_messages)

                def error(self, key):
                    raise ValueError(self.error_messages[key])

                def too_short(self, size):
                    raise ValueError(self.message_min.format(min=size))

                def describe(self, name):
                    return f"field {name} is read-only"
            """,
        "lib/fields.py": """
            from .base import Field
            from .helpers import fail, make_error, message


            class String(Field):
                default_error_messages = {"invalid": "Not a valid string."}

                def check(self, value):
                    if value is None:
                        self.error("null")
                    if not isinstance(value, str):
                        raise ValueError(self.default_error_messages["invalid"])
                    if len(value) > 10:
                        fail("string too long")
                    if value == "x":
                        raise make_error("x is not allowed")
                    raise RuntimeError(self.describe("value"))


            @message("not a number", cls=TypeError)
            def number(value):
                return float(value)


            @message("not an integer")
            def integer(value):
                return int(value)
            """,
        "lib/cli.py": """
            import argparse
            from .fields import String
            from .errors import ParseError, Missing


            def main(argv=None):
                parser = argparse.ArgumentParser()
                parser.add_argument("--name", help="the name to check")
                args = parser.parse_args(argv)
                if not args.name:
                    raise ParseError("--name")
                if args.name == "?":
                    raise Missing
                String().check(args.name)
            """,
    }
    return {path: textwrap.dedent(text).lstrip().encode() for path, text in files.items()}


def _scan(files: dict[str, bytes], store: FactStore | None) -> str:
    """Return all a scan found, every field written out (sites compare by place only)."""
    return _written(scan_files(files, asserts=True, warns=True, context=True, store=store))


def _written(scan: Scan) -> str:
    return "\n".join(map(repr, (*scan.sites, *scan.skipped, *scan.failures, *scan.mapped)))


def _edit(files: dict[str, bytes], rng: random.Random, step: int) -> str:
    """Make one random edit of the kinds a commit makes; return what it did."""
    path = rng.choice(sorted(files))
    lines = files[path].decode().splitlines(keepends=True)
    kind = rng.choice(["line", "literal", "rename", "delete", "helper", "class", "swap", "restore"])
    if kind == "line":
        at = rng.randrange(len(lines) + 1)
        indent = lines[at - 1][:len(lines[at - 1]) - len(lines[at - 1].lstrip())] if at and lines[at - 1].strip() else ""
        lines.insert(at, f"{indent}# a comment of step {step}\n" if indent or rng.random() < 0.5 else f"_STEP = {step}\n")
        files[path] = "".join(lines).encode()
    elif kind == "literal":
        text = files[path].decode()
        quoted = [i for i, c in enumerate(text) if c == '"']
        if quoted:
            at = rng.choice(quoted)
            text = text[:at + 1] + f"edited {step} " + text[at + 1:]
        files[path] = text.encode()
    elif kind == "rename" and path != "lib/__init__.py":
        files[path.replace(".py", f"_{step}.py")] = files.pop(path)
    elif kind == "delete" and len(files) > 2:
        del files[path]
    elif kind == "helper":
        files[path] += f"\n\ndef fail_{step}(msg):\n    raise KeyError(msg)\n\n\ndef use_{step}():\n    fail_{step}('step {step} failed')\n".encode()
    elif kind == "class":
        files[path] += f"\n\nclass Step{step}Error(Exception):\n    def __str__(self):\n        return 'step {step} broke'\n".encode()
    elif kind == "swap":
        other = rng.choice(sorted(files))
        files[path], files[other] = files[other], files[path]
    else:
        files.update(_library())
    return f"{kind} {path}"


def _check_random_edits(seed: int, steps: int) -> None:
    """Assert that a scan with a store writes what a scan without one writes, before and after each random edit."""
    files = _library()
    store = FactStore.open(True, True)
    assert _scan(files, store) == _scan(files, None)
    rng = random.Random(seed)
    for step in range(steps):
        done = _edit(files, rng, step)
        assert _scan(files, store) == _scan(files, None), f"after step {step}: {done}"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_kept_facts_find_what_a_scan_without_them_finds_over_random_edits(seed: int) -> None:
    _check_random_edits(seed, 25)


@pytest.mark.parametrize("path, before, after", [
    ("lib/base.py", b"Field may not be null.", b"Field is null."),  # a table a subclass's raise reads
    ("lib/base.py", b"is read-only", b"cannot be written"),  # a method whose returned text a raise elsewhere holds
    ("lib/errors.py", b"(code {code})", b"[{code}]"),  # how a class prints the message raised through a helper
    ("lib/errors.py", b"cannot parse", b"could not parse"),  # a class's own message, mapped to by a bare raise
    ("lib/helpers.py", b"invalid input", b"rejected input"),  # a factory's template
    ("lib/helpers.py", b"(cls or LibError)", b"(cls or RuntimeError)"),  # the class a decorator's wrapper falls back to
])
def test_an_edit_of_what_another_files_raises_read_finds_those_raises_again(path: str, before: bytes, after: bytes) -> None:
    files = _library()
    store = FactStore.open(True, True)
    _scan(files, store)
    assert before in files[path]
    files[path] = files[path].replace(before, after)
    assert _scan(files, store) == _scan(files, None)


def _puts(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Return the list of the path of every file whose sites a scan keeps (finds again) from now on."""
    found: list[str] = []
    original = FactStore.put

    def put(self: FactStore, path: str, blob: str, kept: object) -> None:
        found.append(path)
        original(self, path, blob, kept)  # type: ignore[arg-type]

    monkeypatch.setattr(FactStore, "put", put)
    return found


def _counting(monkeypatch: pytest.MonkeyPatch, owner: object, name: str) -> list[int]:
    """Return a list that gets a 1 each time `owner.name` is called in this process from now on."""
    called: list[int] = []
    real = getattr(owner, name)

    def counted(*args: object) -> object:
        called.append(1)
        return real(*args)

    monkeypatch.setattr(owner, name, counted)
    return called


def test_a_body_edit_keeps_the_other_files_sites_and_finds_the_edited_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    files = _library()
    store = FactStore.open(True, True)
    _scan(files, store)
    files["lib/fields.py"] = files["lib/fields.py"].replace(b"string too long", b"string longer than ten")
    found = _puts(monkeypatch)
    scan = _scan(files, store)
    assert scan == _scan(files, None)
    assert "string longer than ten" in scan
    # Only the edited file's sites and those that read it are found again: Field.error in base.py raises a message
    # of the table String in fields.py fills.
    assert sorted(found) == ["lib/base.py", "lib/fields.py"]


def test_the_classes_own_messages_are_found_again_only_when_what_they_read_changed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from errorsite.extract import scan as scanning

    files = _library()
    store = FactStore.open(True, True)
    _scan(files, store)
    made = _counting(monkeypatch, scanning, "_own_messages")
    # An edit of another file's body: the classes' own messages are taken as they were.
    files["lib/fields.py"] = files["lib/fields.py"].replace(b"string too long", b"string longer than ten")
    assert _scan(files, store) == _scan(files, None) and made == [1]  # the second scan kept nothing
    # An edit of what a class prints: found again, as a scan with nothing kept finds them.
    files["lib/errors.py"] = files["lib/errors.py"].replace(b"cannot parse", b"could not parse")
    made.clear()
    scan = _scan(files, store)
    assert made == [1] and "could not parse" in scan and scan == _scan(files, None)
    # A new definition anywhere (another class that may be an exception's base): found again.
    files["lib/helpers.py"] += b"\n\nclass Unrelated:\n    pass\n"
    made.clear()
    assert _scan(files, store) == _scan(files, None) and made == [1, 1]


def test_the_helpers_are_found_again_only_when_a_changed_file_may_hold_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from errorsite.extract.raisers import Repository

    files = _library()
    where = tmp_path / "lib"
    _packed_scan(files, where)
    found = _counting(monkeypatch, Repository, "find_raisers")

    def step(path: str, old: bytes, new: bytes) -> list[int]:
        assert old in files[path]
        files[path] = files[path].replace(old, new)
        cold = _scan(files, None)
        found.clear()
        assert _packed_scan(files, where)[0] == cold
        return list(found)

    describe = b'        return f"field {name} is read-only"'
    # A call added that passes a parameter on, in a function that calls no helper: the helpers as they were.
    assert step("lib/base.py", describe, b"        print(len(name))\n" + describe) == []
    # A call by a helper's name that calls no helper (`self.message`, where `message` is a function of another
    # module and no class has a raising method of that name): the helpers as they were.
    assert step("lib/base.py", b"        print(len(name))\n", b"        self.message(name)\n") == []
    assert step("lib/base.py", b"        self.message(name)\n", b"        print(len(name))\n") == []
    # A call of a helper added: found again.
    assert step("lib/fields.py", b'raise RuntimeError(self.describe("value"))', b'fail(value)') == [1]
    # A function that raises from its parameter now: a helper, found again (and the table kept for these calls).
    assert step("lib/base.py", b"        print(len(name))\n", b'        raise ValueError(name)\n') == [1]
    found.clear()
    assert _packed_scan(files, where)[0] == _scan(files, None) and found == [1]  # the cold scan's, not this one's
    # It stops being one: found again.
    assert step("lib/base.py", b'        raise ValueError(name)\n', b"") == [1]


def test_the_helpers_of_a_large_library_are_found_in_a_process_of_their_own(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from errorsite.extract.raisers import Repository
    from errorsite.sitebuild import workers

    files = _library()
    expected = _scan(files, None)
    monkeypatch.setattr(workers, "PARALLEL_MIN", 1)  # as many files as a large library's
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    here = _counting(monkeypatch, Repository, "find_raisers")
    assert _packed_scan(files, tmp_path / "lib")[0] == expected
    assert here == []  # found, but not in this process: what finding them read went with the other


def test_a_damaged_cut_short_or_foreign_entry_is_made_again() -> None:
    files = _library()
    store = FactStore.open(True, True)
    expected = _scan(files, store)
    entries = [store.folder / store._name(p, blob_id(files[p])) for p in sorted(files)]
    assert all(entry.is_file() for entry in entries)
    damaged, cut, foreign = entries[0], entries[1], entries[2]
    data = damaged.read_bytes()
    damaged.write_bytes(data[:40] + bytes([data[40] ^ 0xFF]) + data[41:])
    cut.write_bytes(cut.read_bytes()[:len(cut.read_bytes()) // 2])
    # An entry made with another user's key (a copied cache folder): right shape, wrong signature.
    other = FactStore(store.folder, os.urandom(32), store.salt)
    path = next(p for p in files if store._name(p, blob_id(files[p])) == foreign.name)
    kept = store.get(path, blob_id(files[path]))
    assert kept is not None
    other.put(path, blob_id(files[path]), kept)
    assert store.get(path, blob_id(files[path])) is None
    for entry in (damaged, cut):
        name = next(p for p in files if store._name(p, blob_id(files[p])) == entry.name)
        assert store.get(name, blob_id(files[name])) is None
    assert _scan(files, store) == expected
    # Each was made again, and is trusted again.
    assert all(store.get(p, blob_id(files[p])) is not None for p in files)


def test_an_entry_of_another_errorsite_or_other_settings_is_never_read() -> None:
    files = _library()
    store = FactStore.open(True, True)
    _scan(files, store)
    assert FactStore.open(False, True).salt != store.salt
    without = scan_files(files, asserts=False, warns=True, context=True, store=FactStore.open(False, True))
    assert _written(without) == _written(scan_files(files, asserts=False, warns=True, context=True))
    newer = FactStore(store.folder, store.secret, store.salt[::-1])
    assert all(newer.get(p, blob_id(files[p])) is None for p in files)


def test_two_repositories_sharing_the_cache_never_mix_their_facts() -> None:
    first = _library()
    second = dict(first)
    # The same path, other bytes; and the same bytes at one path whose sites read a file that differs.
    second["lib/helpers.py"] = first["lib/helpers.py"].replace(b"invalid input", b"bad input")
    second["lib/base.py"] = first["lib/base.py"].replace(b"Missing data for required field.", b"A value is required.")
    store = FactStore.open(True, True)
    for _ in range(2):
        assert _scan(first, store) == _scan(first, None)
        assert _scan(second, store) == _scan(second, None)
    assert "bad input: x is not allowed" in _scan(second, store)
    assert "invalid input: x is not allowed" in _scan(first, store)


def test_check_source_parses_a_pinned_file_once_whatever_commit_pins_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from errorsite.extract import check

    content = _library()["lib/fields.py"]
    store = FactStore.open(False, False)
    first = check._PinnedFile.of(content, store).raise_lines()
    assert 13 in first  # `raise ValueError(...)` of String.check

    def parse(*args: object, **kwargs: object) -> None:
        raise AssertionError("parsed again")

    monkeypatch.setattr(check.ast, "parse", parse)
    assert check._PinnedFile.of(content, store).raise_lines() == first
    # Another file (its blob unknown) must be parsed: the kept lines are never another file's.
    with pytest.raises(AssertionError, match="parsed again"):
        check._PinnedFile.of(content + b"\n# changed\n", store).raise_lines()


def test_damaged_calls_indexes_and_helper_tables_are_made_again() -> None:
    files = _library()
    store = FactStore.open(True, True)
    expected = _scan(files, store)
    files["lib/cli.py"] += b"\n# a comment: the helpers found stay the same\n"
    for entry in store.folder.iterdir():
        if not entry.name.startswith(".") and entry.name != "key":
            data = entry.read_bytes()
            entry.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))  # the signature no longer holds
    assert _scan(files, store) == _scan(files, None)
    assert _scan(files, store) == _scan(files, None) == expected


def test_an_edit_that_changes_no_definition_import_or_call_reads_no_other_files_calls(
        monkeypatch: pytest.MonkeyPatch) -> None:
    files = _library()
    store = FactStore.open(True, True)
    _scan(files, store)
    read: list[str] = []
    original = FactStore.calls

    def calls(self: FactStore, path: str, blob: str) -> object:
        read.append(path)
        return original(self, path, blob)

    monkeypatch.setattr(FactStore, "calls", calls)
    files["lib/fields.py"] = files["lib/fields.py"].replace(b"string too long", b"string over ten characters")
    assert _scan(files, store) == _scan(files, None)
    # The helpers found before were taken as they were: only the files whose sites are found again (the edited
    # one, and base.py, whose table String fills) read their own calls.
    assert set(read) <= {"lib/base.py", "lib/fields.py"}
    files["lib/fields.py"] += b"\n\ndef check_all(values):\n    for v in values:\n        String().check(v)\n"
    assert _scan(files, store) == _scan(files, None)
    # A new call: the calls of every file that has a function are read, to find the helpers again.
    assert set(read) == {p for p in files if b"def " in files[p]}


@pytest.mark.parametrize("seed", [4, 5])
def test_a_scan_that_keeps_one_file_parsed_at_a_time_finds_the_same(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    from errorsite.extract import scan

    monkeypatch.setattr(scan, "KEEP_PARSED", 1)  # every file read by another's raises is parsed again when read again
    _check_random_edits(seed, 12)


def test_a_repository_of_many_files_is_read_in_worker_processes_and_finds_the_same(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from errorsite.extract import scan
    from errorsite.sitebuild import workers

    monkeypatch.setattr(scan.os, "cpu_count", lambda: 2)
    files = _library()
    for n in range(workers.PARALLEL_MIN + 20):
        files[f"lib/generated/m{n}.py"] = textwrap.dedent(f"""
            from ..helpers import fail, make_error
            from ..fields import String


            def check_{n}(value):
                if value < {n}:
                    fail("value below {n}")
                if value == {n}:
                    raise make_error(f"{{value}} is taken by m{n}")
                String().check(value)
                raise ValueError(f"m{n} cannot take {{value!r}}")
            """).lstrip().encode()
    store = FactStore.open(True, True)
    cold = _scan(files, None)
    assert cold.count("RaiseSite(") > 3 * workers.PARALLEL_MIN
    assert _scan(files, store) == cold  # every file read and found in workers
    files["lib/helpers.py"] = files["lib/helpers.py"].replace(b"invalid input", b"refused input")
    assert _scan(files, store) == _scan(files, None)  # a factory changed: every site found again, in workers


def test_extract_and_check_read_every_file_when_the_cache_folder_is_refused(
        own_cache: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from test_gitrepo import Repo

    from errorsite import cli

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    own_cache.mkdir()
    (own_cache / "errorsite").symlink_to(elsewhere)  # a link: never errorsite's own
    repo = Repo(tmp_path / "lib")
    for path, data in _library().items():
        repo.write(path, data)
    repo.commit("the library")
    content = tmp_path / "content"
    assert cli.main(["extract", str(repo.path), "--content", str(content)]) == 0
    said = capsys.readouterr().err
    assert "errorsite: extract reads every file: refused to use the build cache" in said and "is a link" in said
    assert len(list((content / "errors").glob("*.json"))) == _scan(_library(), None).count("RaiseSite(")
    assert not any(elsewhere.iterdir())  # nothing written through the link
    assert cli.main(["check", "--content", str(content), "--source", str(repo.path)]) == 0
    said = capsys.readouterr().err
    assert said.count("reads every file") == 1 and "errorsite: check --source reads every file" in said


def test_a_new_call_that_makes_no_helper_keeps_the_other_files_sites(monkeypatch: pytest.MonkeyPatch) -> None:
    files = _library()
    store = FactStore.open(True, True)
    _scan(files, store)
    found = _puts(monkeypatch)
    # Calls that pass a parameter on are what helpers are found from: this one makes none.
    files["lib/cli.py"] = files["lib/cli.py"].replace(b"    args = parser.parse_args(argv)\n",
                                                      b"    args = parser.parse_args(argv)\n    print(len(argv or ()))\n")
    assert _scan(files, store) == _scan(files, None)
    assert found == ["lib/cli.py"]


def _packed_scan(files: dict[str, bytes], where: Path, context: bool = True) -> tuple[str, FactStore]:
    """Return what a scan with the store of the repository folder `where` (its pack) found, and the store, saved."""
    store = FactStore.open(True, True, where)
    scan = _written(scan_files(files, asserts=True, warns=True, context=context, store=store))
    store.save({path: blob_id(data) for path, data in files.items()})
    return scan, store


def _entries(store: FactStore) -> list[Path]:
    return [e for e in store.folder.iterdir()
            if not e.name.startswith(".") and e.name != "key" and e.name not in (store.pack, store.added_name())]


def test_the_pack_of_a_folder_holds_what_its_runs_read_and_is_read_whole(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    files = _library()
    expected = _scan(files, None)
    first, store = _packed_scan(files, tmp_path / "lib")
    assert first == expected
    assert store.pack is not None and (store.folder / store.pack).is_file()
    # A check (no callers or names: it reads no index) saves the pack too, and keeps what the files now hold.
    assert _packed_scan(files, tmp_path / "lib", context=False)[0] == _written(
        scan_files(files, asserts=True, warns=True, context=False))
    # The calls are read only when the helpers change, the indexes only when the kept join is made again: the pack
    # holds neither, though this run made them.
    assert {"calls", "index"} <= {e.part for e in store.used.values()}
    assert {e.part for e in FactStore.open(True, True, tmp_path / "lib").packed.values()} == {
        "", "annotations", "raisers", "own"}
    for entry in _entries(store):
        entry.unlink()
    found = _puts(monkeypatch)
    assert _packed_scan(files, tmp_path / "lib")[0] == expected
    assert found == []  # every file's sites and callers taken from the pack: nothing found again
    # Another folder has a pack of its own: without the entries, it finds everything again.
    assert _packed_scan(files, tmp_path / "other")[0] == expected
    assert sorted(found) == sorted(p for p in files)


def _let_go_of_what_a_run_did_not_use(store: FactStore, run: Callable[[], object]) -> None:
    """Do `run`, then delete what it did not read or write, as the Action does before it saves the folder: every
    file of the facts folder whose time is not newer than the run's start."""
    long_ago = time.time() - 3600
    for entry in store.folder.iterdir():
        os.utime(entry, (long_ago, long_ago))
    run()
    for entry in store.folder.iterdir():
        if entry.name != "key" and entry.stat().st_mtime <= long_ago:
            entry.unlink()


def test_what_a_run_read_from_the_pack_outlives_letting_go_of_what_it_did_not_use(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = _library()
    files.update({f"lib/plain_{n}.py": f"def f_{n}(x):\n    raise ValueError('bad value {n}')\n".encode()
                  for n in range(30)})
    _, store = _packed_scan(files, tmp_path / "lib")
    # A run that changes nothing, then one after a small edit (what it made goes to the entry of what was added): each
    # reads the other files from the pack and leaves each of them only there.
    _let_go_of_what_a_run_did_not_use(store, lambda: _packed_scan(files, tmp_path / "lib"))
    files["lib/plain_3.py"] = files["lib/plain_3.py"].replace(b"bad value", b"wrong value")
    _let_go_of_what_a_run_did_not_use(store, lambda: _packed_scan(files, tmp_path / "lib"))
    found = _puts(monkeypatch)
    assert _packed_scan(files, tmp_path / "lib")[0] == _scan(files, None) and found == []


def test_a_damaged_or_foreign_pack_is_never_trusted(tmp_path: Path) -> None:
    files = _library()
    expected, store = _packed_scan(files, tmp_path / "lib")
    assert store.pack is not None
    pack = store.folder / store.pack
    data = pack.read_bytes()
    pack.write_bytes(data[:100] + bytes([data[100] ^ 0xFF]) + data[101:])
    assert FactStore.open(True, True, tmp_path / "lib").packed == {}
    # One made with another user's key (a copied cache folder): right shape, wrong signature.
    other = FactStore(store.folder, os.urandom(32), store.salt, store.pack)
    other.used = dict(store.used)
    other.save({path: blob_id(data) for path, data in files.items()})
    assert FactStore.open(True, True, tmp_path / "lib").packed == {}
    again, rescan = _packed_scan(files, tmp_path / "lib")
    assert again == expected  # read from the entries, and packed again
    assert rescan.used and FactStore.open(True, True, tmp_path / "lib").packed == rescan.used


def test_a_run_that_changes_nothing_writes_no_pack(tmp_path: Path) -> None:
    files = _library()
    _packed_scan(files, tmp_path / "lib")  # the first run packs the calls it made, which the next lets go
    _, store = _packed_scan(files, tmp_path / "lib")
    assert store.pack is not None
    before = (store.folder / store.pack).stat()
    _packed_scan(files, tmp_path / "lib")
    after = (store.folder / store.pack).stat()
    assert (after.st_ino, after.st_size) == (before.st_ino, before.st_size)
    files["lib/cli.py"] += b"\n# a comment\n"
    _packed_scan(files, tmp_path / "lib")
    assert (store.folder / store.pack).stat().st_ino != before.st_ino


def test_a_small_change_adds_to_the_pack_and_a_large_one_writes_it_whole(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    files = _library()
    files.update({f"lib/plain_{n}.py": f"def f_{n}(x):\n    raise ValueError('bad value {n}')\n".encode()
                  for n in range(30)})
    _, store = _packed_scan(files, tmp_path / "lib")
    assert store.pack is not None
    whole, added = store.folder / store.pack, store.folder / store.added_name()
    written = whole.read_bytes()
    # One file edited: the pack written whole stays as it is; what the edit made goes to the entry of what was added.
    files["lib/plain_3.py"] = files["lib/plain_3.py"].replace(b"bad value", b"wrong value")
    expected = _scan(files, None)
    assert _packed_scan(files, tmp_path / "lib")[0] == expected
    assert whole.read_bytes() == written
    assert {e.path for e in FactStore.open(True, True, tmp_path / "lib").added.values()} == {"lib/plain_3.py"}
    for entry in _entries(store):
        entry.unlink()
    found = _puts(monkeypatch)
    assert _packed_scan(files, tmp_path / "lib")[0] == expected and found == []  # all of it read from the two
    # Most files edited: the pack is written whole again, with nothing of the files as they were, and nothing added.
    for n in range(20):
        files[f"lib/plain_{n}.py"] += b"# edited\n"
    assert _packed_scan(files, tmp_path / "lib")[0] == _scan(files, None)
    assert whole.read_bytes() != written
    reopened = FactStore.open(True, True, tmp_path / "lib")
    assert reopened.added == {} and reopened.whole
    assert all(blob_id(files[e.path]) == e.blob for e in reopened.whole.values() if e.path)
