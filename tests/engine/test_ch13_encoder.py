"""ch13.encoder-states and ch13.encoder-collision: book numbers, typed forms, follow-through, variant mixes."""

from __future__ import annotations

import math

import pytest

from exercises import api
from exercises.ch13.common import COLOURS, NOUNS, A
from exercises.ch13.encoder import SOURCE_END, book_encoder, run_encoder, vector_text, vocab_from_units
from exercises.registry import get_exercise
from exercises.variant_generation import generate_variant
from tests.engine.verdict_support import seeded

STATES = get_exercise("ch13.encoder-states")
COLLISION = get_exercise("ch13.encoder-collision")
SEEDS = range(1, 201)
BOOK_COLLISION = {
    "pre_activation": "[-a, a]",
    "post_activation": "[0, a]",
    "collision_step": "2",
    "final_equal": "true",
    "teacher_forcing_separates": "false",
}


def test_book_encoder_reproduces_table_13_2() -> None:
    vocab = vocab_from_units({"红色": (1, 0), "蓝色": (0, 0), "钥匙": (-1, 1), "。": (0, -1)})
    red = run_encoder(vocab, book_encoder(), ["红色", "钥匙", "。"])
    blue = run_encoder(vocab, book_encoder(), ["蓝色", "钥匙", "。"])
    assert [vector_text(step.state) for step in red] == ["[a, 0]", "[0, a]", "[0, 0]"]
    assert [vector_text(step.state) for step in blue] == ["[0, 0]", "[0, a]", "[0, 0]"]
    assert vector_text(blue[1].pre) == "[-a, a]"


def test_book_states_variant_and_answer() -> None:
    variant = generate_variant(STATES, 0)
    assert variant.data["source"] == ["红色", "钥匙", "。"]
    assert math.isclose(variant.data["a"], A)
    assert variant.data["source_vocab"]["钥匙"] == [-A, A]
    assert variant.data["encoder"] == {
        "W_x": [[1, 0], [0, 1]],
        "W_h": [[1, 0], [0, 1]],
        "b": [0.0, 0.0],
        "h_0": [0.0, 0.0],
    }
    assert STATES.solve(variant) == {"states": [[A, 0.0], [0.0, A], [0.0, 0.0]]}


@pytest.mark.parametrize(
    "typed",
    [
        "[a, 0], [0, a], [0, 0]",
        "［a，0］，［0，a］，［0，0］",
        "[ln2, 0]\n[0, ln(2)]\n[0, 0]",
        "[0.693, 0], [0, 0.6931], [0, 0]",
    ],
)
def test_book_states_typed_forms_score_one(typed: str) -> None:
    result = api.grade("ch13.encoder-states", 0, {"states": typed}, "zh")
    assert result["status"] == "graded", result["errors"]
    assert result["score"] == 1.0


def test_listing_h0_is_tagged() -> None:
    result = api.grade("ch13.encoder-states", 0, {"states": "[0, 0], [a, 0], [0, a], [0, 0]"}, "en")
    part = result["parts"]["states"]
    assert part["misconception"] == "includes-h0"
    assert "h_0" in part["feedback"]


def test_state_right_from_own_wrong_state_gets_follow_through() -> None:
    # State 2 is wrong ([a, a]); state 3 = ReLU([a, a] + [0, -a]) = [a, 0] is right given it.
    part = api.grade("ch13.encoder-states", 0, {"states": "[a, 0], [a, a], [a, 0]"}, "en")["parts"]["states"]
    assert part["follow_through"] is True
    assert part["score"] == pytest.approx(2 / 3, abs=1e-6)


def test_wrong_state_not_following_own_step_gets_no_follow_through() -> None:
    part = api.grade("ch13.encoder-states", 0, {"states": "[a, 0], [a, a], [0, a]"}, "en")["parts"]["states"]
    assert part["follow_through"] is False
    assert part["score"] == pytest.approx(1 / 3, abs=1e-6)


def test_abs_and_no_relu_are_told_apart_on_random_variants() -> None:
    for seed in SEEDS:
        variant = seeded(STATES, seed)
        reference = STATES.solve(variant)["states"]
        by_tag = {m.tag: m.solve(variant) for m in STATES.misconceptions}
        assert by_tag["no-relu"] is not None and by_tag["abs-for-relu"] is not None
        assert by_tag["no-relu"]["states"] != reference
        assert by_tag["abs-for-relu"]["states"] != reference


