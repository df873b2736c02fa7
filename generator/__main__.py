"""`python -m errorsite` is the `errorsite` command."""

from .cli import run

run()
