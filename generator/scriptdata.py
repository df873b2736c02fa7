"""JSON that a page carries inside a `<script>` element, or that a script file hands to the page.

Inside `<script>` the HTML parser looks for more than `</script`: `<!--` followed by `<script`
makes it skip the next `</script>`, so the element swallows the rest of the page. All three start
with `<`, which JSON holds only inside strings; written `\\u003c` there, it reads the same to
`JSON.parse`, to JavaScript and to Python, and the parser finds no `<` to act on.
"""

from __future__ import annotations

from typing import AnyStr


def script_safe(json: AnyStr) -> AnyStr:
    """Return JSON text with every `<` written `\\u003c`, safe to put inside a `<script>` element."""
    if isinstance(json, bytes):
        return json.replace(b"<", b"\\u003c")
    return json.replace("<", "\\u003c")
