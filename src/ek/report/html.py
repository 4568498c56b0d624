"""The HTML report of ``ek score --html``: one self-contained file (no network), plots and alignments.

Rendered with Jinja2 with autoescaping on, so ids, tool names and values from
the corpus always show as text; what there are hundreds or thousands of (the
per-tool rows, the argument failures' rows, the rows of lines not scored, each
kept alignment's section and its steps) is written by :func:`_tool_row`,
:func:`_argument_row`, :func:`_line_row`, :func:`_episode_block` and
:func:`_alignment_row`, every value through the same finalize and escape
(:func:`_shown`), and printed by the template as markup; plots are inline SVG made by
:mod:`ek.report.svg`. A small inline script (no server, no external resource:
it works opened from ``file://``) filters the worst episodes and their
alignments by category and by reason (each row and block carries
``data-category`` and ``data-reasons``), counts what is shown, and marks the
page as rendered (``data-ek-rendered`` on ``<body>``) so tests and users can
tell it loaded.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup, escape

from ek.atomicfile import write_text_atomic
from ek.corpus.summary import EpisodeDigest
from ek.limits import ALIGNMENT_ROWS_SHOWN, TOOL_ROWS_SHOWN
from ek.report.gates import GATE_COLUMNS, gate_row
from ek.report.gates import from_report as gates_of
from ek.report.svg import KIND_COLOURS, find_escaped, grouped_bars, hbar_chart, visible
from ek.report.table import MIXED_GOLD_WARNING, MIXED_GRAMMAR_WARNING, SPLIT_TASKS_WARNING, grammar_text, split_tasks
from ek.scorer.alignment import show_plain
from ek.templatecache import CompiledTemplates, cache_folder


def _finalize(value: Any) -> Any:
    """Every text the template prints shows control and bidi characters as escapes (markup passes as is)."""
    return visible(value) if type(value) is str else value


#: How the report's template is read; part of the key of its cached compiled code.
_OPTIONS: dict[str, Any] = {"finalize": _finalize, "autoescape": True, "undefined": jinja2.StrictUndefined,
                            "trim_blocks": True, "lstrip_blocks": True}


#: The names a ``dict`` has as attributes (its methods): ``getattr`` finds these on any dict, and nothing else.
_DICT_ATTRIBUTES = frozenset(dir(dict))


class _ReportEnvironment(jinja2.Environment):
    """The report's environment: ``row.key`` on a ``dict`` (what the report is made of) reads the key first.

    Fast path of :meth:`jinja2.Environment.getattr`, which tries ``getattr(obj, "key")`` and then
    ``obj["key"]``: on a dict the first raises an AttributeError for every key, which cost a third of
    rendering the page (35,000 reads for 200 alignments). Safe: a dict's attributes are its class's
    (:data:`_DICT_ATTRIBUTES`), so for any other name ``getattr`` raises and jinja2 reads the key;
    this reads it directly, and leaves the names of dict methods (``items``, ``get``), a missing key
    and every other object to jinja2, as before.
    """

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                pass
        return super().getattr(obj, attribute)


def _environment() -> jinja2.Environment:
    """The report's environment; its template's compiled code is kept in this package's ``__pycache__``
    (:mod:`ek.templatecache`): compiling the page's template took 100 ms of every ``ek score --html``."""
    return _ReportEnvironment(
        loader=jinja2.PackageLoader("ek.report", "templates"),
        bytecode_cache=CompiledTemplates(_cache_folder(), _OPTIONS),
        **_OPTIONS,
    )


def _cache_folder() -> Path:
    """This module's ``__pycache__`` folder: where the template's compiled code is kept."""
    return cache_folder(__file__)


def _call(call: dict[str, Any]) -> str:
    """A call of an alignment dict as text; its values are plain data already (alignment_dict's): written as
    they are (show_plain), not walked by show's plain again."""
    args = ", ".join(f"{k}={show_plain(v)}" for k, v in call["args"].items())
    return f"{call['name']}({args})"


