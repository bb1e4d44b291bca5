"""Which misconception tags a wrong part names: the solvers it matches, less those its other parts rule out."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any, NamedTuple

from exercises.base import Answer, AnswerField, Misconception, Variant
from exercises.comparators import equal

WrongAnswers = Sequence[tuple[Misconception, Answer | None]]


def solver_tags(
    wrong_answers: WrongAnswers, answer_field: AnswerField, student: Any, reference: Any
) -> tuple[str, ...]:
    """The tags of the wrong procedures whose answer to this part the student's equals (where it differs from the
    key); ``wrong_answers`` pairs each misconception with its solver's answer for the variant. Exercises with a
    ``tag_part`` of their own start from this and add what whole-run solvers cannot see."""
    name, kind, tolerance = answer_field.name, answer_field.kind, answer_field.tolerance
    return tuple(
        m.tag
        for m, wrong in wrong_answers
        if wrong is not None
        and name in wrong
        and equal(kind, student, wrong[name], tolerance)
        and not equal(kind, wrong[name], reference, tolerance)
    )


def part_solver_tags(
    fields: Sequence[AnswerField],
    misconceptions: Sequence[Misconception],
    variant: Variant,
    name: str,
    student: Any,
    reference: Any,
) -> list[str]:
    """``solver_tags`` for part ``name`` of an exercise's ``fields``, every misconception's solver run on
    ``variant``: where a plug-in's ``tag_part`` starts before adding what it reads from the part itself."""
    answer_field = next(f for f in fields if f.name == name)
    return list(solver_tags([(m, m.solve(variant)) for m in misconceptions], answer_field, student, reference))


class Prediction(NamedTuple):
    """What a solver says about one other part, set against what the student wrote there."""

    changes: bool  # the solver's value differs from the key
    agrees: bool  # the student wrote the solver's value (the key, where the solver leaves the part alone)
    right: bool  # the student wrote the key


def predicts(
    answer_field: AnswerField, wrong: Answer | None, student: Any, key: Any, right: bool | None = None
) -> Prediction:
    """Whether a solver's answer changes this part from the key, whether the student's part is what it gives, and
    whether the student's part is the key (``right``, where already known)."""
    kind, tolerance = answer_field.kind, answer_field.tolerance
    if right is None:
        right = equal(kind, student, key, tolerance)
    if wrong is None or answer_field.name not in wrong:
        return Prediction(False, right, right)
    predicted = wrong[answer_field.name]
    return Prediction(not equal(kind, predicted, key, tolerance), equal(kind, student, predicted, tolerance), right)


def consistent_tags(
    fields: Sequence[AnswerField],
    wrong_answers: WrongAnswers,
    name: str,
    tags: Sequence[str],
    answer: Answer,
    key: Answer,
    follows: bool = False,
    checked: Collection[str] | None = None,
) -> tuple[str, ...]:
    """The tags on part ``name`` that the student's other parts do not rule out, the best supported first.

    Only the earlier parts this one is worked out from count (its ``uses``; by default every earlier part, as the
    fields list a chain of steps). A tag is refuted by such a part that its wrong procedure changes and the student
    answered with the key, or by one it ``builds_on`` that the student answered otherwise: the procedure reaches
    this part through a step the student visibly took another way, so its feedback would state a mistake the answer
    does not show. A refuted tag is dropped, even when it is the part's only one: the part then gets the plain rule,
    never a false diagnosis. A right later part refutes nothing, for the mistake shows in this part itself
    (unscaled scores followed by the right weights are still unscaled scores).

    Weaker evidence only ranks: a tag is contradicted by such a part its solver changes that the student got wrong
    another way (they did not take its path to here); on a part with full follow-through (``follows``), by any such
    part its solver answers otherwise, for the part then comes from the student's own earlier steps, which the tag
    must reproduce to explain it. A contradicted tag is dropped there, and elsewhere when another tag on the part is
    not contradicted; a lone one still names a mistake the part shows. Only tags in ``checked`` (default: all) are
    dropped on that evidence: a ``tag_part`` found the others in the part itself, which the whole-run solvers
    cannot see; a part such a tag ``builds_on`` answered otherwise still refutes it. The rest are ranked by the
    parts their solver changes: earlier ones answered otherwise (fewest first), earlier ones matched (most first),
    then likewise later ones.
    """
    solved = {m.tag: wrong for m, wrong in wrong_answers}
    built_on = {m.tag: m.builds_on for m, _ in wrong_answers}
    here = next(index for index, f in enumerate(fields) if f.name == name)
    uses = fields[here].uses
    upstream = {f.name for f in fields[:here]} if uses is None else set(uses)
    ranked: list[tuple[tuple[int, ...], bool, str]] = []
    rights: dict[str, bool] = {}  # whether the student answered a part with the key: the same for every tag
    for tag in tags:
        counts = [0, 0, 0, 0]  # earlier parts it changes answered otherwise, matched; later parts likewise
        contradicted = refuted = False
        for index, other in enumerate(fields):
            if index == here or other.name not in answer or other.name not in key:
                continue
            student, wanted = answer[other.name], key[other.name]
            if other.name not in rights:
                rights[other.name] = equal(other.kind, student, wanted, other.tolerance)
            changes, agrees, right = predicts(other, solved.get(tag), student, wanted, rights[other.name])
            later = 2 if index > here else 0
            counts[later] += changes and not agrees
            counts[later + 1] -= changes and agrees
            if index < here and other.name in upstream:
                contradicted = contradicted or (not agrees and (changes or follows))
                refuted = refuted or (changes and right and (checked is None or tag in checked))
                refuted = refuted or (other.name in built_on.get(tag, ()) and not right)
        if checked is not None and tag not in checked:
            contradicted = False
        if not refuted:
            ranked.append((tuple(counts), contradicted, tag))
    supported = any(not contradicted for _, contradicted, _ in ranked)
    return tuple(
        tag
        for _, contradicted, tag in sorted(ranked, key=lambda item: item[0])
        if not contradicted or not (follows or supported)
    )
