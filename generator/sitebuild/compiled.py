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
import tempfile
from pathlib import Path

import jinja2
from jinja2.bccache import Bucket, BytecodeCache

from .paths import read_cached
from .write import process_running

CODE_BYTES = 32
"""Length of the authentication code that opens each file."""
MAX_COMPILED_BYTES = 64 * 1024 * 1024
"""The largest compiled template read back (errorsite's largest is well under a megabyte)."""


class CompiledTemplates(BytecodeCache):
    """Compiled templates in a folder of the user's cache (`paths.templates_path`), by template and source."""

    def __init__(self, folder: Path, key: bytes) -> None:
        self.folder = folder
        """The folder, proven the user's own."""
        self.key = key
        """The user's cache key."""
        for stale in folder.glob("*.tmp-*"):
            pid = stale.name.rpartition(".tmp-")[2].partition("-")[0]
            if not pid.isdigit() or not process_running(int(pid)):
                stale.unlink(missing_ok=True)

    def load_bytecode(self, bucket: Bucket) -> None:
        """Fill `bucket` from its file when the file is this user's, whole and current."""
        data = read_cached(self._path(bucket), MAX_COMPILED_BYTES)
        if data is None:
            return
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
        # A random name, created exclusively without following a link (`mkstemp`); the process id in it lets a
        # later build remove what a stopped one left.
        fd, temporary = tempfile.mkstemp(dir=self.folder, prefix=f"{path.name}.tmp-{os.getpid()}-")
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
