"""The capacity-lab plot: read-back accuracy against T, one line per d, drawn as inline SVG on the server."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup, escape

from grader.i18n import t

WIDTH, HEIGHT = 760, 380
LEFT, RIGHT, TOP, BOTTOM = 56, 200, 36, 48
THRESHOLD = 0.9
# Okabe-Ito colours stay distinct for colour-blind readers; each line also has its own marker and label.
COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9")
MARKERS = ("circle", "square", "triangle", "diamond", "circle", "square")


@dataclass(frozen=True)
class Series:
    """One line of the plot: a label and its (T, accuracy) points."""

    label: str
    points: tuple[tuple[int, float], ...]
    colour: str
    marker: str


def by_d(mapping: Mapping[Any, Any], d: int) -> Any:
    """Look ``d`` up in a mapping whose keys may be ints or (after JSON) strings."""
    return mapping.get(d, mapping.get(str(d)))


def lab_series(result: Mapping[str, Any], lang: str) -> list[Series]:
    """The fixed-vector line of each d, then the attention line (the mean over d; it barely moves)."""
    ts = [int(x) for x in result["ts"]]
    series = []
    for index, d in enumerate(int(x) for x in result["ds"]):
        accuracy = by_d(result["fixed_accuracy"], d)
        series.append(
            Series(
                t("lab.fixed", lang, d=d),
                tuple(zip(ts, map(float, accuracy))),
                COLOURS[index % len(COLOURS)],
                MARKERS[index % len(MARKERS)],
            )
        )
    attention = [by_d(result["attention_accuracy"], int(d)) for d in result["ds"]]
    if attention and all(a is not None for a in attention):
        mean = [sum(float(row[i]) for row in attention) / len(attention) for i in range(len(ts))]
        series.append(Series(t("lab.attention", lang), tuple(zip(ts, mean)), "#444444", "none"))
    return series


def _marker(kind: str, x: float, y: float, colour: str) -> str:
    """SVG for one point marker of the given shape."""
    if kind == "square":
        return f'<rect x="{x - 3.5:.1f}" y="{y - 3.5:.1f}" width="7" height="7" fill="{colour}"/>'
    if kind == "triangle":
        return f'<polygon points="{x:.1f},{y - 4.5:.1f} {x - 4.5:.1f},{y + 3.5:.1f} {x + 4.5:.1f},{y + 3.5:.1f}" fill="{colour}"/>'
    if kind == "diamond":
        return f'<polygon points="{x:.1f},{y - 5:.1f} {x + 5:.1f},{y:.1f} {x:.1f},{y + 5:.1f} {x - 5:.1f},{y:.1f}" fill="{colour}"/>'
    if kind == "circle":
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3.5" fill="{colour}"/>'
    return ""


def _ticks(low: int, high: int) -> list[int]:
    """About eight round tick positions on the T axis."""
    step = max(1, -(-(high - low) // 8))
    first = -(-low // step) * step  # the first multiple of step inside the range
    return sorted({low, *range(first, high + 1, step)})


def render_plot(result: Mapping[str, Any], lang: str) -> Markup:
    """The whole SVG element: axes, gridlines, the dashed 90% line, one line per series and a legend."""
    series = lab_series(result, lang)
    ts = [int(x) for x in result["ts"]]
    t_low, t_high = min(ts), max(max(ts), min(ts) + 1)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def sx(value: float) -> float:
        return LEFT + (value - t_low) / (t_high - t_low) * plot_w

    def sy(value: float) -> float:
        return TOP + (1.0 - value) * plot_h

    title, desc = escape(t("lab.plot_title", lang)), escape(t("lab.plot_desc", lang))
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" class="lab-plot" role="img" '
        f'aria-labelledby="lab-plot-title lab-plot-desc">',
        f'<title id="lab-plot-title">{title}</title><desc id="lab-plot-desc">{desc}</desc>',
        f'<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="#fff" stroke="#888"/>',
    ]
    for level in (0.0, 0.2, 0.4, 0.6, 0.8, 1.0):
        y = sy(level)
        parts.append(
            f'<line x1="{LEFT}" x2="{LEFT + plot_w}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e3e3e3"/>'
            f'<text x="{LEFT - 8}" y="{y + 4:.1f}" text-anchor="end" class="tick">{int(level * 100)}%</text>'
        )
    for tick in _ticks(t_low, t_high):
        x = sx(tick)
        parts.append(
            f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{TOP + plot_h}" y2="{TOP + plot_h + 5}" stroke="#888"/>'
            f'<text x="{x:.1f}" y="{TOP + plot_h + 19}" text-anchor="middle" class="tick">{tick}</text>'
        )
    y90 = sy(THRESHOLD)
    parts.append(
        f'<line class="threshold" x1="{LEFT}" x2="{LEFT + plot_w}" y1="{y90:.1f}" y2="{y90:.1f}" '
        f'stroke="#000" stroke-width="1.5" stroke-dasharray="6 4"/>'
        f'<text x="{LEFT + plot_w + 6}" y="{y90 + 4:.1f}" class="label">{escape(t("lab.threshold", lang))}</text>'
    )
    parts.extend(_series_svg(s, sx, sy) for s in series)
    parts.append(_legend(series, LEFT + plot_w + 6, TOP + plot_h * 0.35))
    parts.append(
        f'<text x="{LEFT + plot_w / 2:.1f}" y="{HEIGHT - 8}" text-anchor="middle" class="axis">'
        f"{escape(t('lab.axis_t', lang))}</text>"
        f'<text transform="translate(14 {TOP + plot_h / 2:.1f}) rotate(-90)" text-anchor="middle" class="axis">'
        f"{escape(t('lab.axis_acc', lang))}</text></svg>"
    )
    return Markup("".join(parts))


def _series_svg(series: Series, sx: Any, sy: Any) -> str:
    """A polyline with markers for one series."""
    coords = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in series.points)
    style = ' stroke-dasharray="2 3"' if series.marker == "none" else ""
    markers = "".join(_marker(series.marker, sx(x), sy(y), series.colour) for x, y in series.points)
    return (
        f'<g class="series" data-label="{escape(series.label)}"><polyline points="{coords}" fill="none" '
        f'stroke="{series.colour}" stroke-width="2"{style}/>{markers}</g>'
    )


def _legend(series: Sequence[Series], x: float, y: float) -> str:
    """A legend to the right of the plot: marker, line sample and label for each series."""
    rows = []
    for index, item in enumerate(series):
        row_y = y + index * 20
        dash = ' stroke-dasharray="2 3"' if item.marker == "none" else ""
        rows.append(
            f'<line x1="{x:.1f}" x2="{x + 18:.1f}" y1="{row_y:.1f}" y2="{row_y:.1f}" stroke="{item.colour}" '
            f'stroke-width="2"{dash}/>{_marker(item.marker, x + 9, row_y, item.colour)}'
            f'<text x="{x + 22:.1f}" y="{row_y + 4:.1f}" class="legend">{escape(item.label)}</text>'
        )
    return f'<g class="legend">{"".join(rows)}</g>'
