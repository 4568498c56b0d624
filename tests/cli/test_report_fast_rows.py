"""The reports' rows written by fast paths are the text the slow ones wrote: the HTML report's rows written in
Python (html._tool_row, html._alignment_row), as the report's own jinja2 environment renders the template's former
markup for them; ``--episodes-out`` JSON lines, as ``json.dumps`` writes them."""

from __future__ import annotations

import io
import json
import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ek.report.episodes import COLUMNS, EpisodeWriter
from ek.report.html import _alignment_row, _environment, _shown, _tool_row, _tool_rows

#: The template's markup of a per-tool row before it moved to _tool_row.
TOOL_ROW = ('<tr><td><code>{{ t.tool }}</code></td><td class="num">{{ "%.4f"|format(t.precision) }}</td>'
            '<td class="num">{{ "%.4f"|format(t.recall) }}</td><td class="num">{{ "%.4f"|format(t.f1) }}</td>'
            '<td class="num">{{ "%g"|format(t.tp) }}</td><td class="num">{{ "%g"|format(t.fp) }}</td>'
            '<td class="num">{{ "%g"|format(t.fn) }}</td>'
            '<td class="num">{{ t.units.tp }}/{{ t.units.fp }}/{{ t.units.fn }}</td></tr>')

#: The template's markup of an alignment step before it moved to _alignment_row (its tag lines as they were).
ALIGNMENT_ROW = """{% for row in rows %}
<tr class="row-{{ row.status }}">
<td class="num">{{ row.step }}</td>
<td>{% if row.gold is not none %}<span class="call">#{{ row.gold_index }} {{ row.gold }}</span>{% else %}<span class="none">none</span>{% endif %}</td>
<td>{% if row.pred is not none %}<span class="call">#{{ row.pred_index }} {{ row.pred }}</span>{% else %}<span class="none">none</span>{% endif %}</td>
<td class="verdict">{{ row.verdict }}
{% if row.broken %}<div class="broken">order broken: {{ row.broken }}</div>{% endif %}
{% for c in row.checks %}<div class="checks"><code>{{ c.arg }}</code>: {{ c.status }} &mdash; expected <code>{{ c.expected }}</code>, got <code>{{ c.got }}</code>{% if c.where %} {{ c.where }}{% endif %}{% if c.detail %} ({{ c.detail }}){% endif %}</div>{% endfor %}
</td></tr>
{% endfor %}"""  # noqa: E501

HOSTILE = st.sampled_from(["<script>x</script>", "a&b", "\"q\" 'r'", "evil\u202etxt", "tab\there\nline", "\x00\x1b",
                           "", "plain", "é𝄞"])
TEXT = HOSTILE | st.text(max_size=12)
FIGURE = st.floats(0, 1e6) | st.sampled_from([0.0, 1.0, 0.5, math.inf, math.nan, 1e-7, 123456789.0])
COUNT = st.integers(0, 10**6)

TOOLS = st.fixed_dictionaries({
    "tool": TEXT, "tp": FIGURE, "fp": FIGURE, "fn": FIGURE, "precision": FIGURE, "recall": FIGURE, "f1": FIGURE,
    "units": st.fixed_dictionaries({"tp": COUNT, "fp": COUNT, "fn": COUNT})})
CHECKS = st.fixed_dictionaries({"arg": TEXT, "status": TEXT, "expected": TEXT, "got": TEXT, "where": TEXT,
                                "detail": TEXT | st.none()})
ROWS = st.fixed_dictionaries({
    "status": st.sampled_from(["tp", "fp", "fn", "order"]) | TEXT, "step": COUNT,
    "gold": TEXT | st.none(), "gold_index": COUNT | st.none(), "pred": TEXT | st.none(),
    "pred_index": COUNT | st.none(), "verdict": TEXT, "broken": TEXT, "checks": st.lists(CHECKS, max_size=3)})


@settings(max_examples=300, deadline=None)
@given(TOOLS)
def test_a_tool_row_is_what_the_template_wrote(t: dict[str, Any]) -> None:
    assert _tool_row(t) == _environment().from_string(TOOL_ROW).render(t=t)


@settings(max_examples=100, deadline=None)
@given(st.lists(TOOLS.map(lambda t: {**t, "f1": abs(t["f1"]) % 3 // 1}), max_size=8))
def test_tool_rows_come_worst_f1_first_ties_in_report_order(tools: list[dict[str, Any]]) -> None:
    template = '{% for t in report.per_tool|sort(attribute="f1") %}' + TOOL_ROW + "\n{% endfor %}"
    want = _environment().from_string(template).render(report={"per_tool": tools})
    assert "".join(f"{row}\n" for row in _tool_rows({"per_tool": tools})) == want


@settings(max_examples=300, deadline=None)
@given(st.lists(ROWS, max_size=4))
def test_alignment_rows_are_what_the_template_wrote(rows: list[dict[str, Any]]) -> None:
    want = _environment().from_string(ALIGNMENT_ROW).render(rows=rows)
    assert "".join(f"{_alignment_row(row)}\n" for row in rows) == want


@given(COUNT | TEXT | FIGURE | st.booleans() | st.none())
def test_a_value_is_shown_as_the_template_prints_it(value: Any) -> None:
    assert _shown(value) == _environment().from_string("{{ v }}").render(v=value)


_JSON_SCALARS = (st.none() | st.booleans() | st.integers() | st.floats() | st.text()
                 | st.sampled_from(["\ud800", "é\u2028"]))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.fixed_dictionaries({c: _JSON_SCALARS | st.lists(st.text(max_size=5), max_size=3)
                                       for c in COLUMNS}), max_size=4))
def test_episode_rows_are_written_as_json_dumps_writes_them(rows: list[dict[str, Any]]) -> None:
    """``--episodes-out x.jsonl`` writes each row with ek.jsontext.dumps_compact: json.dumps' text."""
    handle = io.StringIO()
    EpisodeWriter(handle, "jsonl").write(rows)
    assert handle.getvalue() == "".join(json.dumps({c: r[c] for c in COLUMNS}, ensure_ascii=False) + "\n"
                                        for r in rows)
