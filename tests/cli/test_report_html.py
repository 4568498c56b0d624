"""The HTML report: self-contained, escaped, and really rendered by headless Chromium."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from ekcli import EXAMPLE, run_ek, write_lines

HOSTILE_ID = "<script>document.title='pwned'</script>"
HOSTILE_TOOL = "<img src=x onerror=alert(1)>"
HOSTILE_VALUE = "</td></tr></table><script>alert(2)</script>"


def _hostile_report(tmp_path: Path) -> tuple[Path, str]:
    corpus = write_lines(tmp_path / "hostile.jsonl", [
        {"id": HOSTILE_ID, "pred": [{"name": HOSTILE_TOOL, "arguments": {"q": HOSTILE_VALUE}}],
         "gold": [{"name": HOSTILE_TOOL, "arguments": {"q": "fine"}}]},
        {"id": "ok", "pred": "search(q='cats')", "gold": [{"name": "search", "arguments": {"q": "cats"}}]},
        {"id": "x", "pred": [{"name": "search", "arguments": {"q": "cats"}}],
         "gold": [{"name": "search", "arguments": {"q": "cats"}}, {"name": HOSTILE_TOOL, "arguments": {}}]},
        '"<script>alert(3)</script>"',
    ])
    html = tmp_path / "report.html"
    proc = run_ek("score", corpus, "--html", html, "--allow-errors")
    assert proc.returncode == 0, proc.stderr
    return html, html.read_text(encoding="utf-8")


def test_report_html_escapes_hostile_ids_tools_and_values(tmp_path: Path) -> None:
    _, text = _hostile_report(tmp_path)
    for raw in (HOSTILE_ID, HOSTILE_TOOL, HOSTILE_VALUE, "<script>alert(3)"):
        assert raw not in text
    assert "&lt;script&gt;document.title=" in text
    assert "&lt;img src=x onerror=alert(1)&gt;" in text
    assert text.count("<script>") == 1  # only the report's own render marker


def test_report_html_is_self_contained(tmp_path: Path) -> None:
    html = tmp_path / "report.html"
    assert run_ek("score", EXAMPLE / "corpus.jsonl", "--grammar", EXAMPLE / "travel-v2.ek",
                  "--html", html).returncode == 0
    text = html.read_text(encoding="utf-8")
    assert not re.search(r"""src\s*=|href\s*=\s*"(?!#line-\d+")""", text)  # in-page links only
    assert '<a href="#line-14"><code>cancel-wrong-booking</code></a>' in text
    assert not re.search(r"https?:|//[a-z]", text)  # no URL at all, not even an XML namespace
    assert text.count("<svg") == 3 and "<table" in text


@pytest.mark.skipif(shutil.which("chromium") is None, reason="chromium is not installed (CI installs it)")
def test_report_html_renders_in_headless_chromium(tmp_path: Path) -> None:
    html, _ = _hostile_report(tmp_path)
    proc = subprocess.run(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", html.as_uri()],
        check=False, capture_output=True, text=True, timeout=90)
    dom = proc.stdout
    assert proc.returncode == 0, proc.stderr[-2000:]
    marker = re.search(r'data-ek-rendered="svg=(\d+);tables=(\d+)"', dom)
    assert marker, dom[:500]
    svgs, tables = map(int, marker.groups())
    assert svgs == 3 and tables >= 5  # per tool, per reason, worst, errors, alignment tables
    assert dom.count("<rect") >= 6
    assert "<title>pwned</title>" not in dom and "ek report: hostile.jsonl" in dom
    assert "&lt;script&gt;document.title='pwned'&lt;/script&gt;" in dom  # the id shows as text
    assert "<img" not in dom


def test_report_html_alignment_view_shows_pairs_misses_and_extras(tmp_path: Path) -> None:
    html = tmp_path / "report.html"
    assert run_ek("score", EXAMPLE / "corpus.jsonl", "--grammar", EXAMPLE / "travel-v2.ek", "--html", html,
                  "--html-episodes", "50").returncode == 0
    text = html.read_text(encoding="utf-8")
    # a matched pair with a wrong value: expected vs got, with the reason
    assert ("<code>booking_id</code>: wrong_value &mdash; expected <code>&#34;BK-7781&#34;</code>, "
            "got <code>&#34;BK-7718&#34;</code>") in text
    # a gold call nobody predicted, and a predicted call gold never asked for
    missed = re.search(r'<tr class="row-fn">\s*<td class="num">2</td>\s*'
                       r'<td><span class="call">#1 book_flight\(flight_id=&#34;WN55&#34;.*?'
                       r'<td><span class="none">none</span></td>\s*<td class="verdict">missing_call', text, re.DOTALL)
    assert missed
    extra = re.search(r'<tr class="row-fp">\s*<td class="num">\d+</td>\s*'
                      r'<td><span class="none">none</span></td>\s*'
                      r'<td><span class="call">#1 get_weather\(location=&#34;Munich&#34;\)</span></td>\s*'
                      r'<td class="verdict">extra_call', text, re.DOTALL)
    assert extra
    assert "output could not be parsed: <code>python: line 1" in text
    episodes = text.count('class="episode"')
    assert episodes == 14  # every imperfect episode of the example, no more
    capped = tmp_path / "capped.html"
    run_ek("score", EXAMPLE / "corpus.jsonl", "--grammar", EXAMPLE / "travel-v2.ek", "--html", capped,
           "--html-episodes", "3")
    assert capped.read_text(encoding="utf-8").count('class="episode"') == 3


def test_report_html_marks_an_out_of_order_pair_with_the_constraint_it_breaks(tmp_path: Path) -> None:
    corpus = write_lines(tmp_path / "c.jsonl", [
        {"id": "swapped", "category": "ordered", "pred": "[b(y=2), a(x=1)]",
         "gold": [{"name": "a", "arguments": {"x": 1}}, {"name": "b", "arguments": {"y": 2}}]},
    ])
    html = tmp_path / "r.html"
    assert run_ek("score", corpus, "--order", "strict", "--html", html).returncode == 0
    text = html.read_text(encoding="utf-8")
    row = re.search(r'<tr class="row-order">\s*<td class="num">1</td>\s*'
                    r'<td><span class="call">#0 a\(x=1\)</span></td>\s*'
                    r'<td><span class="call">#1 a\(x=1\)</span></td>\s*<td class="verdict">out_of_order\s*'
                    r'<div class="broken">order broken: gold #0 a must come before gold #1 b \(strict order\); '
                    r'predicted #1 came after predicted #0</div>', text)
    assert row, text[text.find('class="alignment"'):][:1500]
    assert re.search(r'<tr class="row-tp">\s*<td class="num">2</td>\s*<td><span class="call">#1 b', text)
    assert text.count("<tr class=\"row-") == 2  # the late pair shares one row, not a miss row plus an extra row
    assert 'data-category="ordered" data-reasons="out_of_order"' in text


def test_report_html_names_the_turn_a_multi_turn_alignment_shows(tmp_path: Path) -> None:
    corpus = write_lines(tmp_path / "c.jsonl", [
        {"id": "chat", "turns": [{"pred": "f(x=1)", "gold": [{"name": "f", "arguments": {"x": 1}}]},
                                 {"pred": "g(y=1)", "gold": [{"name": "g", "arguments": {"y": 2}}]},
                                 {"pred": "h()", "gold": [{"name": "h", "arguments": {}}]}]},
    ])
    html = tmp_path / "r.html"
    assert run_ek("score", corpus, "--html", html).returncode == 0
    text = html.read_text(encoding="utf-8")
    assert ('<h4 class="turn">turn 1 of turns 0&ndash;2: the first that fails '
            "(the alignment below is that turn's)</h4>") in text
    assert "#0 g(y=2)" in text and "#0 f(" not in text


def test_report_html_links_each_row_to_its_own_alignment(tmp_path: Path) -> None:
    corpus = write_lines(tmp_path / "c.jsonl", [
        "{broken",                                                                                    # 1 error
        {"id": "small-loss", "pred": "f(x=1)", "gold": [{"name": "f", "arguments": {"x": 2}}]},       # 2
        {"id": "big-loss", "pred": "", "gold": [{"name": "f", "arguments": {}}] * 3},                 # 3
        {"id": "no-detail", "pred": "", "gold": [{"name": "f", "arguments": {}}]},                    # 4
    ])
    html = tmp_path / "r.html"
    run_ek("score", corpus, "--html", html, "--html-episodes", "2")
    text = html.read_text(encoding="utf-8")
    anchors = re.findall(r'<div class="episode" id="(line-\d+)"', text)
    links = re.findall(r'<a href="#(line-\d+)"><code>([^<]*)</code></a>', text)
    assert anchors == ["line-3", "line-2"]  # the two worst, worst first (4 loses as much as 2, but later)
    assert links == [("line-3", "big-loss"), ("line-2", "small-loss")]  # error rows link nowhere
    assert "<code>no-detail</code></td>" in text


def test_report_html_neutralises_bidi_overrides_in_corpus_text(tmp_path: Path) -> None:
    rlo = "\u202e"
    corpus = write_lines(tmp_path / "c.jsonl", [
        {"id": f"evil{rlo}lmth.exe", "pred": f"f(x='{rlo}abc')", "gold": [{"name": "f", "arguments": {"x": "cba"}}]},
    ])
    html = tmp_path / "r.html"
    run_ek("score", corpus, "--html", html)
    text = html.read_text(encoding="utf-8")
    assert "evil" in text and rlo not in text  # shown as a visible escape, so it cannot reorder the page


def test_report_html_weighted_vs_unweighted_chart_shares_one_scale(tmp_path: Path) -> None:
    html = tmp_path / "report.html"
    run_ek("score", EXAMPLE / "corpus.jsonl", "--grammar", EXAMPLE / "travel-v2.ek", "--html", html)
    text = html.read_text(encoding="utf-8")
    chart = re.search(r'<svg class="chart chart-weights".*?</svg>', text, re.DOTALL).group(0)
    bars = {title: float(h) for h, title in re.findall(r'<rect [^>]*height="([\d.]+)"[^>]*><title>([^<]*)</title>',
                                                         chart)}
    # the example: weighted TP/FP/FN 31/33/37 of 101, units 18/11/13 of 42; bars are shares on one scale
    weighted_tp = next(h for t, h in bars.items() if t.startswith("cost-weighted TP"))
    units_tp = next(h for t, h in bars.items() if t.startswith("unweighted units TP"))
    assert weighted_tp / units_tp == pytest.approx((31 / 101) / (18 / 42), rel=0.02)
    assert "31%" in chart and "43%" in chart


def test_report_html_does_not_call_a_bad_run_perfect_when_no_worst_episode_is_listed(tmp_path: Path) -> None:
    html = tmp_path / "report.html"
    run_ek("score", EXAMPLE / "corpus.jsonl", "--grammar", EXAMPLE / "travel-v2.ek", "--html", html, "--worst", "0")
    text = html.read_text(encoding="utf-8")
    assert "every episode is perfect" not in text and "none listed (--worst 0)" in text


def test_report_html_stays_small_when_values_are_huge(tmp_path: Path) -> None:
    big = "x" * 200_000
    corpus = write_lines(tmp_path / "c.jsonl", [
        {"id": f"big{i}", "pred": f"f(x='{big}y', n={i})", "gold": [{"name": "f", "arguments": {"x": big + "z", "n": i}}]}
        for i in range(10)])
    html = tmp_path / "r.html"
    assert run_ek("score", corpus, "--html", html).returncode == 0
    text = html.read_text(encoding="utf-8")
    assert len(text) < 400_000, len(text)  # every value is cut to a window, not copied 200k characters at a time
    assert text.count('class="episode"') == 10
    assert "first difference at character 200001" in text and "xxxxy&#34;" in text and "xxxxz&#34;" in text


def test_report_environment_reads_attributes_as_jinja2_does() -> None:
    """The report's environment reads ``x.name`` on a dict key first (its fast path): the same values as
    jinja2's own reading for keys, dict method names (``items``, ``get``), missing keys and other objects."""
    import jinja2

    from ek.report.html import _environment

    class Sub(dict):  # type: ignore[type-arg]
        extra = "class attribute"

    text = ("{{ d.a }}|{{ d.items is callable }}|{{ d.get('a') }}|{{ d.keys is callable }}|{{ s.extra }}|{{ s.a }}"
            "|{{ o.real }}|{{ d.__class__.__name__ }}|{{ (d.missing is defined) }}|{{ d['items'] }}")
    data = {"d": {"a": 1, "items": "key named items"}, "s": Sub(a=2, extra="key"), "o": 3}
    ours = _environment().from_string(text).render(**data)
    stock = jinja2.Environment(undefined=jinja2.StrictUndefined).from_string(text).render(**data)
    assert ours == stock == "1|True|1|True|class attribute|2|3|dict|False|key named items"
    with pytest.raises(jinja2.UndefinedError):
        _environment().from_string("{{ d.missing }}").render(d={"a": 1})