def _alignment_rows(detail: dict[str, Any]) -> list[dict[str, Any]]:
    """Rows of the side-by-side view: each gold call in gold order with its matched prediction, then the extra
    predictions; each row numbered (``step``, from 1). A pair that agrees on the tool but breaks the order gold
    requires (``out_of_order``: counted FP and FN) shares one row, marked, with the constraint it breaks."""
    pred, gold = detail["pred"], detail["gold"]
    pair_of_gold = {p["gold"]: p for p in detail["pairs"]}
    late_of_gold = {p["gold"]: p["pred"] for p in detail.get("out_of_order", ())}
    late_preds = set(late_of_gold.values())
    unit_reason_pred = {u["pred_index"]: u["reason"] for u in detail["errors"] if u["gold_index"] is None}
    unit_reason_gold = {u["gold_index"]: u["reason"] for u in detail["errors"] if u["pred_index"] is None}
    broken = {u["gold_index"]: u.get("detail", "") for u in detail["errors"]
              if u["reason"] == "out_of_order" and u["gold_index"] is not None}
    rows = []
    if detail.get("any_call"):  # gold ANY_CALL (BFCL's live_relevance): any call answers it
        wanted = "(some call, whichever)"
        rows = [{"gold": wanted, "gold_index": 0, "pred": _call(call), "pred_index": i, "status": "tp",
                 "verdict": "match", "checks": [], "broken": ""} for i, call in enumerate(pred)]
        if not pred:
            reason = detail["errors"][0]["reason"] if detail["errors"] else "missed_call"
            rows = [{"gold": wanted, "gold_index": 0, "pred": None, "pred_index": None, "status": "fn",
                     "verdict": reason, "checks": [], "broken": ""}]
    for j, call in enumerate(gold):
        pair = pair_of_gold.get(j)
        if j in late_of_gold:
            i = late_of_gold[j]
            rows.append({"gold": _call(call), "gold_index": j, "pred": _call(pred[i]), "pred_index": i,
                         "status": "order", "verdict": "out_of_order", "checks": [], "broken": broken.get(j, "")})
        elif pair is None:
            rows.append({"gold": _call(call), "gold_index": j, "pred": None, "pred_index": None, "status": "fn",
                         "verdict": unit_reason_gold.get(j, "missing_call"), "checks": [], "broken": ""})
        else:
            bad = [c for c in pair["checks"] if not c["ok"]]
            rows.append({"gold": _call(call), "gold_index": j, "pred": _call(pred[pair["pred"]]),
                         "pred_index": pair["pred"], "status": "tp" if pair["exact"] else "fp",
                         "verdict": "match" if pair["exact"] else "inexact", "checks": bad, "broken": ""})
    for i in detail["unmatched_pred"]:
        if i not in late_preds:
            rows.append({"gold": None, "gold_index": None, "pred": _call(pred[i]), "pred_index": i, "status": "fp",
                         "verdict": unit_reason_pred.get(i, "extra_call"), "checks": [], "broken": ""})
    for step, row in enumerate(rows, 1):
        row["step"] = step
    return rows


def _rows_shown(rows: list[dict[str, Any]], limit: int = ALIGNMENT_ROWS_SHOWN) -> list[dict[str, Any]]:
    """At most ``limit`` of an alignment's rows, in step order: every row that is not a match while they fit,
    then the first matches. All of them when they are that few (the usual episode)."""
    if len(rows) <= limit:
        return rows
    wrong = [row for row in rows if row["status"] != "tp"][:limit]
    room = limit - len(wrong)
    matches = [row for row in rows if row["status"] == "tp"][:room] if room else []
    return sorted(wrong + matches, key=lambda row: row["step"])


def _filters(report: dict[str, Any], episodes: Sequence[EpisodeDigest]) -> dict[str, list[str]]:
    """The choices of the page's two filters: every category and every reason among the episodes it lists."""
    categories = {e["category"] or "" for e in report["worst_episodes"]} | {d.category or "" for d in episodes}
    reasons = {r["reason"] for e in report["worst_episodes"] for r in e["reasons"]}
    reasons |= {r for d in episodes for r, _w in d.reasons}
    return {"categories": sorted(categories), "reasons": sorted(reasons)}


def _shown(value: Any) -> str:
    """A value as the template prints ``{{ value }}``: made visible (:func:`_finalize`), then escaped.

    An exact ``int`` (a step, an index, a count) is written by ``str``: its digits and sign are what
    escaping it gives, without the call. Fast path for an exact ``str`` whose every character is printable
    (what :func:`_finalize` keeps as it is): written as it is when it holds none of the five characters
    escaping replaces (:func:`~ek.report.svg.find_escaped`; a tool name, a status, a reason: most values),
    else escaped, without the calls
    around (30,000 values on a page of a 100,000-line BFCL run).
    """
    kind = type(value)
    if kind is int:
        return str(value)
    if kind is str and value.isprintable():
        return value if find_escaped(value) is None else escape(value)
    return escape(_finalize(value))


