"""{path: bytes} -> the output folder, atomically (the only writer of the site)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable, Mapping
from pathlib import Path

from .problems import UserError

MARKER = ".errorsite-build"
"""Marks a folder as errorsite's output, which a later build may replace."""
MARKER_TEXT = b"This folder is written by errorsite build and replaced by the next build.\n"


def check_output(out: Path) -> None:
    """Raise a UserError unless `out` is missing, empty, or an earlier build's output."""
    if not out.exists():
        return
    if not out.is_dir():
        raise UserError(
            f"output {str(out)!r} exists and is not a folder",
            hint="choose another --out, or move the file away",
            page="output-is-a-file",
        )
    if any(out.iterdir()) and not (out / MARKER).is_file():
        raise UserError(
            f"output folder {str(out)!r} is not empty and was not written by errorsite",
            hint="errorsite only replaces its own output; choose another --out or empty the folder",
            page="output-not-ours",
        )


def write_site(files: Mapping[str, bytes], out: Path) -> None:
    """Write `files` into a fresh folder beside `out`, then swap it in for `out`."""
    check_output(out)
    out = out.absolute()
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = out.with_name(f".{out.name}.new-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    try:
        for path, body in files.items():
            target = staging / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(body)
        (staging / MARKER).write_bytes(MARKER_TEXT)
        _swap(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def staging_folder(out: Path) -> Path:
    """Return a fresh, empty folder beside `out` to write a build into before it is committed."""
    out = out.absolute()
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = out.with_name(f".{out.name}.new-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    return staging


def write_file(staging: Path, path: str, body: bytes) -> None:
    """Write one file of the site into the staging folder."""
    target = staging / path
    try:
        target.write_bytes(body)
    except FileNotFoundError:
        # Most folders exist already: asking first would cost a system call for every file.
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(body)


def commit_all(staging: Path, out: Path) -> None:
    """Mark the staging folder, which holds the whole site, and swap it in for `out`."""
    check_output(out)
    try:
        (staging / MARKER).write_bytes(MARKER_TEXT)
        _swap(staging, out.absolute())
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def commit_changes(staging: Path, out: Path, changed: Iterable[str], gone: Iterable[str]) -> None:
    """Move the `changed` files from staging into our own output `out`, and delete the files in `gone`.

    Only for an output folder an earlier build wrote (it has the marker) and whose files the
    caller knows; every file was written to staging first, so a failed render changes nothing.
    """
    if not (out / MARKER).is_file():
        raise UserError(
            f"output folder {str(out)!r} lost errorsite's marker file during the build",
            hint="another program changed the folder meanwhile; look at it, remove it yourself if it is "
            "safe to, and build again, or choose another --out",
            page="output-changed-during-build",
        )
    try:
        for path in changed:
            target = out / path
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(staging / path, target)
        folders = set()
        for path in gone:
            (out / path).unlink(missing_ok=True)
            folders.update((out / path).parents)
        for folder in sorted(folders, key=lambda f: len(f.parts), reverse=True):
            if folder != out and out in folder.parents and folder.is_dir() and not any(folder.iterdir()):
                folder.rmdir()
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _swap(staging: Path, out: Path) -> None:
    if not out.exists():
        staging.rename(out)
        return
    old = out.with_name(f".{out.name}.old-{os.getpid()}")
    out.rename(old)
    try:
        staging.rename(out)
    except BaseException:
        old.rename(out)
        raise
    shutil.rmtree(old)
