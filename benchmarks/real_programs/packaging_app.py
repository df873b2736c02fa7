"""A dependency checker that reads requirements, versions and file names with packaging, and the inputs it gets.

Run: python packaging_app.py USE  (one of USES; each fails as a user's program would).
"""

import sys

from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.specifiers import Specifier, SpecifierSet
from packaging.tags import parse_tag
from packaging.utils import canonicalize_version, parse_sdist_filename, parse_wheel_filename
from packaging.version import Version

DISTRIBUTION = "packaging==26.4"
PACKAGE = "packaging"
REPO = "pypa/packaging"


def requirements(text: str) -> list[Requirement]:
    """Return the requirements of a requirements file's text."""
    return [Requirement(line) for line in text.splitlines() if line.strip()]


USES = {
    "extras not closed": lambda: requirements("foo["),
    "space in a name": lambda: requirements("foo bar"),
    "marker without a value": lambda: requirements("foo >= 1.0 ; python_version >"),
    "URL left out": lambda: requirements("name @ "),
    "extras without a comma": lambda: requirements("foo[bar baz]"),
    "parenthesis not closed": lambda: requirements("foo (>=1.0"),
    "no name": lambda: requirements("==1.0"),
    "arrow the wrong way": lambda: requirements("foo =>1.0"),
    "version with words": lambda: Version("1.0-foo-bar"),
    "empty version part": lambda: Version("1..2"),
    "version compared to a string": lambda: Version("1.0") < "2.0",
    "specifier the wrong way": lambda: Specifier("=>1.0"),
    "compatible release of one part": lambda: Specifier("~=1"),
    "specifier set with a word": lambda: SpecifierSet(">=1.0,foo"),
    "marker ends with and": lambda: Marker("os_name == 'nt' and"),
    "unknown marker variable": lambda: Marker("foo == 'bar'"),
    "wheel name of an sdist": lambda: parse_wheel_filename("foo.tar.gz"),
    "wheel name short of a part": lambda: parse_wheel_filename("foo-1.0-py3-none.whl"),
    "wheel name with double underscore": lambda: parse_wheel_filename("foo__bar-1.0-py3-none-any.whl"),
    "wheel name with a bad version": lambda: parse_wheel_filename("foo-1.x.y-py3-none-any.whl"),
    "sdist name of a wheel": lambda: parse_sdist_filename("foo-1.0.whl"),
    "sdist name without a version": lambda: parse_sdist_filename("foo.tar.gz"),
    "sdist name with a bad version": lambda: parse_sdist_filename("foo-bar.tar.gz"),
    "tag of two parts": lambda: parse_tag("py3-none"),
    "canonical version of a word": lambda: canonicalize_version(Version("one")),
}

if __name__ == "__main__":
    USES[sys.argv[1]]()
