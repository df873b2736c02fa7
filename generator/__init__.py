"""errorsite: turn a library's errors into a static, searchable error reference."""

__version__ = "0.1.0"
