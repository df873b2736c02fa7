"""errorsite verify: each outcome of a check, what it writes into records, and errorsite's own checks."""

from __future__ import annotations

import datetime
import json
import os
import shutil
import sys
import unicodedata
from pathlib import Path
from typing import Any

import pytest

from errorsite import cli, verify
from errorsite.recordjson import dumps

ROOT = Path(__file__).resolve().parent.parent
TODAY = "2026-12-01"
PIN = "4f2a9c1d0b7e"
FAILS = "echo 'OSError: disk full while writing /full/disk' >&2; exit 1"


def record(record_id: str, exception: str, message: str, path: str, **check: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": record_id, "exception": exception, "message": message,
        "source": {"commit": PIN, "path": path, "line": 2,
                   "snippet": {"start": 1, "code": f"def f(x):\n    raise {exception}(x)\n"}},
        "example_fix": {"before": "mylib save /full/disk", "after": "mylib save /tmp/out"},
    }
    if check:
        data["example_fix"]["check"] = check
    return data


def disk_full(**check: Any) -> dict[str, Any]:
    return record("disk-full", "OSError", "disk full while writing {path}", "mylib/store.py", **check)


def chunk_too_big(**check: Any) -> dict[str, Any]:
    return record("chunk-too-big", "ValueError", "chunk_size ({chunk}) must not exceed {budget}", "mylib/config.py",
                  **check)


def make_content(folder: Path, *records: dict[str, Any], settings: str = "") -> Path:
    (folder / "errors").mkdir(parents=True)
    (folder / "site.toml").write_text('title = "mylib errors"\nrepo = "acme/mylib"\n' + settings, encoding="utf-8")
    for data in records:
        (folder / "errors" / f"{data['id']}.json").write_text(dumps(data), encoding="utf-8")
    return folder


def run(content: Path, capsys: pytest.CaptureFixture[str], *ids: str) -> tuple[int, str, str]:
    status = cli.main(["verify", "--content", str(content), *ids])
    out = capsys.readouterr()
    return status, out.out, out.err


