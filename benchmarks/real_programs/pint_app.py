"""A recipe scaler that converts quantities with pint, and the mistakes its users make.

Run: python pint_app.py USE  (one of USES; each fails as a user's program would).
"""

import sys

import pint

DISTRIBUTION = "pint==0.25.3"
PACKAGE = "pint"
REPO = "hgrecco/pint"

ureg = pint.UnitRegistry()
Q = ureg.Quantity


def scale(amount: str, unit: str, into: str) -> object:
    """Return `amount unit` in `into`, as the program's users ask for it."""
    return Q(float(amount), unit).to(into)


def total(*parts: object) -> object:
    """Return the sum of quantities."""
    result = parts[0]
    for part in parts[1:]:
        result = result + part
    return result


USES = {
    "length into time": lambda: scale("3", "meter", "second"),
    "length into nothing": lambda: scale("3", "meter", ""),
    "mass into volume": lambda: Q(3, "kg").ito("liter"),
    "magnitude in a wrong unit": lambda: Q(3, "kg").m_as("second"),
    "speed into mass flow": lambda: Q(3, "m/s").to("kg/s"),
    "misspelt unit": lambda: Q(3, "meterz"),
    "misspelt unit in a string": lambda: ureg("5 furlongz"),
    "unit as an attribute": lambda: ureg.parsec_typo,
    "number written out": lambda: Q("three meters"),
    "adding length and time": lambda: total(Q(1, "m"), Q(1, "s")),
    "adding two temperatures": lambda: total(Q(10, "degC"), Q(5, "degC")),
    "temperature times length": lambda: Q(10, "degC") * Q(2, "meter"),
    "squaring a temperature": lambda: Q(10, "degC") ** 2,
    "float of a length": lambda: float(Q(3, "m")),
    "int of a mass": lambda: int(Q(3, "kg")),
    "power with a unit": lambda: Q(2) ** Q(3, "m"),
    "comparing length and time": lambda: Q(1, "m") < Q(1, "s"),
    "comparing with a bare number": lambda: Q(1, "m") > 0.5,
    "wrapped function given a mass": lambda: ureg.wraps(ureg.meter, ureg.second)(lambda x: x)(Q(1, "kg")),
    "checked function given a mass": lambda: ureg.check("[length]")(lambda x: x)(Q(1, "kg")),
    "unknown dimension": lambda: ureg.get_dimensionality("[lengthx]"),
    "unknown system": lambda: setattr(ureg, "default_system", "martian"),
    "unknown context": lambda: Q(3, "m").to("Hz", "nonexistent_ctx"),
    "list without numpy": lambda: Q([1, 2], "m").to("s"),
    "bad format spec": lambda: format(Q(3, "m"), "~Z"),
    "dangling operator": lambda: ureg.parse_expression("3 meter +"),
}

if __name__ == "__main__":
    USES[sys.argv[1]]()
