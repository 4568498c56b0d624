"""Inline SVG bar charts drawn by our own code: no JavaScript library, no network, every label escaped."""

from __future__ import annotations

import re
from collections.abc import Sequence
from html import escape

from markupsafe import Markup

from ek.terminaltext import escaped

#: Colours of the three unit kinds, shared with the report's CSS.
KIND_COLOURS = {"tp": "#2e7d32", "fp": "#c62828", "fn": "#ef6c00"}


def visible(text: str) -> str:
    r"""Corpus text made safe to show: invisible and bidi-control characters as escapes (``\u202e``).

    A right-to-left override in an id or value would otherwise reorder what the
    reader sees around it; newlines and tabs stay as they are.

    >>> visible("evil\u202etxt.exe"), visible("a\tb")
    ('evil\\u202etxt.exe', 'a\tb')
    """
    return escaped(text, keep="\n\t")  # the page lays newlines and tabs out; they drive nothing there


#: Finds a character HTML escaping replaces (``& < > ' "``: ``html.escape``'s and markupsafe's five); linear time.
find_escaped = re.compile("[&<>'\"]").search


def _esc(text: str) -> str:
    """``text`` made visible, then escaped. Fast path: a text whose every character is printable (``visible``
    keeps it) and that holds none of the five characters escaping replaces is its own escape (a tool name, a
    figure: hundreds a chart)."""
    if text.isprintable() and find_escaped(text) is None:
        return text
    return escape(visible(text))


#: The longest label a chart shows whole; a longer one is cut (its whole text in the tooltip).
_LABEL_CHARS = 28


def _label(text: str, limit: int = _LABEL_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def hbar_chart(items: Sequence[tuple[str, float]], *, title: str, max_value: float | None = None,
               fmt: str = "{:.3f}", colour: str = "#1565c0", css_class: str = "chart") -> Markup:
    """Horizontal bars, one per ``(label, value)``; bars scale to ``max_value`` (default: the largest value).

    >>> svg = hbar_chart([("<b>", 0.5)], title="F1", max_value=1.0)
    >>> "<b>" in svg, "&lt;b&gt;" in svg, svg.count("<rect")
    (False, True, 2)
    """
    row, label_w, bar_w, pad = 22, 190, 300, 6
    top = 26
    height = top + row * max(len(items), 1) + pad
    width = label_w + bar_w + 70
    scale = max_value if max_value else max([v for _, v in items] + [0.0]) or 1.0
    parts = [(f'<svg class="{_esc(css_class)}" width="{width}" '
              f'height="{height}" viewBox="0 0 {width} {height}" role="img" aria-label="{_esc(title)}">'),
             f'<title>{_esc(title)}</title>',
             f'<text x="0" y="16" class="chart-title">{_esc(title)}</text>',
             (f'<rect x="{label_w}" y="{top - 4}" width="{bar_w}" height="{row * max(len(items), 1)}" '
              f'fill="#f5f5f5"/>')]
    if not items:
        parts.append(f'<text x="{label_w + 8}" y="{top + 14}" class="chart-empty">nothing to show</text>')
    for i, (label, value) in enumerate(items):  # each text escaped once (a BFCL run charts hundreds of tools)
        y = top + i * row
        w = max(0.0, min(value / scale, 1.0)) * bar_w
        shown, figure = _esc(label), _esc(fmt.format(value))
        short = shown if len(label) <= _LABEL_CHARS else _esc(_label(label))
        parts.append(f'<text x="{label_w - 8}" y="{y + 13}" text-anchor="end" class="chart-label">'
                     f'<title>{shown}</title>{short}</text>')
        parts.append(f'<rect x="{label_w}" y="{y}" width="{w:.1f}" height="{row - 6}" fill="{colour}">'
                     f'<title>{shown}: {figure}</title></rect>')
        parts.append(f'<text x="{label_w + w + 6:.1f}" y="{y + 13}" class="chart-value">{figure}</text>')
    parts.append("</svg>")
    return Markup("".join(parts))


def grouped_bars(groups: Sequence[tuple[str, Sequence[tuple[str, float, str]]]], *, title: str,
                 fmt: str = "{:g}", css_class: str = "chart") -> Markup:
    """Vertical bar groups: ``(group label, [(series label, value, colour), ...])`` on one shared scale.

    One scale for all groups, so equal heights mean equal values; to compare
    quantities of different units, pass shares (as :mod:`ek.report.html` does).
    """
    bar, gap, group_gap, plot_h, top = 34, 6, 40, 160, 44
    n_series = max((len(s) for _, s in groups), default=1)
    group_w = n_series * (bar + gap)
    # wide enough for its bars and for its title (about 8 px per character of the bold title font)
    width = max(320, len(groups) * (group_w + group_gap) + group_gap, 8 * len(title))
    height = top + plot_h + 46
    parts = [(f'<svg class="{_esc(css_class)}" width="{width}" '
              f'height="{height}" viewBox="0 0 {width} {height}" role="img" aria-label="{_esc(title)}">'),
             f'<title>{_esc(title)}</title>',
             f'<text x="0" y="16" class="chart-title">{_esc(title)}</text>']
    scale = max([v for _, series in groups for _, v, _ in series] + [0.0]) or 1.0
    for g, (group_label, series) in enumerate(groups):
        x0 = group_gap + g * (group_w + group_gap)
        for s, (label, value, colour) in enumerate(series):
            h = value / scale * plot_h
            x = x0 + s * (bar + gap)
            y = top + plot_h - h
            parts.append(f'<rect x="{x}" y="{y:.1f}" width="{bar}" height="{h:.1f}" fill="{_esc(colour)}">'
                         f'<title>{_esc(group_label)} {_esc(label)}: {_esc(fmt.format(value))}</title></rect>')
            parts.append(f'<text x="{x + bar / 2}" y="{y - 4:.1f}" text-anchor="middle" class="chart-value">'
                         f'{_esc(fmt.format(value))}</text>')
            parts.append(f'<text x="{x + bar / 2}" y="{top + plot_h + 14}" text-anchor="middle" '
                         f'class="chart-label">{_esc(label)}</text>')
        parts.append(f'<text x="{x0 + group_w / 2 - gap / 2}" y="{top + plot_h + 34}" text-anchor="middle" '
                     f'class="chart-group">{_esc(group_label)}</text>')
    parts.append("</svg>")
    return Markup("".join(parts))


__all__ = ["KIND_COLOURS", "find_escaped", "grouped_bars", "hbar_chart", "visible"]
