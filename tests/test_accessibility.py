"""axe-core, injected into headless Chromium, finds no WCAG 2.1 AA violation, in light and in dark."""

from __future__ import annotations

from typing import Any

import pytest

from browser_support import SCHEMES, VIEWS, Sites, Tab, View, open_tab, require_axe

pytestmark = [pytest.mark.browser, pytest.mark.node]

TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
EVERY_PAGE_OF = ["basic", "hostile"]  # small sites; the embedded and synthetic ones through their views


def axe(tab: Tab) -> list[dict[str, Any]]:
    """Return the violations axe-core finds on the page as it is now.

    A tab opened with `scripts=(require_axe(),)` has axe-core in every page already; any other gets it now.
    """
    if not tab.page.evaluate("typeof window.axe === 'object' && typeof window.axe.run === 'function'"):
        tab.page.add_script_tag(path=str(require_axe()))
    return tab.page.evaluate(
        """tags => axe.run(document, {runOnly: {type: "tag", values: tags}, resultTypes: ["violations"]})
                   .then(result => result.violations.map(v => ({
                     id: v.id, impact: v.impact, help: v.help,
                     nodes: v.nodes.map(n => n.target.join(" ") + ": " + n.failureSummary.split("\\n").slice(1, 3).join(" "))
                   })))""",
        TAGS,
    )


def described(violations: list[dict[str, Any]]) -> str:
    """Return the violations as readable lines, a few nodes each."""
    lines = []
    for v in violations:
        lines.append(f"{v['id']} ({v['impact']}): {v['help']}")
        lines += [f"    {node[:300]}" for node in v["nodes"][:5]]
    return "\n".join(lines)


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("view", VIEWS, ids=[v.name for v in VIEWS])
def test_no_violations_on_each_view(browser: Any, sites: Sites, server_url: str, view: View, scheme: str) -> None:
    with open_tab(browser, server_url, 1280, scheme, scripts=(require_axe(),)) as tab:
        view.show(tab, sites)
        violations = axe(tab)
    assert violations == [], described(violations)


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("name", EVERY_PAGE_OF)
def test_no_violations_on_every_page(browser: Any, sites: Sites, server_url: str, name: str, scheme: str) -> None:
    site = sites[name]
    found = {}
    with open_tab(browser, server_url, 360, scheme, scripts=(require_axe(),)) as tab:
        for page in site.pages():
            tab.page.goto(site.url(page), wait_until="load")
            violations = axe(tab)
            if violations:
                found[page] = described(violations)
    assert found == {}, "\n".join(f"{page}:\n{text}" for page, text in found.items())
