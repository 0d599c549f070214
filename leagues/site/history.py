"""The site's ratings-over-time page (``history.html``): each bot's rating after every snapshot as a line, a
marker where a new version of it starts, and the standings of the latest snapshot twice: every version, and
the latest version of each bot only. From ``hexarena.leagues.results.history.history_payload``."""

from __future__ import annotations

from html import escape

from markupsafe import Markup

from hexarena.leagues.site.charts import _num, _svg_open, _ticks

COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22")


def history_context(history: dict) -> dict:
    """The template's values: the chart, and the two standings of the latest snapshot."""
    snapshots = history.get("snapshots", [])
    latest = snapshots[-1]["ratings"] if snapshots else []
    first_seen: dict[str, int] = {}
    for snapshot in snapshots:
        for row in snapshot["ratings"]:
            first_seen.setdefault(row["version"], snapshot["batch"])
    newest: dict[str, dict] = {}
    for row in latest:  # a bot's latest version: the one that appeared last
        name = row["version"].partition("@")[0]
        if name not in newest or first_seen[row["version"]] > first_seen[newest[name]["version"]]:
            newest[name] = row
    return {"chart": history_chart(snapshots), "every_version": latest,
            "latest_versions": [row for row in latest if newest.get(row["version"].partition("@")[0]) is row],
            "snapshots": len(snapshots)}


def history_chart(snapshots: list[dict], width: int = 780, height: int = 360) -> Markup:
    """One line per bot (its versions joined: the bot, not the version, is the line), a ring at each snapshot
    where a new version of it first appears, x = snapshot number, y = Elo."""
    if not snapshots:
        return Markup("")
    lines: dict[str, list[tuple[int, float, bool]]] = {}
    seen: set[str] = set()
    for snapshot in snapshots:
        for row in snapshot["ratings"]:
            name = row["version"].partition("@")[0]
            lines.setdefault(name, []).append((snapshot["batch"], row["elo"], row["version"] not in seen))
            seen.add(row["version"])
    elos = [elo for points in lines.values() for _, elo, _ in points]
    low, high = min(elos) - 20, max(elos) + 20
    first, last = snapshots[0]["batch"], max(snapshots[-1]["batch"], snapshots[0]["batch"] + 1)
    left, right, top, bottom = 56, 150, 16, 34

    def x(batch: float) -> float:
        return left + (width - left - right) * (batch - first) / (last - first)

    def y(elo: float) -> float:
        return top + (height - top - bottom) * (high - elo) / (high - low)

    parts = [_svg_open(width, height, "Rating over time (Elo after each snapshot; a ring: a new version)")]
    for tick in _ticks(low, high):
        parts.append(f'<line x1="{left}" x2="{width - right}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" stroke="#ddd"/>'
                     f'<text x="{left - 6}" y="{y(tick) + 4:.1f}" text-anchor="end" font-size="12">{_num(tick)}</text>')
    parts.append(f'<text x="{(left + width - right) / 2:.0f}" y="{height - 8}" text-anchor="middle" '
                 f'font-size="12">snapshot</text>')
    for k, (name, points) in enumerate(sorted(lines.items())):
        colour = COLOURS[k % len(COLOURS)]
        path = " ".join(f"{x(b):.1f},{y(e):.1f}" for b, e, _ in points)
        parts.append(f'<polyline class="bot-line" data-bot="{escape(name)}" points="{path}" fill="none" '
                     f'stroke="{colour}" stroke-width="2"/>')
        for batch, elo, new in points:
            if new:
                parts.append(f'<circle class="version-marker" data-bot="{escape(name)}" cx="{x(batch):.1f}" '
                             f'cy="{y(elo):.1f}" r="5" fill="white" stroke="{colour}" stroke-width="2">'
                             f'<title>{escape(name)}: a new version</title></circle>')
        end_batch, end_elo, _ = points[-1]
        parts.append(f'<text x="{x(end_batch) + 8:.1f}" y="{y(end_elo) + 4:.1f}" font-size="12" fill="{colour}">'
                     f'{escape(name)}</text>')
    parts.append("</svg>")
    return Markup("".join(parts))
