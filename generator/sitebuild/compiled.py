"""Compiled templates kept across builds, each file authenticated with the user's cache key.

A compiled template is code that a build runs, so only code this user's builds compiled is ever
loaded: each file starts with a code made with the user's cache key (`paths.key`) from the rest,
checked before anything of the file is decoded. The rest is the template's source checksum, the
Jinja and Python versions, and the code as `marshal` writes it (as Python keeps its own compiled
modules); Jinja's own format, which unpickles its header first, is not used. A file that fails
the check, is damaged or is of other versions is compiled again and replaced.
"""

from __future__ import annotations

import hashlib
import hmac
import marshal
import os
import sys
from pathlib import Path

import jinja2
from jinja2.bccache import Bucket, BytecodeCache

from .write import process_running

CODE_BYTES = 32
"""Length of the authentication code that opens each file."""
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
BINARY = getattr(os, "O_BINARY", 0)


class CompiledTemplates(BytecodeCache):
    """Compiled templates in a folder of the user's cache (`paths.templates_path`), by template and source."""

    def __init__(self, folder: Path, key: bytes) -> None:
        self.folder = folder
        """The folder, proven the user's own."""
        self.key = key
        """The user's cache key."""
        for stale in folder.glob("*.tmp-*"):
            pid = stale.name.rpartition("-")[2]
            if not pid.isdigit() or not process_running(int(pid)):
                stale.unlink(missing_ok=True)

    def load_bytecode(self, bucket: Bucket) -> None:
        """Fill `bucket` from its file when the file is this user's, whole and current."""
        try:
            fd = os.open(self._path(bucket), os.O_RDONLY | NOFOLLOW | BINARY)
        except OSError:
            return
        with os.fdopen(fd, "rb") as file:
            data = file.read()
        code, body = data[:CODE_BYTES], data[CODE_BYTES:]
        if not hmac.compare_digest(code, self._code(bucket, body)):
            return
        header, _, compiled = body.partition(b"\n")
        if header != self._header(bucket):
            return
        try:
            bucket.code = marshal.loads(compiled)
        except (EOFError, ValueError, TypeError):
            return  # a Python that writes marshal data otherwise: compiled again

    def dump_bytecode(self, bucket: Bucket) -> None:
        """Write `bucket` to its file, whole or not at all."""
        body = self._header(bucket) + b"\n" + marshal.dumps(bucket.code)
        path = self._path(bucket)
        temporary = path.with_name(f"{path.name}.tmp-{os.getpid()}")
        temporary.unlink(missing_ok=True)  # a leftover of a stopped process that had this id
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW | BINARY, 0o600)
        with os.fdopen(fd, "wb") as file:
            file.write(self._code(bucket, body) + body)
        os.replace(temporary, path)

    def _path(self, bucket: Bucket) -> Path:
        return self.folder / f"{bucket.key}.code"

    def _code(self, bucket: Bucket, body: bytes) -> bytes:
        return hmac.digest(self.key, bucket.key.encode() + b"\0" + body, hashlib.sha256)

    @staticmethod
    def _header(bucket: Bucket) -> bytes:
        return f"{bucket.checksum} jinja2-{jinja2.__version__} {sys.implementation.cache_tag}".encode()
