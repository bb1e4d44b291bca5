"""The engine checking itself: for every registered exercise, over seeds 0..K, the reference scores 1, each
misconception's answer scores below 1 and carries its tag, and the reference typed as text scores 1."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from exercises import api
from exercises.base import Variant
from exercises.checking import check_answer
from exercises.comparators import equal
from exercises.i18n import LANGS
from exercises.plugin import Exercise
from exercises.readers import display
from exercises.registry import EXERCISES
from exercises.variant_generation import generate_variant

MAX_FAILURES_SHOWN = 5


@dataclass(frozen=True)
class SelfTestRow:
    """One exercise's self-test counts; ``failures`` says what went wrong, seed by seed."""

    exercise_id: str
    seeds: int
    reference_passed: int
    misconception_checks: int
    misconception_passed: int
    typed_checks: int
    typed_passed: int
    failures: tuple[str, ...] = ()
    unexercised_tags: tuple[str, ...] = ()  # tags no tested seed applies to: worth a look, not a failure

    @property
    def ok(self) -> bool:
        """True when nothing failed."""
        return not self.failures


def _check_reference(exercise: Exercise, variant: Variant, reference: dict[str, Any]) -> list[str]:
    """Failures of the reference answer to score exactly 1 with no tag."""
    result = check_answer(exercise, variant, reference, "en")
    wrong = [name for name, part in result.parts.items() if not part.correct or part.misconception]
    if result.score != 1.0 or wrong:
        return [f"seed {variant.seed}: reference scored {result.score} (parts {', '.join(wrong)})"]
    return []


def _check_misconceptions(
    exercise: Exercise, variant: Variant, reference: dict[str, Any], applied: dict[str, int]
) -> tuple[int, list[str]]:
    """Misconception answers checked and their failures: each must score below 1 and carry its tag."""
    checked, failures = 0, []
    for misconception in exercise.misconceptions:
        wrong = misconception.solve(variant)
        if wrong is None:
            continue
        checked += 1
        applied[misconception.tag] += 1
        result = check_answer(exercise, variant, {**reference, **wrong}, "en")
        differing = [
            name
            for name in wrong
            if not equal(
                exercise.answer_field(name).kind, wrong[name], reference[name], exercise.answer_field(name).tolerance
            )
        ]
        untagged = [
            name for name in differing if misconception.tag not in result.parts[name].tags or result.parts[name].correct
        ]
        if result.score is None or result.score >= 1.0 or not differing or untagged:
            failures.append(
                f"seed {variant.seed}: {misconception.tag} scored {result.score}, "
                f"untagged parts: {', '.join(untagged) or '-'}"
            )
    return checked, failures


def _check_typed(exercise: Exercise, variant: Variant, reference: dict[str, Any]) -> tuple[int, list[str]]:
    """The reference shown as text in each language, graded through the public API, must score 1."""
    failures = []
    for lang in LANGS:
        typed = {f.name: display(f.kind, reference[f.name], lang) for f in exercise.fields}
        result = api.grade(exercise.id, variant.seed, typed, lang)
        if result["status"] != "graded" or result["score"] != 1.0:
            failures.append(
                f"seed {variant.seed}: typed ({lang}) {typed} -> {result['status']} "
                f"{result['score']} {result['errors'][:1]}"
            )
    return len(LANGS), failures


def selftest_exercise(exercise: Exercise, seeds: int) -> SelfTestRow:
    """Run the three checks for one exercise over seeds 0..``seeds`` (inclusive)."""
    counts = {"reference": 0, "misconception_checks": 0, "misconception_passed": 0, "typed": 0, "typed_ok": 0}
    failures: list[str] = []
    applied = {m.tag: 0 for m in exercise.misconceptions}
    for seed in range(seeds + 1):
        # A crash is reported as this seed's failure so one broken exercise doesn't hide the others.
        try:
            variant = generate_variant(exercise, seed)
            reference = dict(exercise.solve(variant))
            reference_failures = _check_reference(exercise, variant, reference)
            checked, wrong_failures = _check_misconceptions(exercise, variant, reference, applied)
            typed, typed_failures = _check_typed(exercise, variant, reference)
        except Exception as error:  # noqa: BLE001  (any crash of exercise code is this seed's recorded failure)
            failures.append(f"seed {seed}: {type(error).__name__}: {error}")
            continue
        counts["reference"] += not reference_failures
        counts["misconception_checks"] += checked
        counts["misconception_passed"] += checked - len(wrong_failures)
        counts["typed"] += typed
        counts["typed_ok"] += typed - len(typed_failures)
        failures += reference_failures + wrong_failures + typed_failures
    return SelfTestRow(
        exercise.id,
        seeds + 1,
        counts["reference"],
        counts["misconception_checks"],
        counts["misconception_passed"],
        counts["typed"],
        counts["typed_ok"],
        tuple(failures),
        tuple(tag for tag, count in applied.items() if count == 0),
    )


def run_selftest(seeds: int = 50) -> list[SelfTestRow]:
    """One row per registered exercise, checked over seeds 0..``seeds``."""
    if isinstance(seeds, bool) or not isinstance(seeds, int) or seeds < 0:
        raise ValueError(f"seeds must be a non-negative integer, got {seeds!r}")
    return [selftest_exercise(exercise, seeds) for exercise in EXERCISES]


def format_selftest(rows: list[SelfTestRow]) -> str:
    """A plain-text table of the rows, then the first failures of each failing exercise."""
    header = ("exercise", "seeds", "reference", "misconceptions", "typed", "result")
    lines = [
        (
            row.exercise_id,
            str(row.seeds),
            f"{row.reference_passed}/{row.seeds}",
            f"{row.misconception_passed}/{row.misconception_checks}",
            f"{row.typed_passed}/{row.typed_checks}",
            "ok" if row.ok else f"FAIL ({len(row.failures)})",
        )
        for row in rows
    ]
    widths = [max(len(cell) for cell in column) for column in zip(header, *lines)]
    table = [
        "  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip()
        for line in (header, tuple("-" * w for w in widths), *lines)
    ]
    for row in rows:
        for failure in row.failures[:MAX_FAILURES_SHOWN]:
            table.append(f"{row.exercise_id}: {failure}")
        if len(row.failures) > MAX_FAILURES_SHOWN:
            table.append(f"{row.exercise_id}: ... and {len(row.failures) - MAX_FAILURES_SHOWN} more")
        if row.unexercised_tags:
            table.append(f"{row.exercise_id}: note: no tested seed applies {', '.join(row.unexercised_tags)}")
    failed = sum(not row.ok for row in rows)
    table.append(f"{len(rows)} exercises, {failed} failing")
    return "\n".join(table)
