"""ch09.rnn-step, ch09.attention-cost and ch09.multihead-shapes: book numbers, tags, follow-through, variants."""

from __future__ import annotations

import math

import pytest

from exercises import api
from exercises.registry import get_exercise
from exercises.variant_generation import generate_variant
from tests.engine.verdict_support import seeded

RNN = get_exercise("ch09.rnn-step")
COST = get_exercise("ch09.attention-cost")
HEADS = get_exercise("ch09.multihead-shapes")
SEEDS = range(1, 201)


def test_rnn_seed0_uses_column_vectors() -> None:
    variant = generate_variant(RNN, 0)
    answer = RNN.solve(variant)
    # W_h h_prev = [0.75, 0.25], W_x x = [0.5, 0], b = [0, -1]
    assert answer["pre_activation"] == pytest.approx([1.25, -0.75])
    assert answer["h"] == pytest.approx([math.tanh(1.25), math.tanh(-0.75)])
    assert "W_h h_prev + W_x x + b" in RNN.prompt(variant, "en")
    assert "列向量" in RNN.prompt(variant, "zh")


def test_rnn_typed_with_chinese_brackets_and_commas() -> None:
    typed = {"pre_activation": "［1.25，-0.75］", "h": "（0.8483，−0.6351）"}
    result = api.grade("ch09.rnn-step", 0, typed, "zh")
    assert result["status"] == "graded", result["errors"]
    assert result["score"] == 1.0


@pytest.mark.parametrize(
    ("changes", "field", "tag"),
    [
        ({"h": "[1.25, -0.75]"}, "h", "no-tanh"),
        ({"h": "[1.25, 0]"}, "h", "relu-for-tanh"),
        ({"pre_activation": "[-0.75, -2.75]", "h": "[-0.635149, -0.991815]"}, "pre_activation", "transposed-weights"),
    ],
)
def test_rnn_misconceptions_are_tagged(changes: dict[str, str], field: str, tag: str) -> None:
    typed = {"pre_activation": "[1.25, -0.75]", "h": "[0.848284, -0.635149]", **changes}
    part = api.grade("ch09.rnn-step", 0, typed, "en")["parts"][field]
    assert part["misconception"] == tag and not part["correct"]


def test_rnn_h_follows_the_students_own_pre_activation() -> None:
    typed = {"pre_activation": "[1, -0.5]", "h": "[0.761594, -0.462117]"}
    parts = api.grade("ch09.rnn-step", 0, typed, "en")["parts"]
    assert parts["pre_activation"]["score"] == 0.0
    assert parts["h"]["follow_through"] is True and parts["h"]["score"] == 1.0


def test_rnn_random_variants_are_one_decimal_and_unsaturated() -> None:
    for seed in SEEDS:
        variant = seeded(RNN, seed)
        for row in (*variant.data["w_h"], *variant.data["w_x"], variant.data["b"], variant.data["h_prev"]):
            assert all(abs(v * 10 - round(v * 10)) < 1e-9 and abs(v) <= 1 for v in row)
        pre = RNN.solve(variant)["pre_activation"]
        assert 0.5 <= max(map(abs, pre)) <= 3.0 and min(pre) < 0


def test_attention_cost_book() -> None:
    assert generate_variant(COST, 0).data == {"n": 1000, "factor": 2}
    result = api.grade(
        "ch09.attention-cost", 0, {"pairs": "1000^2", "causal_pairs": "1000*1001/2", "growth": "4"}, "zh"
    )
    assert result["score"] == 1.0, result["parts"]


def test_attention_cost_misconceptions() -> None:
    result = api.grade("ch09.attention-cost", 0, {"pairs": "1000000", "causal_pairs": "500000", "growth": "2"}, "en")
    assert result["parts"]["causal_pairs"]["misconception"] == "causal-half-square"
    assert result["parts"]["growth"]["misconception"] == "linear-growth"
    assert result["parts"]["pairs"]["correct"]


def test_attention_cost_half_square_only_for_even_lengths() -> None:
    tag = next(m for m in COST.misconceptions if m.tag == "causal-half-square")
    lengths = {seeded(COST, seed).data["n"] % 2 for seed in SEEDS}
    assert lengths == {0, 1}
    for seed in SEEDS:
        variant = seeded(COST, seed)
        assert (tag.solve(variant) is None) == (variant.data["n"] % 2 == 1)
        assert float(variant.data["factor"] * variant.data["n"]).is_integer()


def test_multihead_book_gpt3() -> None:
    assert HEADS.solve(generate_variant(HEADS, 0)) == {"head_dim": 128, "projection_params": 4 * 12288**2}
    assert "GPT-3" in HEADS.prompt(generate_variant(HEADS, 0), "en")
    result = api.grade("ch09.multihead-shapes", 0, {"head_dim": "12288", "projection_params": "3*12288^2"}, "en")
    assert result["parts"]["head_dim"]["misconception"] == "not-split"
    assert result["parts"]["projection_params"]["misconception"] == "three-projections"
    assert result["score"] == 0.0


def test_multihead_random_shapes_divide_evenly() -> None:
    shapes = set()
    for seed in SEEDS:
        data = seeded(HEADS, seed).data
        assert data["d_model"] % data["heads"] == 0
        shapes.add((data["d_model"], data["heads"]))
    assert len(shapes) > 20


def test_attention_cost_odd_length_half_square_rounded_is_named() -> None:
    # For an odd n the half square n²/2 is not whole (12.5 for n = 5): a count field refuses it, so the student who
    # halved the square writes it rounded, down or up, and that answer was left unnamed.
    odd = [seed for seed in range(1, 400) if seeded(COST, seed).data["n"] % 2]
    assert len(odd) > 30
    for seed in odd:
        variant = seeded(COST, seed)
        n, key = variant.data["n"], COST.solve(variant)
        typed = {"pairs": str(key["pairs"]), "growth": str(key["growth"])}
        for rounded in (n * n // 2, n * n // 2 + 1):
            part = api.grade(COST.id, seed, {**typed, "causal_pairs": str(rounded)}, "en")["parts"]["causal_pairs"]
            assert (part["score"], part["misconception"]) == (0.0, "causal-half-square"), (seed, rounded)
        for other in (n * n // 2 - 1, n * n // 2 + 2, key["causal_pairs"]):
            part = api.grade(COST.id, seed, {**typed, "causal_pairs": str(other)}, "en")["parts"]["causal_pairs"]
            assert "causal-half-square" not in part["tags"], (seed, other)