def read(content: Path, record_id: str) -> dict[str, Any]:
    return json.loads((content / "errors" / f"{record_id}.json").read_text(encoding="utf-8"))


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {str(p): (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_check_that_holds_is_recorded_with_the_pin_and_the_date(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    content = make_content(tmp_path / "content", disk_full(before=FAILS, after="echo saved"), chunk_too_big())
    status, out, err = run(content, capsys)
    assert (status, err) == (0, "")
    assert out.startswith("1 of 1 checks held, 0 failed; 1 record file updated")
    verified = read(content, "disk-full")["example_fix"]["verified"]
    assert verified["commit"] == PIN and verified["by"] == "errorsite verify"
    assert verified["date"] == datetime.datetime.now(datetime.timezone.utc).date().isoformat()
    assert "verified" not in read(content, "chunk-too-big")["example_fix"]


def test_before_that_does_not_fail(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    content = make_content(tmp_path / "content", disk_full(before="echo 'disk full while writing /full/disk'", after="true"))
    status, out, err = run(content, capsys)
    assert status == 1
    assert f"{content}/errors/disk-full.json: /example_fix/check/before: the example check does not hold: " \
           "`before` exited with status 0; it must fail with this error" in err
    assert "  $ echo 'disk full while writing /full/disk'\n  exit status 0; the end of its output:\n" \
           "    | disk full while writing /full/disk\n" in err
    assert err.rstrip().endswith("see https://errorsite.github.io/errorsite/errors/example-check-failed/")
    assert "0 of 1 checks held, 1 failed" in out


def test_before_that_fails_with_another_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = "echo 'ValueError: chunk_size (8192) must not exceed 4096' >&2; exit 1"
    content = make_content(tmp_path / "content", disk_full(before=other, after="true"), chunk_too_big())
    status, _, err = run(content, capsys)
    assert status == 1
    assert "lookup finds record 'chunk-too-big' first in the output of `before`, not this one" in err


def test_before_that_fails_without_any_known_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    content = make_content(tmp_path / "content", disk_full(before="echo 'Segmentation fault' >&2; exit 139", after="true"))
    status, _, err = run(content, capsys)
    assert status == 1
    assert "the output of `before` matches no record: it failed with another error" in err
    assert "exit status 139" in err


def test_before_that_shares_only_words_with_the_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    content = make_content(tmp_path / "content", disk_full(before="mylib-that-is-not-installed save", after="true"))
    status, _, err = run(content, capsys)
    assert status == 1
    assert ("lookup finds this record in the output of `before` by shared words only, "
            "not by its message or its page's URL") in err
    assert "exit status 127" in err


def test_a_traceback_must_raise_in_the_records_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def traceback(path: str) -> str:
        return ("printf 'Traceback (most recent call last):\\n  File \"/venv/lib/app.py\", line 9, in main\\n"
                f"  File \"/venv/lib/python3.12/site-packages/{path}\", line 2, in save\\n"
                "OSError: disk full while writing /full/disk\\n' >&2; exit 1")

    content = make_content(tmp_path / "content", disk_full(before=traceback("mylib/cache.py"), after="true"))
    status, _, err = run(content, capsys)
    assert status == 1
    assert ("the traceback of `before` raises in '/venv/lib/python3.12/site-packages/mylib/cache.py', "
            "not in 'mylib/store.py'") in err
    shutil.rmtree(content)
    content = make_content(content, disk_full(before=traceback("mylib/store.py"), after="true"))
    assert run(content, capsys)[0] == 0


def test_after_that_still_shows_the_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    content = make_content(tmp_path / "content", disk_full(before=FAILS, after=FAILS))
    status, _, err = run(content, capsys)
    assert status == 1
    assert "disk-full.json: /example_fix/check/after: the example check does not hold: " \
           "`after` exited with status 1 and its output still shows this error" in err


def test_after_that_fails_for_another_reason_does_not_show_the_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    content = make_content(tmp_path / "content", disk_full(before=FAILS, after="echo 'cannot connect' >&2; exit 2"))
    assert run(content, capsys)[0] == 0


BASE = 'base_url = "https://acme.github.io/mylib/"\n'


def usage_error(**check: Any) -> dict[str, Any]:
    # A message that is all placeholders: no output matches it as a message; only its page's URL names it.
    return record("usage-error", "SystemExit", "{prog}: {message}", "mylib/cli.py", **check)


def prints(message: str, page: str) -> str:
    """Return a command that fails printing `message` and the URL of the page `page`, as errorsite's errors do."""
    return f"printf '%s\\n  see https://acme.github.io/mylib/errors/%s/\\n' '{message}' {page} >&2; exit 2"


def test_a_link_to_the_records_page_proves_a_message_of_placeholders(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    data = usage_error(before=prints("mylib: unrecognized arguments: --contents", "usage-error"), after="true")
    content = make_content(tmp_path / "content", data, disk_full(), settings=BASE)
    status, _, err = run(content, capsys)
    assert (status, err) == (0, "")
    assert read(content, "usage-error")["example_fix"]["verified"]["commit"] == PIN


def test_a_link_to_another_records_page_does_not_prove(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = usage_error(before=prints("mylib: unrecognized arguments: --contents", "disk-full"), after="true")
    content = make_content(tmp_path / "content", data, disk_full(), settings=BASE)
    status, _, err = run(content, capsys)
    assert status == 1
    assert "lookup finds record 'disk-full' first in the output of `before`, not this one" in err


def test_after_that_still_links_to_the_records_page_shows_the_error(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    data = usage_error(before=prints("mylib: unrecognized arguments: --contents", "usage-error"),
                       after=prints("mylib: the following arguments are required: --out", "usage-error"))
    content = make_content(tmp_path / "content", data, disk_full(), settings=BASE)
    status, _, err = run(content, capsys)
    assert status == 1
    assert "`after` exited with status 2 and its output still shows this error" in err


def test_a_command_is_killed_with_its_children_at_the_timeout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pid_file = tmp_path / "child.pid"
    slow = f"sleep 300 & echo $! > {pid_file}; echo started; wait"
    content = make_content(tmp_path / "content", disk_full(before=slow, after="true"), settings="\n[verify]\ntimeout = 1\n")
    status, _, err = run(content, capsys)
    assert status == 1
    assert "/example_fix/check/before: the example check does not hold: `before` did not finish within 1 s" in err
    assert "killed at the timeout; the end of its output:\n    | started\n" in err
    status_file = Path(f"/proc/{pid_file.read_text().strip()}/status")
    # The background child was killed with the shell: gone, or a zombie nobody has reaped yet.
    assert not status_file.exists() or "\nState:\tZ" in status_file.read_text()


def test_a_file_the_command_needs_is_missing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    content = make_content(tmp_path / "content", disk_full(before="python save.py", after="true"))
    status, _, err = run(content, capsys)
    assert status == 1
    assert "lookup finds this record in the output of `before` by shared words only" in err
    assert "can't open file" in err and "save.py" in err
    shutil.rmtree(content)
    program = 'import sys\nsys.exit("OSError: disk full while writing /full/disk")\n'
    content = make_content(content, disk_full(files={"save.py": program}, before="python save.py", after="true"))
    assert run(content, capsys)[0] == 0


def test_files_that_cannot_be_created(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    clash = {"data": "a file\n", "data/store.toml": "a file inside the file\n"}
    content = make_content(tmp_path / "content", disk_full(files=clash, before=FAILS, after="true"))
    status, _, err = run(content, capsys)
    assert status == 1
    assert "disk-full.json: /example_fix/check/files: the example check does not hold: cannot create its files: " in err


NOISY = """import sys
sys.stdout.write("x" * 5_000_000 + "\\n")
sys.stdout.write("\\x1b]0;owned\\x07\\x1b[2J\\x00\\u202e" + "y" * 1000 + "\\n")
sys.stdout.write("\\x1b[31mdone\\x1b[0m\\r\\n")
"""


def test_hostile_output_is_escaped_and_cut(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    content = make_content(tmp_path / "content", disk_full(files={"noisy.py": NOISY}, before="python noisy.py", after="true"))
    status, _, err = run(content, capsys)
    assert status == 1
    assert "`before` exited with status 0" in err
    assert not [ch for ch in err if ch != "\n" and unicodedata.category(ch) in ("Cc", "Cf")]
    assert "    | \\x1b]0;owned\\x07\\x1b[2J\\x00\\u202eyyy" in err
    assert " more characters)\n    | \\x1b[31mdone\\x1b[0m\n" in err
    assert len(err) < 5_000


def test_huge_output_still_shows_the_error_at_its_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    program = 'import sys\nprint("progress " * 2_000_000)\nsys.exit("OSError: disk full while writing /full/disk")\n'
    content = make_content(tmp_path / "content", disk_full(files={"save.py": program}, before="python save.py", after="true"))
    assert run(content, capsys)[0] == 0


def test_failures_are_printed_in_id_order(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    content = make_content(tmp_path / "content", disk_full(before="sleep 1; true", after="true"),
                           chunk_too_big(before="true", after="true"))
    status, _, err = run(content, capsys)
    assert status == 1
    assert err.index("chunk-too-big.json: /example_fix") < err.index("disk-full.json: /example_fix")


def test_verify_writes_only_the_verified_field_and_a_rerun_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    content = make_content(tmp_path / "content", chunk_too_big())
    path = content / "errors" / "disk-full.json"
    # Not errorsite's own formatting: four spaces, keys out of order, escapes, a final line without a break.
    original = ('{\n    "example_fix": {"after": "mylib save /tmp/out", "before": "mylib save /full/disk",\n'
                f'        "check": {{"before": {json.dumps(FAILS)}, "after": "true"}}}},\n'
                '    "id": "disk-full", "exception": "OSError", "message": "disk full while writing {path}",\n'
                '    "title": "Disk full \\u2014 cannot save",\n'
                f'    "source": {json.dumps(disk_full()["source"])}\n}}')
    path.write_text(original, encoding="utf-8")
    assert run(content, capsys)[0] == 0
    text = path.read_text(encoding="utf-8")
    start = next(i for i, (a, b) in enumerate(zip(original, text)) if a != b)
    assert text[:start] + text[start + len(text) - len(original):] == original
    expected = json.loads(original)
    expected["example_fix"]["verified"] = {"commit": PIN, "date": json.loads(text)["example_fix"]["verified"]["date"],
                                           "by": "errorsite verify"}
    assert json.loads(text) == expected

    before = snapshot(content)
    assert run(content, capsys)[0] == 0
    assert snapshot(content) == before

    # The check fails now: the field goes, and the file is again exactly what it was.
    path.write_text(text.replace(json.dumps(FAILS), '"true"'), encoding="utf-8")
    assert run(content, capsys)[0] == 1
    assert path.read_text(encoding="utf-8") == original.replace(json.dumps(FAILS), '"true"')


def test_errorsite_formatted_records_stay_in_errorsite_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = disk_full(before=FAILS, after="true")
    content = make_content(tmp_path / "content", data)
    assert run(content, capsys)[0] == 0
    written = read(content, "disk-full")
    assert (content / "errors" / "disk-full.json").read_text(encoding="utf-8") == dumps(written)


def test_a_new_pin_gets_a_new_proof_and_an_unchanged_pin_keeps_its_date(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = disk_full(before=FAILS, after="true")
    data["example_fix"]["verified"] = {"commit": PIN, "date": "2026-01-02", "by": "errorsite verify"}
    other = chunk_too_big(before="echo 'ValueError: chunk_size (9) must not exceed 4' >&2; exit 1", after="true")
    other["example_fix"]["verified"] = {"commit": "0bd60711f7e0", "date": "2026-01-02", "by": "errorsite verify"}
    content = make_content(tmp_path / "content", data, other)
    report = verify.verify(content, today=TODAY)
    assert [(o.record.id, o.problem, o.written) for o in report.outcomes] == [("chunk-too-big", None, True),
                                                                                ("disk-full", None, False)]
    assert read(content, "disk-full")["example_fix"]["verified"]["date"] == "2026-01-02"
    assert read(content, "chunk-too-big")["example_fix"]["verified"] == {"commit": PIN, "date": TODAY, "by": "errorsite verify"}


def test_ids_select_the_checks_and_an_unknown_id_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    content = make_content(tmp_path / "content", disk_full(before=FAILS, after="true"),
                           chunk_too_big(before="true", after="true"))
    status, out, _ = run(content, capsys, "disk-full")
    assert status == 0 and out.startswith("1 of 1 checks held")
    status, _, err = run(content, capsys, "disk-ful")
    assert status == 1
    assert err == ("error: no record with an example check has the id 'disk-ful'\n"
                   "  hint: did you mean 'disk-full'?\n"
                   "  see https://errorsite.github.io/errorsite/errors/verify-unknown-id/\n")
    assert "Traceback" not in err


def test_setup_runs_once_in_the_content_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "setup.log"
    content = make_content(tmp_path / "content", disk_full(before=FAILS, after="true"),
                           chunk_too_big(before="echo 'ValueError: chunk_size (9) must not exceed 4' >&2; exit 1", after="true"),
                           settings=f'\n[verify]\nsetup = "test -f site.toml && echo ran >> {log}"\n')
    assert run(content, capsys)[0] == 0
    assert log.read_text() == "ran\n"


def test_a_failing_setup_is_an_error_and_runs_no_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    content = make_content(tmp_path / "content", disk_full(before=FAILS, after="true"),
                           settings='\n[verify]\nsetup = "echo \\"no such package: mylib\\" >&2; exit 3"\n')
    before = snapshot(content)
    status, out, err = run(content, capsys)
    assert (status, out) == (1, "")
    assert err.startswith("error: the [verify] setup command exited with status 3: "
                          "echo \"no such package: mylib\" >&2; exit 3\n    | no such package: mylib\n")
    assert err.endswith("see https://errorsite.github.io/errorsite/errors/verify-setup-failed/\n")
    assert snapshot(content) == before


def test_check_notes_a_proof_of_another_commit_and_the_page_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = disk_full(before=FAILS, after="true")
    data["example_fix"]["verified"] = {"commit": "0bd60711f7e0", "date": "2026-01-02", "by": "errorsite verify"}
    content = make_content(tmp_path / "content", data)
    # Re-pinning moved the code on: a deploy must still go through.
    assert cli.main(["check", "--content", str(content)]) == 0
    out, err = capsys.readouterr()
    assert err == (f"note: {content}/errors/disk-full.json: /example_fix/verified: the example was checked against "
                   f"0bd60711f7e0, but the record is pinned to {PIN} (the page says the code has changed since; "
                   "errorsite verify runs the check again and updates or removes this field)\n"
                   "  see https://errorsite.github.io/errorsite/errors/verified-stale/\n")
    assert out.splitlines()[-1] == (
        "ok: 1 record (1 example checked against older code; `errorsite verify` checks again), no problems")
    assert cli.main(["build", "--content", str(content), "--out", str(tmp_path / "site"), "--quiet"]) == 0
    page = (tmp_path / "site" / "errors" / "disk-full" / "index.html").read_text(encoding="utf-8")
    assert "Example checked against <code>0bd60711f7</code> on 2026-01-02; the code has changed since." in page
    assert run(content, capsys)[0] == 0
    assert cli.main(["check", "--content", str(content)]) == 0
    out, err = capsys.readouterr()
    assert (out.splitlines()[-1], err) == ("ok: 1 record, no problems", "")
    assert cli.main(["build", "--content", str(content), "--out", str(tmp_path / "site"), "--quiet"]) == 0
    page = (tmp_path / "site" / "errors" / "disk-full" / "index.html").read_text(encoding="utf-8")
    assert f"Example checked against <code>{PIN[:10]}</code> on " in page and "changed since" not in page


def test_a_stale_proof_is_no_problem_beside_real_ones(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = disk_full(before=FAILS, after="true")
    data["example_fix"]["verified"] = {"commit": "0bd60711f7e0", "date": "2026-01-02", "by": "errorsite verify"}
    data["soluton"] = []
    content = make_content(tmp_path / "content", data)
    assert cli.main(["check", "--content", str(content)]) == 1
    err = capsys.readouterr().err
    assert "/soluton: unknown field" in err and "1 problem found" in err


def test_with_verified_splices_into_a_record_with_a_byte_order_mark(tmp_path: Path) -> None:
    data = disk_full(before=FAILS, after="true")
    content = make_content(tmp_path / "content", data)
    path = content / "errors" / "disk-full.json"
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    report = verify.verify(content, today=TODAY)
    assert report.outcomes[0].problem is None
    assert path.read_bytes().startswith(b"\xef\xbb\xbf{\n")


def test_every_check_of_errorsites_own_reference_holds(tmp_path: Path) -> None:
    # A copy: the run must not write into the repository's records.
    content = tmp_path / "content"
    shutil.copytree(ROOT / "content", content)
    report = verify.verify(content, today=TODAY)
    assert not report.failed, "\n".join(report.failure_lines())
    assert len(report.outcomes) >= CHECKED
    # The committed proofs are of the records' current pins: the run wrote nothing.
    assert not [o.record.id for o in report.outcomes if o.written]


CHECKED = 97
"""How many own records carry a check (at least): every active one but those in UNCHECKED."""

UNCHECKED = {
    "edit-bad-document": "never the error a run ends with: it is printed before the question whether to edit "
                         "again, and a run then either writes the record (edit again) or stops with "
                         "edit-not-written (keep a copy, and always without a terminal), which lookup rightly "
                         "finds first",
    "output-changed-during-build": "a race: another program must change the output folder after the build has "
                                   "checked its marker and before it swaps the new tree in; nothing outside the "
                                   "build can act in that window on cue",
    "unreadable-folder": "only a permission refuses the listing of a folder that exists, and the checks may run as "
                         "root, whom no permission refuses: nothing makes the listing fail on cue",
    "verified-stale": "a note, not a failure: check still exits 0 (a re-pin must not stop a deploy), so no "
                      "command fails with it, which a check's `before` must",
}
"""Active own records without a check, and why their error cannot be triggered from outside on demand."""


def test_every_active_own_record_has_a_check_unless_listed() -> None:
    records = [json.loads(p.read_text(encoding="utf-8")) for p in sorted((ROOT / "content" / "errors").glob("*.json"))]
    active = [d for d in records if d.get("status", "active") == "active"]
    unchecked = {d["id"] for d in active if "check" not in d.get("example_fix", {})}
    assert sorted(unchecked) == sorted(UNCHECKED)
    assert len(active) - len(unchecked) >= CHECKED


def test_commands_find_this_python_and_errorsite_first_on_the_path(tmp_path: Path) -> None:
    run_ = verify.run_command("command -v python; command -v errorsite", tmp_path, 10)
    folder = str(Path(sys.executable).parent)
    assert run_.status == 0
    assert run_.output.splitlines()[0] == os.path.join(folder, "python")


CONFIG_PY = '''class Config:
    def __init__(self, chunk_size, max_batch_tokens):
        if chunk_size > max_batch_tokens:
            raise ValueError(f"chunk_size ({chunk_size}) must not exceed max_batch_tokens ({max_batch_tokens})")
'''


def test_the_readme_example_a_one_line_program_with_a_real_traceback(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = record("chunk-too-big", "ValueError", "chunk_size ({chunk}) must not exceed max_batch_tokens ({budget})",
                  "mylib/config.py",
                  files={"mylib/__init__.py": "from .config import Config\n", "mylib/config.py": CONFIG_PY},
                  before="python -c 'import mylib; mylib.Config(chunk_size=8192, max_batch_tokens=4096)'",
                  after="python -c 'import mylib; mylib.Config(chunk_size=2048, max_batch_tokens=4096)'")
    content = make_content(tmp_path / "content", data, disk_full())
    assert run(content, capsys)[0] == 0
    assert read(content, "chunk-too-big")["example_fix"]["verified"]["commit"] == PIN


V = '{"commit": "0bd60711f7e0", "date": "2026-01-02", "by": "errorsite verify"}'


@pytest.mark.parametrize("text, expected", [
    # The field first, in the middle and last: removed with its separator, nothing else touched.
    ('{"id": "a", "example_fix": {"verified": ' + V + ', "before": "x", "after": "y"}}',
     '{"id": "a", "example_fix": {"before": "x", "after": "y"}}'),
    ('{"id": "a", "example_fix": {"before": "x",\n  "verified": ' + V + ',\n  "after": "y"}}',
     '{"id": "a", "example_fix": {"before": "x",\n  "after": "y"}}'),
    ('{"example_fix": {"before": "x", "after": "y" , "verified" :' + V + ' } , "id": "a"}\n',
     '{"example_fix": {"before": "x", "after": "y" } , "id": "a"}\n'),
])
def test_removing_verified_leaves_every_other_byte(text: str, expected: str) -> None:
    assert verify.with_verified(text, None) == expected


def test_replacing_verified_changes_only_its_value() -> None:
    text = '{"example_fix": {"verified": ' + V + ', "before": "x", "after": "y"}, "id": "a"}'
    new = {"commit": PIN, "date": TODAY, "by": "errorsite verify"}
    replaced = verify.with_verified(text, new)
    assert replaced.startswith('{"example_fix": {"verified": {\n  "commit": "4f2a9c1d0b7e",\n')
    assert replaced.endswith('}, "before": "x", "after": "y"}, "id": "a"}')
    assert json.loads(replaced)["example_fix"]["verified"] == new