def _tool_row(t: dict[str, Any]) -> Markup:
    """The per-tool table's row of one tool (``report["per_tool"]``'s entry ``t``), as the template wrote it::

        <tr><td><code>{{ t.tool }}</code></td><td class="num">{{ "%.4f"|format(t.precision) }}</td>...
        <td class="num">{{ t.units.tp }}/{{ t.units.fp }}/{{ t.units.fn }}</td></tr>

    Fast path: written here, not by the template, where its ten values (7,400 for the 740 tools of a BFCL
    run) each took a lookup, a finalize call and an escape: half of rendering the page. The same text: the
    tool name and the unit counts go through :func:`_shown`, what the template applies to what it prints;
    the figures are the ``%`` formatting jinja2's ``format`` filter does, whose text (digits, sign, point,
    ``e``, ``inf``, ``nan``) escaping leaves as it is.
    """
    units = t["units"]
    return Markup(f'<tr><td><code>{_shown(t["tool"])}</code></td><td class="num">{"%.4f" % t["precision"]}</td>'
                  f'<td class="num">{"%.4f" % t["recall"]}</td><td class="num">{"%.4f" % t["f1"]}</td>'
                  f'<td class="num">{"%g" % t["tp"]}</td><td class="num">{"%g" % t["fp"]}</td>'
                  f'<td class="num">{"%g" % t["fn"]}</td><td class="num">{_shown(units["tp"])}/'
                  f'{_shown(units["fp"])}/{_shown(units["fn"])}</td></tr>')


def _alignment_row(row: dict[str, Any]) -> Markup:
    """One step of an alignment (a row of :func:`_alignment_rows`) as the template wrote it::

        <tr class="row-{{ row.status }}">
        <td class="num">{{ row.step }}</td>
        <td>{% if row.gold is not none %}<span class="call">#{{ row.gold_index }} {{ row.gold }}</span>{% else %}
        <span class="none">none</span>{% endif %}</td>
        <td>(the same for row.pred)</td>
        <td class="verdict">{{ row.verdict }}
        {% if row.broken %}<div class="broken">order broken: {{ row.broken }}</div>{% endif %}
        {% for c in row.checks %}<div class="checks"><code>{{ c.arg }}</code>: {{ c.status }} &mdash; expected
        <code>{{ c.expected }}</code>, got <code>{{ c.got }}</code>{% if c.where %} {{ c.where }}{% endif %}
        {% if c.detail %} ({{ c.detail }}){% endif %}</div>{% endfor %}
        </td></tr>

    (lines broken here for reading; the tag lines' own newlines were trimmed). Fast path: written here, not by
    the template, where each of its values took a lookup, a finalize call and an escape (a third of rendering
    the page). The same text: every value goes through :func:`_shown`, what the template applied.
    """
    gold = (f'<span class="call">#{_shown(row["gold_index"])} {_shown(row["gold"])}</span>'
            if row["gold"] is not None else '<span class="none">none</span>')
    pred = (f'<span class="call">#{_shown(row["pred_index"])} {_shown(row["pred"])}</span>'
            if row["pred"] is not None else '<span class="none">none</span>')
    parts = [f'<tr class="row-{_shown(row["status"])}">\n<td class="num">{_shown(row["step"])}</td>\n'
             f'<td>{gold}</td>\n<td>{pred}</td>\n<td class="verdict">{_shown(row["verdict"])}\n']
    if row["broken"]:
        parts.append(f'<div class="broken">order broken: {_shown(row["broken"])}</div>')
    for c in row["checks"]:
        parts.append(f'<div class="checks"><code>{_shown(c["arg"])}</code>: {_shown(c["status"])} &mdash; '
                     f'expected <code>{_shown(c["expected"])}</code>, got <code>{_shown(c["got"])}</code>')
        if c["where"]:
            parts.append(f' {_shown(c["where"])}')
        if c["detail"]:
            parts.append(f' ({_shown(c["detail"])})')
        parts.append('</div>')
    parts.append('</td></tr>')
    return Markup("".join(parts))