def test_random_states_variants_stay_in_the_chapter_rules() -> None:
    pool = set(COLOURS.values()) | set(NOUNS.values()) | {SOURCE_END}
    for seed in SEEDS:
        data = seeded(STATES, seed).data
        assert set(data["source"]) <= pool and data["source"][-1] == SOURCE_END
        for token, units in data["source_vocab_in_a"].items():
            assert all(-2 <= k <= 2 for k in units)
            assert data["source_vocab"][token] == [k * A for k in units]
        for state in STATES.solve(seeded(STATES, seed))["states"]:
            assert all(abs(v / A - round(v / A)) < 1e-9 and abs(v) <= 4 * A + 1e-9 for v in state)


def test_book_collision_answer_and_data() -> None:
    variant = generate_variant(COLLISION, 0)
    assert variant.data["source_a"] == ["红色", "钥匙", "。"]
    assert variant.data["source_b"] == ["蓝色", "钥匙", "。"]
    assert variant.data["probe_step"] == 2
    result = api.grade("ch13.encoder-collision", 0, BOOK_COLLISION, "zh")
    assert result["score"] == 1.0, result["parts"]


def test_book_collision_typed_in_chinese() -> None:
    typed = {
        "pre_activation": "［-a，a］",
        "post_activation": "（0，a）",
        "collision_step": "2",
        "final_equal": "是",
        "teacher_forcing_separates": "不能",
    }
    result = api.grade("ch13.encoder-collision", 0, typed, "zh")
    assert result["status"] == "graded", result["errors"]
    assert result["score"] == 1.0


@pytest.mark.parametrize(
    ("changes", "field", "tag"),
    [
        (
            {"post_activation": "[-a, a]", "collision_step": "none", "final_equal": "false"},
            "post_activation",
            "no-relu",
        ),
        ({"pre_activation": "[0, a]"}, "pre_activation", "path-a-state"),
        ({"collision_step": "3"}, "collision_step", "collision-at-final"),
        ({"teacher_forcing_separates": "yes"}, "teacher_forcing_separates", "teacher-forcing-separates"),
    ],
)
def test_book_collision_misconceptions_are_tagged(changes: dict[str, str], field: str, tag: str) -> None:
    result = api.grade("ch13.encoder-collision", 0, {**BOOK_COLLISION, **changes}, "en")
    assert result["parts"][field]["misconception"] == tag
    assert result["score"] < 1.0


def test_post_activation_follows_the_students_own_pre_activation() -> None:
    answer = {**BOOK_COLLISION, "pre_activation": "[a, -a]", "post_activation": "[a, 0]"}
    part = api.grade("ch13.encoder-collision", 0, answer, "en")["parts"]["post_activation"]
    assert part["follow_through"] is True and part["score"] == 1.0 and not part["correct"]


def test_post_activation_gets_no_follow_through_when_relu_would_change_nothing() -> None:
    # Their pre-activation has no negative coordinate, so copying it (the no-ReLU mistake) would look right too.
    answer = {**BOOK_COLLISION, "pre_activation": "[a, a]", "post_activation": "[a, a]"}
    part = api.grade("ch13.encoder-collision", 0, answer, "en")["parts"]["post_activation"]
    assert part["score"] == 0.5 and not part["follow_through"]  # only the coordinate that matches the key counts


def test_collision_variant_mix() -> None:
    collisions = []
    for seed in SEEDS:
        variant = seeded(COLLISION, seed)
        answer = COLLISION.solve(variant)
        data, probe = variant.data, variant.data["probe_step"]
        assert data["source_a"][1:] == data["source_b"][1:] and data["source_a"][0] != data["source_b"][0]
        assert answer["pre_activation"] != answer["post_activation"], seed  # ReLU clips at the probe
        assert answer["teacher_forcing_separates"] is False
        assert answer["final_equal"] is (answer["collision_step"] is not None)
        if answer["collision_step"] is not None:
            assert answer["collision_step"] >= 2 and probe <= answer["collision_step"]
        collisions.append((answer["collision_step"], len(data["source_b"])))
    never = sum(step is None for step, _ in collisions)
    before_final = sum(step is not None and step < length for step, length in collisions)
    at_final = sum(step == length for step, length in collisions)
    assert never > 20 and before_final > 60 and at_final > 5
