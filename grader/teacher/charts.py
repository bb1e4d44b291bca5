"""Geometry for the dashboard's inline SVG charts; readable without colour (patterns, labels, numbers on bars)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from grader.score_bins import BIN_EDGES

PATTERNS = ("hatch", "dots", "cross", "vertical", "horizontal", "solid")  # one per bar, so bars differ without colour
BAR_WIDTH = 44
GAP = 10
PLOT_HEIGHT = 120
TOP = 22  # room for the number above the tallest bar
BOTTOM = 34  # room for the bin labels
LEFT = 8
LABEL_WIDTH = 250  # room for a misconception's short name (~40 characters of 12px text) left of its bar
SHARE_WIDTH = 260
ROW_HEIGHT = 26


@dataclass(frozen=True)
class Bar:
    """One vertical bar: position, size, the number printed on it, its label and fill pattern."""

    x: float
    y: float
    width: float
    height: float
    value: int
    label: str
    pattern: str


@dataclass(frozen=True)
class Histogram:
    """A bar chart of counts with its canvas size and baseline."""

    chart_id: str
    width: float
    height: float
    baseline: float
    bars: tuple[Bar, ...]


@dataclass(frozen=True)
class ShareRow:
    """One horizontal bar of a share chart (a misconception and its share of wrong answers)."""

    y: float
    width: float
    label: str  # what the bar is called on screen (a misconception's short name)
    text: str
    pattern: str
    key: str  # the stable id behind the label (the tag): data attributes and tooltips keep it


@dataclass(frozen=True)
class ShareChart:
    """Horizontal bars for shares in [0, 1], each labelled with its text."""

    chart_id: str
    width: float
    height: float
    label_width: float
    rows: tuple[ShareRow, ...]


def bin_labels() -> tuple[str, ...]:
    """Labels of the score histogram's bins: 0–19%, 20–39%, …, 80–99%, 100%."""
    edges = (0.0, *BIN_EDGES, 1.0)
    ranges = [f"{round(lo * 100)}–{round(hi * 100) - 1}%" for lo, hi in itertools.pairwise(edges)]
    return (*ranges, "100%")


def histogram(chart_id: str, counts: Sequence[int], labels: Sequence[str]) -> Histogram:
    """Bars scaled to the largest count (an empty histogram draws flat bars labelled 0)."""
    tallest = max(counts, default=0) or 1
    baseline = TOP + PLOT_HEIGHT
    bars = []
    for index, (count, label) in enumerate(zip(counts, labels)):
        height = PLOT_HEIGHT * count / tallest
        bars.append(
            Bar(
                x=LEFT + index * (BAR_WIDTH + GAP),
                y=baseline - height,
                width=BAR_WIDTH,
                height=height,
                value=count,
                label=label,
                pattern=PATTERNS[index % len(PATTERNS)],
            )
        )
    width = LEFT * 2 + len(bars) * (BAR_WIDTH + GAP)
    return Histogram(chart_id, width, baseline + BOTTOM, baseline, tuple(bars))


def share_chart(
    chart_id: str, items: Sequence[tuple[str, float, str]], keys: Sequence[str] | None = None
) -> ShareChart:
    """One bar per (label, share, text), with ``keys[i]`` the stable id behind label i (default: the label itself);
    bar length is the share of SHARE_WIDTH."""
    keys = keys if keys is not None else [label for label, _share, _text in items]
    rows = tuple(
        ShareRow(
            y=index * ROW_HEIGHT,
            width=max(SHARE_WIDTH * min(max(share, 0.0), 1.0), 1.0),
            label=label,
            text=text,
            pattern=PATTERNS[index % len(PATTERNS)],
            key=key,
        )
        for index, ((label, share, text), key) in enumerate(zip(items, keys))
    )
    return ShareChart(chart_id, LABEL_WIDTH + SHARE_WIDTH + 140, max(len(rows), 1) * ROW_HEIGHT, LABEL_WIDTH, rows)