def _episode_block(d: EpisodeDigest) -> Markup:
    """The alignment section of one worst episode (``d``, its detail kept), as the template wrote it::

        <div class="episode" id="line-{{ d.line }}" data-line="{{ d.line }}" data-category="{{ d.category or "" }}"
        data-reasons="{{ d.reasons|map("first")|join(" ") }}">
        <h3>line {{ d.line }} &middot; id <code>{{ d.id if d.id is not none else "(none)" }}</code> &middot;
        F1 {{ "%.4f"|format(d.f1) }} &middot; TP {{ "%g"|format(d.tp) }}, FP ..., FN ...</h3>
        {% if d.category %}<p class="turn">category <code>{{ d.category }}</code></p>{% endif %}
        {% if d.turns > 1 %}<h4 class="turn">turn {{ d.first_failing_turn }} of turns 0&ndash;{{ d.turns - 1 }}:
        the first that fails (the alignment below is that turn's)</h4>{% endif %}
        {% if detail.parse_error %}<p class="parse-error">output could not be parsed:
        <code>{{ detail.parse_error }}</code></p>{% endif %}
        <table class="alignment">
        <thead><tr><th>step</th><th>gold call</th><th>predicted call</th><th>verdict</th></tr></thead>
        <tbody>
        {% for row in rows %}{{ row }}(a newline){% endfor %}</tbody>
        </table>
        <ul class="units">
        {% for u in detail.errors %}<li class="{{ u.kind }}">{{ u.text }}</li>{% endfor %}</ul>
        </div>

    (lines broken here for reading; the block tags' own newlines were trimmed; ``rows``: :func:`_alignment_row`
    of each of :func:`_alignment_rows`). Fast path: written here, not by the template, where each of its
    values took a lookup, a finalize call and an escape (200 episodes, 20 values each). The same text: every
    value goes through :func:`_shown`; the figures are the ``%`` formatting of jinja2's ``format`` filter,
    whose text escaping leaves as it is (see :func:`_tool_row`).
    """
    detail: dict[str, Any] = d.detail  # type: ignore[assignment]
    line, category = _shown(d.line), d.category
    reasons = _shown(" ".join([str(reason) for reason, _w in d.reasons]))
    parts = [f'<div class="episode" id="line-{line}" data-line="{line}" data-category="{_shown(category or "")}" '
             f'data-reasons="{reasons}">\n<h3>line {line} &middot; id <code>'
             f'{_shown(d.id if d.id is not None else "(none)")}</code> &middot; F1 {"%.4f" % d.f1} &middot; '
             f'TP {"%g" % d.tp}, FP {"%g" % d.fp}, FN {"%g" % d.fn}</h3>\n']
    if category:
        parts.append(f'<p class="turn">category <code>{_shown(category)}</code></p>')
    if d.turns > 1:
        parts.append(f'<h4 class="turn">turn {_shown(d.first_failing_turn)} of turns 0&ndash;{_shown(d.turns - 1)}'
                     ": the first that fails (the alignment below is that turn's)</h4>")
    if detail["parse_error"]:
        parts.append(f'<p class="parse-error">output could not be parsed: <code>{_shown(detail["parse_error"])}'
                     '</code></p>')
    parts.append('<table class="alignment">\n<thead><tr><th>step</th><th>gold call</th><th>predicted call</th>'
                 '<th>verdict</th></tr></thead>\n<tbody>\n')
    rows = _alignment_rows(detail)
    shown = _rows_shown(rows)
    for row in shown:
        parts.append(_alignment_row(row))
        parts.append("\n")
    if len(shown) < len(rows):
        wrong = sum(row["status"] != "tp" for row in rows) - sum(row["status"] != "tp" for row in shown)
        parts.append(f'<tr class="more"><td colspan="4">{len(rows) - len(shown):,} more steps not shown '
                     f'({wrong:,} of them wrong): the page shows {ALIGNMENT_ROWS_SHOWN:,} of an episode, wrong '
                     'ones first</td></tr>\n')
    parts.append('</tbody>\n</table>\n<ul class="units">\n')
    units = detail["errors"]
    for u in units[:ALIGNMENT_ROWS_SHOWN]:
        parts.append(f'<li class="{_shown(u["kind"])}">{_shown(u["text"])}</li>')
    if len(units) > ALIGNMENT_ROWS_SHOWN:
        parts.append(f'<li class="more">and {len(units) - ALIGNMENT_ROWS_SHOWN:,} more</li>')
    parts.append("</ul>\n</div>")
    return Markup("".join(parts))


def _argument_row(a: dict[str, Any]) -> Markup:
    """A row of the argument failures (``report["per_argument"]``'s entry ``a``), as the template wrote it::

        <tr><td><code>{{ a.tool }}</code></td><td><code>{{ a.arg }}</code></td><td>{{ a.status }}</td>
        <td class="num">{{ a.count }}</td></tr>

    Fast path: written here, not by the template (2,400 rows in a BFCL run of 100,000 lines); every value
    goes through :func:`_shown`, as in :func:`_tool_row`.
    """
    return Markup(f'<tr><td><code>{_shown(a["tool"])}</code></td><td><code>{_shown(a["arg"])}</code></td>'
                  f'<td>{_shown(a["status"])}</td><td class="num">{_shown(a["count"])}</td></tr>')


