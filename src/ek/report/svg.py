"""Inline SVG bar charts drawn by our own code: no JavaScript library, no network, every label escaped."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from markupsafe import Markup

#: Colours of the three unit kinds, shared with the report's CSS.
KIND_COLOURS = {"tp": "#2e7d32", "fp": "#c62828", "fn": "#ef6c00"}


def _label(text: str, limit: int = 28) -> str:
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
    parts = [f'<svg class="{escape(css_class)}" xmlns="http://www.w3.org/2000/svg" width="{width}" '
             f'height="{height}" viewBox="0 0 {width} {height}" role="img" aria-label="{escape(title)}">',
             f'<title>{escape(title)}</title>',
             f'<text x="0" y="16" class="chart-title">{escape(title)}</text>',
             f'<rect x="{label_w}" y="{top - 4}" width="{bar_w}" height="{row * max(len(items), 1)}" '
             f'fill="#f5f5f5"/>']
    if not items:
        parts.append(f'<text x="{label_w + 8}" y="{top + 14}" class="chart-empty">nothing to show</text>')
    for i, (label, value) in enumerate(items):
        y = top + i * row
        w = max(0.0, min(value / scale, 1.0)) * bar_w
        parts.append(f'<text x="{label_w - 8}" y="{y + 13}" text-anchor="end" class="chart-label">'
                     f'<title>{escape(label)}</title>{escape(_label(label))}</text>')
        parts.append(f'<rect x="{label_w}" y="{y}" width="{w:.1f}" height="{row - 6}" fill="{colour}">'
                     f'<title>{escape(label)}: {escape(fmt.format(value))}</title></rect>')
        parts.append(f'<text x="{label_w + w + 6:.1f}" y="{y + 13}" class="chart-value">'
                     f'{escape(fmt.format(value))}</text>')
    parts.append("</svg>")
    return Markup("".join(parts))


def grouped_bars(groups: Sequence[tuple[str, Sequence[tuple[str, float, str]]]], *, title: str,
                 fmt: str = "{:g}", css_class: str = "chart") -> Markup:
    """Vertical bar groups: ``(group label, [(series label, value, colour), ...])``, one shared scale per group.

    Each group is scaled on its own (weighted totals and unit counts live on different scales).
    """
    bar, gap, group_gap, plot_h, top = 34, 6, 40, 160, 44
    n_series = max((len(s) for _, s in groups), default=1)
    group_w = n_series * (bar + gap)
    width = max(320, len(groups) * (group_w + group_gap) + group_gap)
    height = top + plot_h + 46
    parts = [f'<svg class="{escape(css_class)}" xmlns="http://www.w3.org/2000/svg" width="{width}" '
             f'height="{height}" viewBox="0 0 {width} {height}" role="img" aria-label="{escape(title)}">',
             f'<title>{escape(title)}</title>',
             f'<text x="0" y="16" class="chart-title">{escape(title)}</text>']
    for g, (group_label, series) in enumerate(groups):
        x0 = group_gap + g * (group_w + group_gap)
        scale = max([v for _, v, _ in series] + [0.0]) or 1.0
        for s, (label, value, colour) in enumerate(series):
            h = value / scale * plot_h
            x = x0 + s * (bar + gap)
            y = top + plot_h - h
            parts.append(f'<rect x="{x}" y="{y:.1f}" width="{bar}" height="{h:.1f}" fill="{escape(colour)}">'
                         f'<title>{escape(group_label)} {escape(label)}: {escape(fmt.format(value))}</title></rect>')
            parts.append(f'<text x="{x + bar / 2}" y="{y - 4:.1f}" text-anchor="middle" class="chart-value">'
                         f'{escape(fmt.format(value))}</text>')
            parts.append(f'<text x="{x + bar / 2}" y="{top + plot_h + 14}" text-anchor="middle" '
                         f'class="chart-label">{escape(label)}</text>')
        parts.append(f'<text x="{x0 + group_w / 2 - gap / 2}" y="{top + plot_h + 34}" text-anchor="middle" '
                     f'class="chart-group">{escape(group_label)}</text>')
    parts.append("</svg>")
    return Markup("".join(parts))


__all__ = ["KIND_COLOURS", "grouped_bars", "hbar_chart"]
