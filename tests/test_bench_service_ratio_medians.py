"""bench/bench_service.py --rounds: each round's ratio to the floor is printed, and the medians over the rounds."""

from __future__ import annotations

import pytest

from bench.load_report import LevelResult, print_round_medians


def result(rate: float, p50_ms: float, clients: int = 16) -> LevelResult:
    """A level's result with only what the ratios read."""
    return LevelResult(clients, int(rate * 10), 0, rate, p50_ms, 2 * p50_ms, None, (1.0, 1.0, 1.0, 1.0))


def test_each_round_and_the_median_of_rounds_are_printed(capsys: pytest.CaptureFixture[str]) -> None:
    rows = [
        (result(150.0, 100.0), "prefer-wait", {"required floor": result(200.0, 80.0)}),  # 0.75, p50 1.25
        (result(180.0, 90.0), "prefer-wait", {"required floor": result(200.0, 90.0)}),  # 0.90, p50 1.00
        (result(100.0, 120.0), "prefer-wait", {"required floor": result(200.0, 60.0)}),  # 0.50, p50 2.00
    ]
    print_round_medians(rows)
    line = capsys.readouterr().out.strip().splitlines()[-1]
    assert "16 clients prefer-wait" in line and "required floor" in line
    assert "0.75 0.90 0.50" in line
    assert line.endswith("median throughput 0.75, p50 1.25")


def test_levels_and_floors_are_kept_apart(capsys: pytest.CaptureFixture[str]) -> None:
    rows = [
        (result(100.0, 50.0, clients=2), "prefer-wait", {"floor": result(50.0, 50.0, clients=2)}),
        (result(100.0, 50.0), "prefer-wait", {"floor": result(200.0, 100.0)}),
    ]
    print_round_medians(rows)
    lines = capsys.readouterr().out.strip().splitlines()[1:]
    assert len(lines) == 2
    assert "2 clients" in lines[0] and "median throughput 2.00, p50 1.00" in lines[0]
    assert "16 clients" in lines[1] and "median throughput 0.50, p50 0.50" in lines[1]
