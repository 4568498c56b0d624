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


@settings(max_examples=500, deadline=None)
@given(COUNT | TEXT | FIGURE | st.booleans() | st.none() | st.text(alphabet="&<>'\"a \u202e\n\x00", max_size=8))
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


#: The template's markup of an episode's alignment section before it moved to _episode_block.
EPISODE_BLOCK = """{% for ep in episodes %}
{% set d = ep.digest %}
<div class="episode" id="line-{{ d.line }}" data-line="{{ d.line }}" data-category="{{ d.category or "" }}" data-reasons="{{ d.reasons|map("first")|join(" ") }}">
<h3>line {{ d.line }} &middot; id <code>{{ d.id if d.id is not none else "(none)" }}</code> &middot; F1 {{ "%.4f"|format(d.f1) }} &middot; TP {{ "%g"|format(d.tp) }}, FP {{ "%g"|format(d.fp) }}, FN {{ "%g"|format(d.fn) }}</h3>
{% if d.category %}<p class="turn">category <code>{{ d.category }}</code></p>{% endif %}
{% if d.turns > 1 %}<h4 class="turn">turn {{ d.first_failing_turn }} of turns 0&ndash;{{ d.turns - 1 }}: the first that fails (the alignment below is that turn's)</h4>{% endif %}
{% if ep.detail.parse_error %}<p class="parse-error">output could not be parsed: <code>{{ ep.detail.parse_error }}</code></p>{% endif %}
<table class="alignment">
<thead><tr><th>step</th><th>gold call</th><th>predicted call</th><th>verdict</th></tr></thead>
<tbody>
{# one <tr> per step: html._alignment_row (200 alignments of a few steps each) #}
{% for row in ep.rows %}
{{ row }}
{% endfor %}
</tbody>
</table>
<ul class="units">
{% for u in ep.detail.errors %}<li class="{{ u.kind }}">{{ u.text }}</li>{% endfor %}
</ul>
</div>
{% endfor %}"""  # noqa: E501

#: The template's markup of the argument failures and of the lines not scored before they moved to
#: _argument_row and _line_row.
ARGUMENT_ROW = ('<tr><td><code>{{ a.tool }}</code></td><td><code>{{ a.arg }}</code></td><td>{{ a.status }}</td>'
                '<td class="num">{{ a.count }}</td></tr>')
LINE_ROW = ('<tr><td class="num">{{ prefix }}{{ e.line }}</td><td><code>{{ e.id if e.id is not none else "" }}</code>'
            '</td><td>{{ e.reason }}</td></tr>')

_CALLS = st.lists(st.tuples(st.sampled_from(["a", "b", "<c>"]),
                            st.dictionaries(st.sampled_from(["x", "y"]), st.integers(0, 2) | HOSTILE, max_size=2)),
                  max_size=3)


def _detail(pred: list[Any], gold: list[Any], parse_error: str | None) -> dict[str, Any]:
    from ek.scorer.alignment import alignment_dict
    from ek.scorer.metric import ToolCallMetric

    detail = alignment_dict(ToolCallMetric()(pred, gold).explanation, limit=40)
    return {**detail, "parse_error": parse_error}


@settings(max_examples=200, deadline=None)
@given(_CALLS, _CALLS, TEXT | st.none(), COUNT, TEXT | COUNT | st.none(), FIGURE, FIGURE, TEXT | st.none(),
       st.lists(st.tuples(TEXT, FIGURE), max_size=3), st.integers(1, 3))
def test_an_episode_block_is_what_the_template_wrote(pred: list[Any], gold: list[Any], parse_error: str | None,
                                                     line: int, episode_id: Any, f1: float, lost: float,
                                                     category: str | None, reasons: list[Any], turns: int) -> None:
    from ek.corpus.summary import EpisodeDigest
    from ek.report.html import _alignment_rows, _episode_block

    detail = _detail(pred, gold, parse_error)
    d = EpisodeDigest(line, episode_id, lost, f1, lost / 2, f1, tuple(reasons), detail=detail, turns=turns,
                      first_failing_turn=turns - 1 if turns > 1 else 0, category=category)
    rows = [_alignment_row(row) for row in _alignment_rows(detail)]
    want = _environment().from_string(EPISODE_BLOCK).render(episodes=[{"digest": d, "rows": rows, "detail": detail}])
    assert f"{_episode_block(d)}\n" == want


@settings(max_examples=200, deadline=None)
@given(st.fixed_dictionaries({"tool": TEXT, "arg": TEXT, "status": TEXT, "count": COUNT}),
       st.fixed_dictionaries({"line": COUNT, "id": TEXT | COUNT | st.none(), "reason": TEXT}),
       st.sampled_from(["", "gold "]))
def test_argument_and_line_rows_are_what_the_template_wrote(a: dict[str, Any], e: dict[str, Any],
                                                            prefix: str) -> None:
    from ek.report.html import _argument_row, _line_row

    assert _argument_row(a) == _environment().from_string(ARGUMENT_ROW).render(a=a)
    assert _line_row(e, prefix) == _environment().from_string(LINE_ROW).render(e=e, prefix=prefix)


@settings(max_examples=500, deadline=None)
@given(TEXT | st.text(alphabet="&<>'\"a \u202e\n\t\x00", max_size=8) | FIGURE.map("{:.3f}".format))
def test_a_chart_text_is_escaped_as_before(text: str) -> None:
    """svg._esc's fast path (a printable text without the five characters escaping replaces, kept as it is)
    gives what making it visible then escaping gave."""
    from html import escape

    from ek.report.svg import _esc, visible

    assert _esc(text) == escape(visible(text))
