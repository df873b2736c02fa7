"""Where the files shipped beside the code are: templates, static assets, embedded content.

An installed wheel carries them inside the package (`errorsite/templates`,
`errorsite/content`); a source checkout, editable installs included, has them
at the repository's top level.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).parent


def shipped(name: str) -> Path:
    """Return the folder `name` inside the installed package, or at the checkout's top."""
    inside = PACKAGE / name
    return inside if inside.is_dir() else PACKAGE.parent / name


def templates_dir() -> Path:
    """Return the folder of Jinja templates and static assets."""
    return shipped("templates")


def embedded_content() -> Path:
    """Return the content folder of errorsite's own error reference."""
    return shipped("content")
