"""A vector or matrix of a shape the variant does not give it is unreadable, never graded (engine 1.6.0).

The catalogue: "Shape is checked before values, with a message that names the expected shape", and unreadable answers
use no attempt. So a flattened, shortened or lengthened vector or matrix is refused by ``validate`` with the seed
(the preview, and the service before storing) and by ``grade``, while the reference and every wrong procedure's answer
read and grade exactly as before; a list's own length (how many encoder states) still scores element by element.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest

from exercises import api, gradable
from exercises.base import AnswerField, Misconception, Variant
from exercises.checking import check_answer, to_json
from exercises.comparators import SHAPED_KINDS, equal, shape_of
from exercises.gradable import variant_errors
from exercises.i18n import Text
from exercises.plugin import Exercise
from exercises.readers import display
from exercises.registry import EXERCISES, get_exercise
from exercises.variant_generation import generate_variant
from tests.engine.verdict_support import seeded, variants

SEED_COUNT = int(os.environ.get("GRADER_PROPERTY_SEEDS", "200"))
BOTH_LANGS_SEEDS = 25  # every reshape is checked in both languages on the first seeds, in one language after
SHAPED = [e.id for e in EXERCISES if any(f.kind in SHAPED_KINDS for f in e.fields)]
Reshape = Callable[[Any], Any]


def _flat(value: Any) -> list[float]:
    """Every number of a vector, matrix or list of vectors in reading order."""
    return [x for row in value for x in row] if value and isinstance(value[0], (list, tuple)) else list(value)


# Per kind: (name, reshape, how the result is typed). Each gives a shape the variant does not give the part.
RESHAPES: dict[str, list[tuple[str, Reshape, str]]] = {
    "vector": [("drop-last", lambda v: list(v[:-1]), "vector"), ("extra", lambda v: [*v, 0.5], "vector")],
    "matrix": [
        ("flattened", _flat, "vector"),  # typed "0.0114, 0.1933, …": one row of r·c numbers
        ("drop-row", lambda m: [list(r) for r in m[:-1]], "matrix"),
        ("extra-row", lambda m: [*map(list, m), list(m[-1])], "matrix"),
        ("drop-column", lambda m: [list(r[:-1]) for r in m], "matrix"),
        ("extra-column", lambda m: [[*r, 0.5] for r in m], "matrix"),
    ],
    "vectors": [
        ("flattened", _flat, "vector"),  # typed "2a, 0, 0, 0, a, 0": one vector of k·w numbers
        ("first-short", lambda vs: [list(vs[0][:-1]), *map(list, vs[1:])], "vectors"),
        ("last-long", lambda vs: [*map(list, vs[:-1]), [*vs[-1], 0.5]], "vectors"),
    ],
}


def _shape_words(kind: str, reference: Any, read: Any, lang: str) -> str:
    """The start of the refusal: the expected and the read shape, as the engine must name them."""
    if kind == "vector":
        return (
            f"Expected {len(reference)} numbers, read {len(read)}."
            if lang == "en"
            else f"应为 {len(reference)} 个数，读到 {len(read)} 个。"
        )
    if kind == "matrix":
        (rows, cols), (got_rows, got_cols) = shape_of(reference), shape_of(read)
        return (
            f"Expected a {rows}×{cols} matrix, read {got_rows}×{got_cols}."
            if lang == "en"
            else f"应为 {rows}×{cols} 的矩阵，读到 {got_rows}×{got_cols}。"
        )
    width = len(reference[0])
    index, row = next((i, row) for i, row in enumerate(read, start=1) if len(row) != width)
    return (
        f"Vector {index} should have {width} numbers, read {len(row)}."
        if lang == "en"
        else f"第 {index} 个向量应有 {width} 个数，读到 {len(row)} 个。"
    )


def _typed_key(exercise: Exercise, variant: Variant) -> dict[str, str]:
    """The reference answer as a student would type it."""
    reference = exercise.solve(variant)
    return {f.name: display(f.kind, reference[f.name], "en") for f in exercise.fields}


def _cases() -> list[tuple[str, str, str]]:
    """(exercise id, field, reshape) for every vector or matrix part of every exercise."""
    return [
        (e.id, f.name, name)
        for e in EXERCISES
        for f in e.fields
        if f.kind in SHAPED_KINDS
        for name, _, _ in RESHAPES[f.kind]
    ]


@pytest.mark.parametrize(("exercise_id", "field_name", "reshape_name"), _cases())
def test_a_reshaped_part_is_refused_by_validate_and_grade(exercise_id: str, field_name: str, reshape_name: str) -> None:
    exercise = get_exercise(exercise_id)
    answer_field = exercise.answer_field(field_name)
    reshape, typed_as = next((r, t) for name, r, t in RESHAPES[answer_field.kind] if name == reshape_name)
    for variant in variants(exercise_id, SEED_COUNT):
        reference = exercise.solve(variant)[field_name]
        reshaped = reshape(reference)
        answer = {**_typed_key(exercise, variant), field_name: display(typed_as, reshaped, "en")}
        langs = ("en", "zh") if variant.seed < BOTH_LANGS_SEEDS else ("en" if variant.seed % 2 else "zh",)
        for lang in langs:
            other = "zh" if lang == "en" else "en"
            graded = api.grade(exercise_id, variant.seed, answer, lang)
            assert graded["status"] == "invalid" and graded["score"] is None and graded["parts"] == {}, (
                variant.seed,
                answer,
                graded,
            )
            [error] = graded["errors"]
            read = graded["parsed"][field_name]
            assert error["field"] == field_name
            assert error["message"].startswith(_shape_words(answer_field.kind, reference, read, lang)), (
                variant.seed,
                error,
            )
            # The preview, given the variant, refuses it with the same words (the service does so before storing).
            preview = api.validate(exercise_id, answer, other, variant.seed)
            assert preview["status"] == "invalid" and preview["parsed"][field_name] == read
            assert [e["field"] for e in preview["errors"]] == [field_name]
            assert (
                preview["errors"][0]["message"]
                == api.grade(exercise_id, variant.seed, answer, other)["errors"][0]["message"]
            )
            assert preview["errors"][0]["message"].startswith(_shape_words(answer_field.kind, reference, read, other))
        if variant.seed < 3:
            # Without the variant only the text can be judged, and the text is well formed.
            assert api.validate(exercise_id, answer, "en")["status"] == "valid"


@pytest.mark.parametrize("exercise_id", SHAPED)
def test_exercises_with_a_vector_or_matrix_part_read_per_variant(exercise_id: str) -> None:
    assert api.reads_per_variant(exercise_id)


def test_exercises_without_one_do_not_need_the_variant_to_read() -> None:
    plain = [e.id for e in EXERCISES if e.id not in SHAPED and not any(f.one_per_item for f in e.fields)]
    assert plain and not any(api.reads_per_variant(exercise_id) for exercise_id in plain)
    assert api.reads_per_variant("l03.concept-check")


def _graded_without_the_shape_check(
    monkeypatch: pytest.MonkeyPatch, exercise_id: str, seed: int, answer: dict[str, Any]
) -> dict[str, Any]:
    """``api.grade`` as the engine graded before shapes were validated."""
    with monkeypatch.context() as patched:
        patched.setattr(gradable, "shape_errors", lambda *args, **kwargs: ())
        return api.grade(exercise_id, seed, answer, "en")


@pytest.mark.parametrize("exercise_id", SHAPED)
def test_the_key_and_every_wrong_procedure_read_and_grade_as_before(
    exercise_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    exercise = get_exercise(exercise_id)
    tagged = {m.tag: 0 for m in exercise.misconceptions}
    for variant in variants(exercise_id, SEED_COUNT):
        reference = exercise.solve(variant)
        key = to_json(dict(reference))
        assert api.validate(exercise_id, key, "en", variant.seed)["status"] == "valid"
        assert api.grade(exercise_id, variant.seed, key, "en")["score"] == 1.0
        assert api.validate(exercise_id, _typed_key(exercise, variant), "zh", variant.seed)["status"] == "valid"
        for misconception in exercise.misconceptions:
            wrong = misconception.solve(variant)
            if wrong is None:
                continue
            answer = to_json({**reference, **wrong})
            assert api.validate(exercise_id, answer, "en", variant.seed)["status"] == "valid", (
                misconception.tag,
                variant.seed,
            )
            graded = api.grade(exercise_id, variant.seed, answer, "en")
            assert graded == _graded_without_the_shape_check(monkeypatch, exercise_id, variant.seed, answer)
            assert graded["status"] == "graded" and graded["score"] < 1.0
            changed = [
                name
                for name in wrong
                if not equal(
                    exercise.answer_field(name).kind,
                    wrong[name],
                    reference[name],
                    exercise.answer_field(name).tolerance,
                )
            ]
            for name in changed:
                assert misconception.tag in graded["parts"][name]["tags"], (misconception.tag, variant.seed, name)
            tagged[misconception.tag] += 1
    assert all(tagged.values()), tagged


# --- A list's own length still scores element by element (only each vector in it must have its length) ---------

STATES = "ch13.encoder-states"


@pytest.mark.parametrize("seed", range(0, 40))
def test_encoder_states_a_state_missing_or_extra_is_graded_element_by_element(seed: int) -> None:
    key = api.answer_key(STATES, seed)["states"]
    count = len(key)
    for states, score in ((key[:-1], (count - 1) / count), ([*key, [0.0, 0.0]], count / (count + 1))):
        assert api.validate(STATES, {"states": states}, "en", seed)["status"] == "valid"
        part = api.grade(STATES, seed, {"states": states}, "en")["parts"]["states"]
        assert part["score"] == pytest.approx(score, abs=1e-6) and not part["correct"]  # matched / longer list
    # h_0 listed first (one state too many): the wrong procedure, graded and tagged as before.
    h_0 = seeded(get_exercise(STATES), seed).data["encoder"]["h_0"]
    assert api.validate(STATES, {"states": [h_0, *key]}, "en", seed)["status"] == "valid"
    assert "includes-h0" in api.grade(STATES, seed, {"states": [h_0, *key]}, "en")["parts"]["states"]["tags"]


# --- The cases QA found ---------------------------------------------------------------------------------------

QA_CASES = [
    (
        "ch09.scaled-dot-attention",
        "weights",
        "0.0114, 0.1933, 0.7953, 0.1933, 0.0114, 0.7953, 0.0134, 0.0134, 0.9732",
        "3×3",
        "1×9",
    ),
    ("ch13.encoder-states", "states", "2a,0,0,0,a,0,3a,a", "2", "8"),
    ("ch13.encoder-states", "states", "[2a,0,0],[0,0],[a,0],[3a,a]", "2", "3"),
    ("ch09.rnn-step", "pre_activation", "1.25, -0.75, 0.5", "2", "3"),
]


@pytest.mark.parametrize(("exercise_id", "field_name", "typed", "expected", "read"), QA_CASES)
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_reported_answers_are_refused_naming_both_shapes(
    exercise_id: str, field_name: str, typed: str, expected: str, read: str, lang: str
) -> None:
    answer = {
        **_typed_key(get_exercise(exercise_id), generate_variant(get_exercise(exercise_id), 0)),
        field_name: typed,
    }
    assert api.validate(exercise_id, answer, lang)["status"] == "valid"  # the text alone is fine
    preview = api.validate(exercise_id, answer, lang, 0)
    graded = api.grade(exercise_id, 0, answer, lang)
    assert preview["status"] == graded["status"] == "invalid" and graded["score"] is None
    assert preview["errors"] == graded["errors"]
    [error] = graded["errors"]
    assert error["field"] == field_name and expected in error["message"] and read in error["message"]
    assert ("cannot be checked entry by entry" in error["message"]) == (lang == "en")
    assert ("无法逐项核对" in error["message"]) == (lang == "zh")


def test_numbers_typed_in_one_run_are_told_how_to_write_rows() -> None:
    [flat] = api.grade(
        "ch09.scaled-dot-attention",
        0,
        {
            **_typed_key(
                get_exercise("ch09.scaled-dot-attention"),
                generate_variant(get_exercise("ch09.scaled-dot-attention"), 0),
            ),
            "weights": "1, 2, 3, 4, 5, 6, 7, 8, 9",
        },
        "en",
    )["errors"]
    assert "Write a matrix row by row" in flat["message"]
    [states] = api.grade(STATES, 0, {"states": "2a,0,0,0,a,0,3a,a"}, "zh")["errors"]
    assert "每个向量写在自己的括号里" in states["message"]
    [column] = api.grade(STATES, 0, {"states": "a\n0\n0\na\n0\n0"}, "en")["errors"]  # one number per line
    assert (
        column["message"].startswith("Vector 1 should have 2 numbers, read 1.")
        and "brackets of its own" in column["message"]
    )
    # Rows already bracketed need no such advice.
    [bracketed] = api.grade(STATES, 0, {"states": "[2a,0,0],[0,0],[a,0],[3a,a]"}, "en")["errors"]
    assert "brackets of its own" not in bracketed["message"]


# --- A shape a wrong procedure gives on this variant is graded and tagged, not refused ------------------------


def _transposer() -> Exercise:
    """A one-part exercise whose only misconception writes the 3×2 answer transposed (2×3)."""
    key = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
    transposed = [list(column) for column in zip(*key)]
    text = Text("矩阵", "matrix")
    return Exercise(
        id="test.transposer",
        chapter="test",
        title=text,
        fields=(AnswerField("product", "matrix", text, text, Text("规则。", "Rule.")),),
        book_data=lambda: {"n": 3},
        random_data=lambda rng, seed: {"n": 3},
        solve=lambda variant: {"product": key},
        prompt=lambda variant, lang: "",
        misconceptions=(
            Misconception(
                "transposed",
                lambda variant: {"product": transposed},
                Text("转置了。", "Transposed."),
                name=Text("转置", "Transposed"),
            ),
        ),
    )


def test_a_wrong_procedures_shape_is_graded_and_tagged() -> None:
    exercise = _transposer()
    variant = generate_variant(exercise, 0)
    transposed = exercise.misconceptions[0].solve(variant)
    assert variant_errors(exercise, variant, transposed, "en") == ()
    part = check_answer(exercise, variant, transposed, "en").parts["product"]
    assert part.score == 0.0 and part.misconception == "transposed"
    # Its shape is graded even with other numbers (a wrong part, named as of another shape in its feedback).
    other = check_answer(exercise, variant, {"product": [[9.0, 9.0, 9.0], [9.0, 9.0, 9.0]]}, "en")
    assert other.status == "graded" and other.parts["product"].feedback.startswith(
        "Not right yet. Expected a 3×2 matrix, read 2×3."
    )
    # Any other shape is unreadable.
    refused = check_answer(exercise, variant, {"product": [[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]]}, "zh")
    assert refused.status == "invalid" and refused.score is None
    assert [e.field for e in refused.errors] == ["product"] and refused.errors[0].message.startswith(
        "应为 3×2 的矩阵，读到 1×6。"
    )


def test_the_preview_names_a_wrong_shape_before_the_other_parts_are_filled() -> None:
    # Found by an audit: nine numbers on one line for a 3×3 matrix read "✓ read as [[…]]" (1×9) until every other
    # part was answered; the shape was checked only on a whole answer.
    reading = api.validate(
        "ch09.scaled-dot-attention", {"weights": "0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9"}, "en", seed=0
    )
    by_field = {error["field"]: error["message"] for error in reading["errors"]}
    assert "3×3" in by_field["weights"] and "1×9" in by_field["weights"]
    assert "not been answered" in by_field["output"]
