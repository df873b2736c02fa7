"""`python -m generator` is the `errorsite` command."""

from .cli import run

run()