def test_report_html_stays_small_when_an_episode_has_many_calls(tmp_path: Path) -> None:
    """An episode of 200,000 gold calls wrote a 49 MB page: an alignment shows at most ALIGNMENT_ROWS_SHOWN steps
    (the wrong ones first, then matches, in step order) and says how many more there are."""
    from ek.limits import ALIGNMENT_ROWS_SHOWN

    calls = 4 * ALIGNMENT_ROWS_SHOWN
    gold = [{"name": "f", "arguments": {"n": i}} for i in range(calls)]
    pred = "[" + ", ".join(f"f(n={-i if i % 100 == 7 else i})" for i in range(calls)) + "]"  # 20 wrong
    corpus = write_lines(tmp_path / "c.jsonl", [{"id": "many", "pred": pred, "gold": gold}])
    html = tmp_path / "r.html"
    assert run_ek("score", corpus, "--html", html).returncode == 0
    text = html.read_text(encoding="utf-8")
    assert len(text) < 300_000, len(text)
    assert text.count('<tr class="row-') == ALIGNMENT_ROWS_SHOWN
    assert text.count('<tr class="row-fp"') == calls // 100  # every wrong step is among those shown
    assert f"{calls - ALIGNMENT_ROWS_SHOWN:,} more steps not shown (0 of them wrong)" in text
