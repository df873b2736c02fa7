"""A settings editor that reads and writes TOML with tomlkit, and the mistakes its users make.

Run: python tomlkit_app.py USE  (one of USES; each fails as a user's program would).
"""

import sys

import tomlkit

DISTRIBUTION = "tomlkit==0.15.3"
PACKAGE = "tomlkit"
REPO = "python-poetry/tomlkit"


def load(text: str) -> object:
    """Return the settings in `text`, as the editor reads a file."""
    return tomlkit.parse(text)


USES = {
    "value left out": lambda: load("a = "),
    "unquoted string": lambda: load("name = hello world"),
    "key given twice": lambda: load("a = 1\na = 2"),
    "table given twice": lambda: load("[t]\nx=1\n[t]\ny=2"),
    "key then table of that name": lambda: load("a = 1\n[a]\nb=2"),
    "month 13": lambda: load("d = 2020-13-45"),
    "hour 25": lambda: load("t = 25:61:00"),
    "string not closed": lambda: load('s = "abc'),
    "array not closed": lambda: load("a = [1, 2"),
    "table header not closed": lambda: load("[table"),
    "unknown escape": lambda: load('s = "\\q"'),
    "double underscore in a number": lambda: load("n = 1__0"),
    "hex digits wrong": lambda: load("h = 0xZZ"),
    "bare key alone": lambda: load("key"),
    "no key": lambda: load("= 1"),
    "boolean capitalised": lambda: load("b = True"),
    "control character": lambda: load('s = "a\x01b"'),
    "empty array item": lambda: load("a = [1,,2]"),
    "two values": lambda: load("a = 1 2"),
    "inline table key twice": lambda: load("t = {a = 1, a = 2}"),
    "array then array of tables": lambda: load("a = [1]\n[[a]]\nb = 1"),
    "object as an item": lambda: tomlkit.item(object()),
    "missing key": lambda: load("a = 1")["b"],
    "append an existing key": lambda: load("a = 1").append("a", 2),
    "dumps a list": lambda: tomlkit.dumps([1, 2]),
}

if __name__ == "__main__":
    USES[sys.argv[1]]()
