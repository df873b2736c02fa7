"""The wheel carries templates, assets and the embedded reference, and builds the same site anywhere."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_wheel_installed_elsewhere_builds_the_same_site(tmp_path: Path) -> None:
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q",
                    "-w", str(tmp_path / "dist"), str(ROOT)], check=True, capture_output=True)
    wheel = next((tmp_path / "dist").glob("errorsite-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "errorsite/templates/error.html" in names
    assert "errorsite/templates/static/match.js" in names
    assert "errorsite/content/site.toml" in names
    assert any(n.startswith("errorsite/content/errors/") for n in names)
    # The wheel claims no top-level name but its own (`generator` belongs to another distribution).
    assert {n.split("/")[0] for n in names if not n.startswith("errorsite-")} == {"errorsite"}
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(tmp_path / "lib"),
                    str(wheel)], check=True, capture_output=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "lib")}
    result = subprocess.run([sys.executable, "-m", "errorsite", "build", "--quiet"], cwd=elsewhere, env=env,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    here = subprocess.run([sys.executable, "-m", "errorsite", "build", "--quiet", "--content", str(ROOT / "content"),
                           "--out", str(tmp_path / "here")], capture_output=True, text=True)
    assert here.returncode == 0, here.stderr
    built, reference = tree(elsewhere / "site"), tree(tmp_path / "here")
    assert sorted(built) == sorted(reference)
    assert built == reference
