"""A plug-in module's exercise is collected from the names it declares (``Exercise.declared_in(globals())``)."""

from __future__ import annotations

import sys

from exercises.i18n import Text
from exercises.plugin import Exercise
from exercises.registry import EXERCISES


def _book() -> dict[str, object]:
    """A book variant's data."""
    return {"n": 1}


def _drawn(rng: object, seed: int) -> dict[str, object]:
    """A drawn variant's data."""
    return {"n": seed}


def _solve(variant: object) -> dict[str, object]:
    """The key."""
    return {}


def _prompt(variant: object, lang: str) -> str:
    """The question."""
    return ""


def _quality(variant: object) -> str | None:
    """Nothing to refuse."""
    return None


MODULE = {
    "ID": "ch99.declared",
    "TITLE": Text("标题", "Title"),
    "FIELDS": (),
    "book_data": _book,
    "random_data": _drawn,
    "solve": _solve,
    "prompt": _prompt,
    "quality": _quality,
    "unrelated": _quality,
}


def test_pieces_are_taken_by_their_contract_names_and_the_chapter_from_the_id() -> None:
    exercise = Exercise.declared_in(MODULE)
    assert (exercise.id, exercise.chapter, exercise.title) == ("ch99.declared", "ch99", Text("标题", "Title"))
    assert (exercise.book_data, exercise.random_data, exercise.solve, exercise.prompt) == (
        _book,
        _drawn,
        _solve,
        _prompt,
    )
    assert exercise.quality is _quality
    # What the module does not define keeps the dataclass default.
    assert (exercise.follow_through, exercise.tag_part, exercise.steps, exercise.data_text) == (None,) * 4
    assert (exercise.misconceptions, dict(exercise.symbols)) == ((), {})


def test_a_piece_named_otherwise_is_passed_by_keyword_and_wins() -> None:
    exercise = Exercise.declared_in(MODULE, quality=None, data_text=_prompt)
    assert exercise.quality is None
    assert exercise.data_text is _prompt


def test_every_registered_exercise_is_its_modules_declaration() -> None:
    for exercise in EXERCISES:
        module = next(m for m in list(sys.modules.values()) if getattr(m, "EXERCISE", None) is exercise)
        assert (exercise.id, exercise.title, exercise.fields) == (module.ID, module.TITLE, module.FIELDS)
        assert exercise.solve is module.solve and exercise.prompt is module.prompt
        assert exercise.id.startswith(exercise.chapter + ".")
