"""A shop's command line built with click, and the command lines its users get wrong.

Run: python click_app.py USE  (one of USES; each runs the command line it names, which fails).
"""

import sys

import click

DISTRIBUTION = "click==8.3.1"
PACKAGE = "click"
REPO = "pallets/click"


@click.group()
def shop() -> None:
    """Order things."""


@shop.command()
@click.argument("item")
@click.option("--count", type=int, default=1)
@click.option("--price", type=float)
@click.option("--rating", type=click.IntRange(1, 5))
@click.option("--discount", type=click.FloatRange(0, 1))
@click.option("--size", type=click.Choice(["S", "M", "L"]))
@click.option("--gift", type=bool)
@click.option("--order-id", type=click.UUID)
@click.option("--deliver-on", type=click.DateTime(["%Y-%m-%d"]))
@click.option("--receipt", type=click.Path(exists=True))
@click.option("--export-dir", type=click.Path(file_okay=False, exists=True))
@click.option("--notes", type=click.File("r"))
@click.option("--box", type=(int, int))
@click.option("--express", is_flag=True)
def order(**options: object) -> None:
    """Order an item."""


@shop.command()
@click.option("--name", required=True)
@click.option("--password", prompt=False, required=True)
def login(name: str, password: str) -> None:
    """Log in."""


@shop.command()
@click.argument("first", type=int)
@click.argument("rest", nargs=-1, required=True)
def compare(first: int, rest: tuple[str, ...]) -> None:
    """Compare items."""


CLI = shop

USES = {
    "count as a word": ["order", "tea", "--count", "ten"],
    "price as a word": ["order", "tea", "--price", "cheap"],
    "rating out of range": ["order", "tea", "--rating", "9"],
    "discount out of range": ["order", "tea", "--discount", "1.5"],
    "size not offered": ["order", "tea", "--size", "XL"],
    "gift not a boolean": ["order", "tea", "--gift", "perhaps"],
    "order id not a UUID": ["order", "tea", "--order-id", "12-34"],
    "date in another format": ["order", "tea", "--deliver-on", "01/02/2024"],
    "receipt does not exist": ["order", "tea", "--receipt", "/nonexistent/receipt.pdf"],
    "export folder does not exist": ["order", "tea", "--export-dir", "/nonexistent/exports"],
    "notes file cannot be opened": ["order", "tea", "--notes", "/nonexistent/notes.txt"],
    "box with one number": ["order", "tea", "--box", "3"],
    "box with a word": ["order", "tea", "--box", "3", "wide"],
    "flag given a value": ["order", "tea", "--express=yes"],
    "option misspelt": ["order", "tea", "--cuont", "2"],
    "unknown option": ["order", "tea", "--colour", "red"],
    "item left out": ["order"],
    "two items": ["order", "tea", "cake"],
    "option without its value": ["order", "tea", "--count"],
    "unknown command": ["oder", "tea"],
    "name left out": ["login", "--password", "x"],
    "password left out": ["login", "--name", "ann"],
    "first argument as a word": ["compare", "one", "two"],
    "rest left out": ["compare", "1"],
}

if __name__ == "__main__":
    CLI.main(USES[sys.argv[1]], prog_name="shop")
