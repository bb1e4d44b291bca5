"""What bench/bench_service.py measures per level, and the table it prints (grader modes against the floor)."""
from __future__ import annotations

import statistics
from dataclasses import dataclass, field


@dataclass(frozen=True)
class LevelResult:
    """What ``clients`` closed-loop clients achieved in one timed window."""

    clients: int
    completed: int
    failed: int
    rate: float
    p50_ms: float
    p99_ms: float
    stages_ms: tuple[float, ...] | None  # grader only: median post→created, created→started, →finished, →client
    cpu_ms_per_job: tuple[float, float, float, float]  # web server, worker, PostgreSQL backends, redis-server
    failures: tuple[str, ...] = field(default=())
    # The benchmark's own client threads (the same two cores): a floor's client sends two requests per job.
    client_cpu_ms_per_job: float = 0.0


def percentile(sorted_values: list[float], fraction: float) -> float:
    """Nearest-rank percentile of an already sorted list (0 for an empty one)."""
    if not sorted_values:
        return 0.0
    return sorted_values[min(len(sorted_values) - 1, max(0, round(fraction * len(sorted_values)) - 1))]


def _cpu_text(result: LevelResult) -> str:
    """CPU per job by process kind, and their sum; then the benchmark's clients apart."""
    servers = " | ".join(f"{value:4.1f}" for value in result.cpu_ms_per_job)
    return f"{servers} = {sum(result.cpu_ms_per_job):4.1f}   (clients {result.client_cpu_ms_per_job:3.1f})"


def _ratio_table(rows: list[tuple[LevelResult, str, dict[str, LevelResult]]], floor_name: str) -> None:
    """Each grader mode against the floor named ``floor_name``: throughput, p50 and p99, and their ratios."""
    print(f"\nagainst the {floor_name}:")
    print(f"{'clients':>7} {'grader mode':<12} | {'grader/s':>8} {'floor/s':>8} {'ratio':>6} | {'p50 grader':>10} "
          f"{'p50 floor':>9} {'ratio':>6} | {'p99 grader':>10} {'p99 floor':>9}")
    for ours, mode, floors in rows:
        floor = floors[floor_name]
        rate_ratio = ours.rate / floor.rate if floor.rate else float("nan")
        p50_ratio = ours.p50_ms / floor.p50_ms if floor.p50_ms else float("nan")
        print(f"{ours.clients:>7} {mode:<12} | {ours.rate:>8.1f} {floor.rate:>8.1f} {rate_ratio:>6.2f} | "
              f"{ours.p50_ms:>8.1f}ms {floor.p50_ms:>7.1f}ms {p50_ratio:>6.2f} | {ours.p99_ms:>8.1f}ms "
              f"{floor.p99_ms:>7.1f}ms")


def print_report(rows: list[tuple[LevelResult, str, dict[str, LevelResult]]]) -> None:
    """A table per floor (each grader mode against it), the grader's stage breakdown, CPU per job, failures.

    ``rows``: per level and grader mode, the grader's result, the mode, and each floor's result at that level.
    """
    floor_names = list(rows[0][2]) if rows else []
    for name in floor_names:
        _ratio_table(rows, name)
    print("\ngrader stage medians (ms): POST→row created | created→worker claims | claim→result written | "
          "written→client has it")
    for ours, mode, _ in rows:
        if ours.stages_ms:
            print(f"{ours.clients:>7} clients {mode:<12}: " + " | ".join(f"{value:7.1f}" for value in ours.stages_ms))
    print("\nCPU ms per completed job: web server | worker | PostgreSQL backends | redis-server = total   "
          "(the benchmark's client threads)")
    for ours, mode, _ in rows:
        print(f"{ours.clients:>7} clients {mode:<12}: grader {_cpu_text(ours)}")
    for ours, mode, floors in rows:
        if mode == rows[0][1]:
            for name, floor in floors.items():
                print(f"{ours.clients:>7} clients {name:<18}: {_cpu_text(floor)}")
    failing = [(ours, f"grader {mode}") for ours, mode, _ in rows]
    failing += [(floor, name) for ours, mode, floors in rows if mode == rows[0][1] for name, floor in floors.items()]
    for result, name in failing:
        for failure in result.failures:
            print(f"failure ({name}, {result.clients} clients, {result.failed} in all): {failure}")


def print_round_medians(rows: list[tuple[LevelResult, str, dict[str, LevelResult]]]) -> None:
    """Per clients, grader mode and floor: each round's throughput ratio, and the median ratios of throughput and
    p50 over the rounds (one run's ratio moves by ±0.1 on this machine; the median of alternating rounds less)."""
    print("\nover the rounds (throughput ratio of each round; medians of the throughput and p50 ratios):")
    groups: dict[tuple[int, str, str], list[tuple[float, float]]] = {}
    for ours, mode, floors in rows:
        for name, floor in floors.items():
            if floor.rate and floor.p50_ms:
                groups.setdefault((ours.clients, mode, name), []).append(
                    (ours.rate / floor.rate, ours.p50_ms / floor.p50_ms)
                )
    for (clients, mode, name), ratios in groups.items():
        each = " ".join(f"{rate:.2f}" for rate, _ in ratios)
        rate_median, p50_median = (statistics.median(column) for column in zip(*ratios, strict=True))
        print(f"{clients:>7} clients {mode:<12} against the {name}: {each}  median throughput {rate_median:.2f}, "
              f"p50 {p50_median:.2f}")
