"""The HTML report's worst-episode filters, driven in a real browser: Playwright over the system Chromium.

The page is opened from ``file://`` (no server); a category and a reason are picked in its two
``<select>`` filters, and the rows and alignment blocks left visible must be exactly the JSON report's
``worst_episodes`` with that category and that reason.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from ekcli import run_ek, write_lines
from playwright.sync_api import sync_playwright  # the test extra installs it; never `playwright install`

CHROMIUM = "/usr/bin/chromium"
#: no network, no updater, no first-run UI; the sandbox needs privileges a CI container lacks
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not os.access(CHROMIUM, os.X_OK),
                       reason=f"no Chromium at {CHROMIUM} (.ci/run installs Debian's chromium package)"),
]


def _call(name: str, **args: Any) -> dict[str, Any]:
    return {"name": name, "arguments": args}


def _corpus(path: Path) -> Path:
    """Episodes in three categories (and none) that lose for different reasons, alone and together."""
    weather, flight = _call("get_weather", city="Oslo"), _call("book", flight="AF1")
    lines: list[Any] = []
    for n, category in enumerate(["maps", "travel", "travel", "maps", None, "travel", "shop", "maps"]):
        kind = n % 4
        if kind == 0:    # wrong_value
            pred, gold = "get_weather(city='Rome')", [weather]
        elif kind == 1:  # missing_call
            pred, gold = "get_weather(city='Oslo')", [weather, flight]
        elif kind == 2:  # extra_call
            pred, gold = "[get_weather(city='Oslo'), book(flight='AF1')]", [weather]
        else:            # wrong_value and missing_call together
            pred, gold = "get_weather(city='Lima')", [weather, flight]
        line: dict[str, Any] = {"id": f"ep-{n}", "pred": pred, "gold": gold}
        if category is not None:
            line["category"] = category
        lines.append(line)
    lines.append({"id": "perfect", "category": "maps", "pred": "get_weather(city='Oslo')", "gold": [weather]})
    return write_lines(path, lines)


def _visible_lines(page: Any, selector: str) -> set[int]:
    return {int(el.get_attribute("data-line")) for el in page.query_selector_all(selector) if el.is_visible()}


def test_html_filters_show_exactly_the_worst_episodes_of_the_chosen_category_and_reason(tmp_path: Path) -> None:
    html, report_json = tmp_path / "report.html", tmp_path / "report.json"
    proc = run_ek("score", _corpus(tmp_path / "c.jsonl"), "--html", html, "--json", report_json,
                  "--worst", "50", "--html-episodes", "50")
    assert proc.returncode == 0, proc.stderr
    worst = json.loads(report_json.read_text(encoding="utf-8"))["worst_episodes"]
    assert len(worst) == 8  # every imperfect episode; the perfect one is never listed

    def matching(category: str | None, reason: str | None) -> set[int]:
        return {e["line"] for e in worst
                if (category is None or (e["category"] or "") == category)
                and (reason is None or reason in {r["reason"] for r in e["reasons"]})}

    # a pair that narrows the list below both filters on their own, so neither filter alone passes the test
    category, reason = "travel", "missing_call"
    expected = matching(category, reason)
    assert expected and expected < matching(category, None) and expected < matching(None, reason)

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.goto(html.as_uri())
            assert _visible_lines(page, "tr.worst-row") == matching(None, None)
            page.select_option("#filter-category", category)
            assert _visible_lines(page, "tr.worst-row") == matching(category, None)
            page.select_option("#filter-reason", reason)
            assert _visible_lines(page, "tr.worst-row") == expected
            assert _visible_lines(page, "div.episode") == expected  # the alignments follow the same filters
            assert page.inner_text("#shown-count") == (
                f"{len(expected)} of {len(worst)} worst episodes shown, {len(expected)} of {len(worst)} alignments")
            page.select_option("#filter-reason", label="all reasons")
            page.select_option("#filter-category", label="(none)")  # the episode without a category
            assert _visible_lines(page, "tr.worst-row") == matching("", None) != set()
            page.select_option("#filter-category", label="all categories")
            assert _visible_lines(page, "div.episode") == matching(None, None)
        finally:
            browser.close()
