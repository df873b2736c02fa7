"""errorsite documents its own errors: every printed URL has a written page, kept in step with the code."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from errorsite import cli, load, validate
from errorsite.problems import REFERENCE_URL

ROOT = Path(__file__).resolve().parent.parent
CONTENT = ROOT / "content"
PAGE_IDS = re.compile(r'page="([a-z0-9-]+)"|errorsite\.github\.io/errorsite/errors/([a-z0-9-]+)/')


def pages_named_in_code() -> set[str]:
    found = set()
    for path in (ROOT / "generator").rglob("*.py"):
        for match in PAGE_IDS.finditer(path.read_text(encoding="utf-8")):
            found.add(match.group(1) or match.group(2))
    return found


def records() -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in (CONTENT / "errors").glob("*.json")}


def test_every_page_the_code_names_has_a_record() -> None:
    named = pages_named_in_code() - {"problems-found"}  # a summary line; each problem links its own page
    assert len(named) >= 15
    assert sorted(named - set(records())) == []


def test_each_page_is_named_at_one_place_in_the_code() -> None:
    # One page per raise site: a record documents one snippet, so a second place raising its page goes undocumented.
    places: dict[str, list[str]] = {}
    for path in sorted((ROOT / "generator").rglob("*.py")):
        for match in re.finditer(r'page="([a-z0-9-]+)"', path.read_text(encoding="utf-8")):
            places.setdefault(match.group(1), []).append(path.relative_to(ROOT).as_posix())
    assert {page: where for page, where in places.items() if len(where) > 1} == {}


def test_the_reference_is_valid_and_fully_written() -> None:
    site = validate.build_site(load.load(CONTENT))
    assert site.config.base_url == REFERENCE_URL
    unwritten = [r.id for r in site.records
                 if not (r.meaning and r.solutions and r.example_fix and r.when and r.related and r.analysis)]
    assert unwritten == []


def test_records_are_pinned_to_this_repository_and_cover_every_raise(capsys: pytest.CaptureFixture[str]) -> None:
    status = cli.main(["check", "--content", str(CONTENT), "--source", str(ROOT), "--strict"])
    out = capsys.readouterr()
    assert status == 0, out.out + out.err
    assert "(100.0%)" in out.out


def test_a_printed_url_leads_to_a_built_page(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["build", "--content", str(CONTENT), "--out", str(tmp_path / "site"), "--quiet"]) == 0
    assert cli.main(["check", "--content", str(tmp_path / "missing")]) == 1
    url = re.search(r"see (\S+)", capsys.readouterr().err).group(1)
    assert url.startswith(REFERENCE_URL)
    assert (tmp_path / "site" / url.removeprefix(REFERENCE_URL) / "index.html").is_file()