def _line_row(e: dict[str, Any], prefix: str = "") -> Markup:
    """A row of the lines not scored (``report["errors"]``, ``report["gold_warnings"]``; ``prefix`` ``"gold "``
    for ``report["gold_file_errors"]``), as the template wrote it::

        <tr><td class="num">{{ prefix }}{{ e.line }}</td><td><code>{{ e.id if e.id is not none else "" }}</code>
        </td><td>{{ e.reason }}</td></tr>

    Fast path: written here, not by the template (the 1,200 error lines a run keeps); every value goes
    through :func:`_shown`, as in :func:`_tool_row`.
    """
    return Markup(f'<tr><td class="num">{prefix}{_shown(e["line"])}</td><td><code>'
                  f'{_shown(e["id"] if e["id"] is not None else "")}</code></td><td>{_shown(e["reason"])}</td></tr>')


def _tool_rows(report: dict[str, Any]) -> list[Markup]:
    """The per-tool table's rows, worst F1 first (ties in the report's order: a stable sort, as jinja2's), the
    first :data:`~ek.limits.TOOL_ROWS_SHOWN`."""
    return [_tool_row(t) for t in sorted(report["per_tool"], key=_f1_of)[:TOOL_ROWS_SHOWN]]


def _f1_of(t: dict[str, Any]) -> Any:
    return t["f1"]


KINDS = ("tp", "fp", "fn")


def _shares(counts: dict[str, float]) -> list[tuple[str, float, str]]:
    """Each kind's percentage of TP + FP + FN: weighted sums and unit counts become comparable on one scale."""
    total = sum(counts.values()) or 1.0
    return [(k.upper(), 100.0 * counts[k] / total, KIND_COLOURS[k]) for k in KINDS]


def _plots(report: dict[str, Any]) -> dict[str, Any]:
    tools = sorted(report["per_tool"], key=lambda t: (t["f1"], t["tool"]))
    title = "F1 per tool (worst first)" if len(tools) <= TOOL_ROWS_SHOWN else \
        f"F1 of the {TOOL_ROWS_SHOWN:,} worst of {len(tools):,} tools"
    o = report["overall"]
    return {
        "tool_f1": hbar_chart([(t["tool"], t["f1"]) for t in tools[:TOOL_ROWS_SHOWN]], title=title,
                              max_value=1.0, css_class="chart chart-tools"),
        "reasons": hbar_chart([(r["reason"], r["weight"]) for r in report["per_reason"]],
                              title="Weight lost per error type", fmt="{:g}", colour=KIND_COLOURS["fp"],
                              css_class="chart chart-reasons"),
        "weighted": grouped_bars(
            [("cost-weighted", _shares({k: o[k] for k in KINDS})),
             ("unweighted units", _shares({k: o["units"][k] for k in KINDS}))],
            title="Share of TP / FP / FN: cost-weighted vs unweighted", fmt="{:.0f}%",
            css_class="chart chart-weights"),
    }


def render_html(report: dict[str, Any], episodes: Sequence[EpisodeDigest]) -> str:
    """The whole report page as a string; ``episodes`` are the worst ones whose alignment was kept."""
    kept = [_episode_block(d) for d in episodes if d.detail is not None]
    template = _environment().get_template("report.html.jinja2")
    return template.render(report=report, plots=_plots(report), episodes=kept, filters=_filters(report, episodes),
                           tool_rows=_tool_rows(report),
                           tools_not_shown=max(0, len(report["per_tool"]) - TOOL_ROWS_SHOWN),
                           argument_rows=[_argument_row(a) for a in report["per_argument"]],
                           error_rows=[_line_row(e) for e in report["errors"]],
                           gold_error_rows=[_line_row(e, "gold ") for e in report["gold_file_errors"]],
                           warning_rows=[_line_row(e) for e in report["gold_warnings"]],
                           aligned_lines={d.line for d in episodes if d.detail is not None},
                           grammar=grammar_text(report), mixed_gold_warning=MIXED_GOLD_WARNING,
                           gate_rows=[(gate_row(g), g.passed) for g in gates_of(report)], gate_columns=GATE_COLUMNS,
                           mixed_grammar_warning=MIXED_GRAMMAR_WARNING, split_tasks_warning=SPLIT_TASKS_WARNING,
                           split_tasks=split_tasks(report["repeats"]) if (report.get("repeats") or {}).get(
                               "tasks_split_by_type") else "",
                           colours=KIND_COLOURS, title=f"ek report: {os.path.basename(report['corpus']['path'])}")


def write_html(report: dict[str, Any], episodes: Sequence[EpisodeDigest], path: str) -> None:
    """Write the report page to ``path`` (folders created as needed), atomically."""
    write_text_atomic(path, render_html(report, episodes), errors="xmlcharrefreplace")  # lone surrogates: &#...;


__all__ = ["render_html", "write_html"]
