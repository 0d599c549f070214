"""Inline SVG charts for the results site: ratings with error bars, a think-time histogram,
and the colour scale of the crosstable heat map. Pure functions returning markup; no scripts."""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

from markupsafe import Markup

FONT = 13


def _num(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _ticks(low: float, high: float, count: int = 6) -> list[float]:
    """Round tick values covering ``low``–``high``."""
    span = max(high - low, 1e-9)
    raw = span / count
    step = 10 ** math.floor(math.log10(raw))
    step *= next(m for m in (1, 2, 2.5, 5, 10) if step * m >= raw)
    first = math.ceil(low / step) * step
    return [first + i * step for i in range(int((high - first) / step + 1e-9) + 1)]


def _svg_open(width: float, height: float, title: str) -> str:
    """The opening tag of a chart, with its accessible title."""
    return (f'<svg class="chart" role="img" viewBox="0 0 {width} {height}" width="100%" '
            f'xmlns="http://www.w3.org/2000/svg"><title>{escape(title)}</title>')


def rating_chart(rows: Sequence[tuple[str, float, float, float]], title: str = "Rating with 95% interval",
                 width: int = 780, label_w: int = 170, ticks: int = 6) -> Markup:
    """Horizontal error bars: one row per ``(bot, rating, low, high)``, in the order given. A narrow chart
    (a phone's: ``width=360, label_w=112``) shortens long names to fit their column (the tooltip has them)."""
    if not rows:
        return Markup("")
    row_h, top = 26, 30
    fits = max(4, int((label_w - 14) / (0.6 * (FONT + 1))))  # characters of a name that fit the label column
    plot_w = width - label_w - 30
    low = min(r[2] for r in rows)
    high = max(r[3] for r in rows)
    pad = max((high - low) * 0.06, 5)
    low, high = low - pad, high + pad
    height = top + row_h * len(rows) + 12

    def x(value: float) -> float:
        return label_w + (value - low) / (high - low) * plot_w

    parts = [_svg_open(width, height, title)]
    for tick in _ticks(low, high, ticks):
        parts.append(f'<line x1="{x(tick):.1f}" x2="{x(tick):.1f}" y1="{top - 6}" y2="{height - 8}" stroke="#e3e7ee"/>'
                     f'<text x="{x(tick):.1f}" y="{top - 12}" font-size="{FONT - 1}" fill="#667085" '
                     f'text-anchor="middle">{_num(tick)}</text>')
    for i, (bot, rating, lo, hi) in enumerate(rows):
        y = top + row_h * i + row_h / 2
        parts.append(
            f'<g><title>{escape(bot)}: {_num(rating)} ({_num(lo)} to {_num(hi)})</title>'
            f'<text x="{label_w - 10}" y="{y + 4:.1f}" font-size="{FONT + 1}" text-anchor="end" fill="#1f2430">'
            f'{escape(bot if len(bot) <= fits else bot[:fits - 1] + "…")}</text>'
            f'<line x1="{x(lo):.1f}" x2="{x(hi):.1f}" y1="{y:.1f}" y2="{y:.1f}" stroke="#2f6fdf" stroke-width="2"/>'
            f'<line x1="{x(lo):.1f}" x2="{x(lo):.1f}" y1="{y - 6:.1f}" y2="{y + 6:.1f}" stroke="#2f6fdf" stroke-width="2"/>'
            f'<line x1="{x(hi):.1f}" x2="{x(hi):.1f}" y1="{y - 6:.1f}" y2="{y + 6:.1f}" stroke="#2f6fdf" stroke-width="2"/>'
            f'<circle cx="{x(rating):.1f}" cy="{y:.1f}" r="5" fill="#1f2430"/></g>')
    parts.append("</svg>")
    return Markup("".join(parts))


def quantile(ordered: Sequence[float], q: float) -> float:
    """The ``q`` quantile of sorted values (the value at rank ``q × n``, no interpolation), as the charts mark it."""
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def histogram(values_ms: Sequence[float], title: str = "Think time per move", width: int = 720) -> Markup:
    """Think times on a log scale (0.1 ms … seconds), with the median and 95th percentile marked. A narrow
    chart (a phone's: ``width=360``) keeps its labels at their size on a narrow screen."""
    values = sorted(max(v, 0.01) for v in values_ms)
    if not values:
        return Markup('<p class="muted">No moves.</p>')
    height, left, bottom, top = 200, 44, 34, 14
    right = 40
    lo = math.floor(math.log10(values[0]) * 4) / 4
    hi = max(math.ceil(math.log10(values[-1]) * 4) / 4, lo + 0.25)
    bins = [0] * max(1, round((hi - lo) * 8))
    for v in values:
        index = int((math.log10(v) - lo) / (hi - lo) * len(bins))
        bins[min(index, len(bins) - 1)] += 1
    peak = max(bins)
    plot_w, plot_h = width - left - right, height - bottom - top

    def x(log_value: float) -> float:
        return left + (log_value - lo) / (hi - lo) * plot_w

    bar_w = plot_w / len(bins)
    parts = [_svg_open(width, height, title)]
    for i, count in enumerate(bins):
        if count:
            h = count / peak * plot_h
            parts.append(f'<rect x="{left + i * bar_w + 0.5:.1f}" y="{top + plot_h - h:.1f}" width="{bar_w - 1:.1f}" '
                         f'height="{h:.1f}" fill="#2f6fdf" fill-opacity=".75"><title>{count} moves</title></rect>')
    parts.append(f'<line x1="{left}" x2="{width - right}" y1="{top + plot_h}" y2="{top + plot_h}" stroke="#667085"/>')
    for exponent in range(math.ceil(lo), math.floor(hi) + 1):
        label = f"{10 ** exponent:g} ms" if exponent < 3 else f"{10 ** (exponent - 3):g} s"
        parts.append(f'<line x1="{x(exponent):.1f}" x2="{x(exponent):.1f}" y1="{top + plot_h}" y2="{top + plot_h + 5}" '
                     f'stroke="#667085"/><text x="{x(exponent):.1f}" y="{top + plot_h + 18}" font-size="{FONT}" '
                     f'fill="#667085" text-anchor="middle">{label}</text>')
    for row, (name, q, colour) in enumerate((("median", 0.5, "#1f2430"), ("p95", 0.95, "#e4572e"))):
        value = quantile(values, q)
        px = x(math.log10(value))
        # labels on two rows so they never overlap; to the left of the line near the right edge
        tx, anchor = (px - 5, "end") if px > left + plot_w * 0.7 else (px + 5, "start")
        parts.append(f'<line x1="{px:.1f}" x2="{px:.1f}" y1="{top}" y2="{top + plot_h}" stroke="{colour}" '
                     f'stroke-dasharray="4 3"/><text x="{tx:.1f}" y="{top + 10 + 15 * row}" font-size="{FONT}" '
                     f'text-anchor="{anchor}" fill="{colour}" paint-order="stroke" stroke="#fff" stroke-width="3">'
                     f'{name} {format_ms(value)}</text>')
    parts.append(f'<text x="{left - 6}" y="{top + 8}" font-size="{FONT}" fill="#667085" text-anchor="end">{peak}</text>')
    parts.append("</svg>")
    return Markup("".join(parts))


def format_ms(ms: float) -> str:
    if ms >= 1000:
        return f"{ms / 1000:.2f} s"
    return f"{ms:.0f} ms" if ms >= 10 else f"{ms:.1f} ms"


def heat(share: float | None) -> str:
    """Background colour for a score share in 0–1: red (lost everything) through white to green."""
    if share is None or math.isnan(share):
        return "#eef0f4"
    share = min(1.0, max(0.0, share))
    good, bad, white = (23, 166, 115), (228, 87, 46), (255, 255, 255)
    target, t = (good, (share - 0.5) * 2) if share >= 0.5 else (bad, (0.5 - share) * 2)
    t *= 0.75
    return "#" + "".join(f"{round(w + (c - w) * t):02x}" for w, c in zip(white, target))
