"""ch09.scaled-dot-attention and l03.additive-attention: book numbers, tags, follow-through and variant mixes."""

from __future__ import annotations

import math

import numpy as np

from exercises import api
from exercises.checking import check_answer
from exercises.registry import get_exercise
from exercises.variant_generation import generate_variant, rejection_reason
from tests.engine.verdict_support import seeded

SCALED = "ch09.scaled-dot-attention"
ADDITIVE = "l03.additive-attention"
R2 = math.sqrt(2)


def _row_softmax(rows: list[list[float]]) -> list[list[float]]:
    """Softmax per row, written out independently of the engine."""
    out = []
    for row in rows:
        exps = [math.exp(x) for x in row]
        out.append([e / sum(exps) for e in exps])
    return out


def _matrix_text(rows: list[list[float]]) -> str:
    """A matrix typed with Chinese commas and semicolons, 6 decimals."""
    return "；".join("，".join(f"{x:.6f}" for x in row) for row in rows)


def test_scaled_book_variant_numbers_and_prompt() -> None:
    shown = api.variant(SCALED, 0, "zh")
    assert shown["data"]["q"] == [[1, 0], [0, 1], [1, 1]]
    assert shown["data"]["k"] == [[1, 0], [0, 1], [2, 2]]
    assert shown["data"]["v"] == [[1, 0], [0, 1], [1, 1]]
    assert "d_k = 2" in shown["prompt"]
    assert "d_k = 2" in api.variant(SCALED, 0, "en")["prompt"]


def test_scaled_book_answer_typed_with_chinese_punctuation_scores_one() -> None:
    raw = [[1, 0, 2], [0, 1, 2], [1, 1, 4]]
    scores = [[x / R2 for x in row] for row in raw]
    weights = _row_softmax(scores)
    output = [[w[0] * 1 + w[2] * 1, w[1] * 1 + w[2] * 1] for w in weights]
    answer = {
        "scores": "[[1/sqrt(2)，0，sqrt(2)]，[0，1/√2，√2]，[1/sqrt(2)，1/sqrt(2)，2*sqrt(2)]]",
        "weights": _matrix_text(weights),
        "output": _matrix_text(output),
        "diagonal_dominant": "否",
    }
    result = api.grade(SCALED, 0, answer, "zh")
    assert result["status"] == "graded", result["errors"]
    assert result["score"] == 1.0, result["parts"]


def test_scaled_book_misconceptions_are_named() -> None:
    unscaled = [[1, 0, 2], [0, 1, 2], [1, 1, 4]]
    by_d = [[x / 2 for x in row] for row in unscaled]
    transposed = [[row[i] / R2 for row in unscaled] for i in range(3)]
    cases = {"unscaled": unscaled, "scaled-by-d": by_d, "kq-transposed": transposed}
    exercise = get_exercise(SCALED)
    variant = generate_variant(exercise, 0)
    for tag, scores in cases.items():
        answer = {**exercise.solve(variant), "scores": scores}
        part = check_answer(exercise, variant, answer, "en").parts["scores"]
        assert not part.correct and part.misconception == tag


def test_scaled_weights_over_columns_and_raw_scores_are_named() -> None:
    exercise = get_exercise(SCALED)
    variant = generate_variant(exercise, 0)
    scores = [[x / R2 for x in row] for row in [[1, 0, 2], [0, 1, 2], [1, 1, 4]]]
    columns = np.asarray(_row_softmax(np.asarray(scores).T.tolist())).T.tolist()
    for tag, weights in (("softmax-over-columns", columns), ("no-softmax", scores)):
        part = check_answer(exercise, variant, {**exercise.solve(variant), "weights": weights}, "en").parts["weights"]
        assert part.misconception == tag and not part.correct


def test_scaled_follow_through_from_unscaled_scores() -> None:
    exercise = get_exercise(SCALED)
    variant = generate_variant(exercise, 0)
    scores = [[1, 0, 2], [0, 1, 2], [1, 1, 4]]
    weights = _row_softmax(scores)
    output = (np.asarray(weights) @ np.asarray(variant.data["v"])).tolist()
    result = check_answer(
        exercise, variant, {"scores": scores, "weights": weights, "output": output, "diagonal_dominant": False}, "en"
    )
    assert result.parts["scores"].score < 1.0 and not result.parts["scores"].follow_through
    for name in ("weights", "output"):
        assert result.parts[name].follow_through and result.parts[name].score == 1.0
        assert not result.parts[name].correct


def test_scaled_diagonal_follow_through_uses_student_weights() -> None:
    exercise = get_exercise(SCALED)
    variant = generate_variant(exercise, 0)
    weights = [[0.6, 0.3, 0.1], [0.2, 0.7, 0.1], [0.1, 0.1, 0.8]]  # the student's own (wrong) weights
    answer = {**exercise.solve(variant), "weights": weights, "diagonal_dominant": True}
    part = check_answer(exercise, variant, answer, "en").parts["diagonal_dominant"]
    assert part.follow_through and part.score == 1.0


def test_scaled_variants_mix_yes_and_no_without_row_ties() -> None:
    exercise = get_exercise(SCALED)
    answers = []
    for seed in range(1, 201):
        variant = seeded(exercise, seed)
        for name in ("q", "k", "v"):
            values = np.asarray(variant.data[name])
            assert values.shape == (3, 2) and values.min() >= -2 and values.max() <= 2
        reference = exercise.solve(variant)
        for row in reference["scores"]:
            top = sorted(row, reverse=True)
            assert top[0] - top[1] > 0.5
        answers.append(reference["diagonal_dominant"])
    assert 0.25 < sum(answers) / len(answers) < 0.75


def test_scaled_solution_matches_an_independent_computation() -> None:
    exercise = get_exercise(SCALED)
    for seed in range(1, 40):
        data = seeded(exercise, seed).data
        q, k, v = data["q"], data["k"], data["v"]
        scores = [[(qi[0] * kj[0] + qi[1] * kj[1]) / R2 for kj in k] for qi in q]
        weights = _row_softmax(scores)
        reference = exercise.solve(seeded(exercise, seed))
        assert np.allclose(reference["scores"], scores) and np.allclose(reference["weights"], weights)
        assert np.allclose(
            reference["output"], [[sum(w[j] * v[j][c] for j in range(3)) for c in range(2)] for w in weights]
        )
        assert reference["diagonal_dominant"] == all(
            max(range(3), key=w.__getitem__) == i for i, w in enumerate(weights)
        )


def _additive_reference(data: dict) -> tuple[list[float], list[float], list[float]]:
    """Scores, weights and context computed with plain loops."""
    s, w, u, v = data["s_prev"], data["w"], data["u"], data["v"]
    scores = []
    for h in data["hs"]:
        inner = [w[r][0] * s[0] + w[r][1] * s[1] + u[r][0] * h[0] + u[r][1] * h[1] for r in range(2)]
        scores.append(v[0] * math.tanh(inner[0]) + v[1] * math.tanh(inner[1]))
    weights = _row_softmax([scores])[0]
    context = [sum(a * h[c] for a, h in zip(weights, data["hs"])) for c in range(2)]
    return scores, weights, context


def test_additive_book_answer_typed_as_text_scores_one() -> None:
    data = api.variant(ADDITIVE, 0)["data"]
    assert data["hs"] == [[1, 0], [0, 1], [-1, 0]] and data["s_prev"] == [1, 0]
    scores = [math.tanh(2), 2 * math.tanh(1), 0.0]
    weights = _row_softmax([scores])[0]
    context = [weights[0] - weights[2], weights[1]]
    answer = {
        "scores": "0.96403，2*0.761594，0",
        "weights": "，".join(f"{x:.5f}" for x in weights),
        "context": f"({context[0]:.5f}, {context[1]:.5f})",
    }
    result = api.grade(ADDITIVE, 0, answer, "zh")
    assert result["status"] == "graded", result["errors"]
    assert result["score"] == 1.0, result["parts"]


def test_additive_solution_matches_an_independent_computation() -> None:
    exercise = get_exercise(ADDITIVE)
    lengths = set()
    for seed in range(1, 60):
        variant = seeded(exercise, seed)
        lengths.add(len(variant.data["hs"]))
        expected = _additive_reference(dict(variant.data))
        reference = exercise.solve(variant)
        for name, values in zip(("scores", "weights", "context"), expected):
            assert np.allclose(reference[name], values), (seed, name)
    assert lengths == {3, 4}


def test_additive_misconceptions_tag_their_parts() -> None:
    exercise = get_exercise(ADDITIVE)
    variant = generate_variant(exercise, 0)
    reference = exercise.solve(variant)
    cases = [
        ("scores", [1, 0, -1], "dot-product-score"),
        ("weights", "1/3, 1/3, 1/3", "uniform-average"),
        ("weights", reference["scores"], "no-softmax"),
    ]
    for name, value, tag in cases:
        typed = {**{k: v for k, v in reference.items()}, name: value}
        result = api.grade(ADDITIVE, 0, typed, "en")
        assert result["parts"][name]["misconception"] == tag, (tag, result["parts"][name])


def test_additive_follow_through_chain_from_dot_product_scores() -> None:
    exercise = get_exercise(ADDITIVE)
    variant = generate_variant(exercise, 0)
    scores = [1.0, 0.0, -1.0]
    weights = _row_softmax([scores])[0]
    context = [weights[0] - weights[2], weights[1]]
    result = check_answer(exercise, variant, {"scores": scores, "weights": weights, "context": context}, "en")
    assert result.parts["scores"].misconception == "dot-product-score"
    assert result.parts["weights"].follow_through and result.parts["weights"].score == 1.0
    assert result.parts["context"].follow_through and result.parts["context"].score == 1.0
    uniform = check_answer(
        exercise, variant, {**exercise.solve(variant), "weights": [1 / 3] * 3, "context": [0.0, 1 / 3]}, "en"
    )
    assert uniform.parts["context"].follow_through and not uniform.parts["weights"].follow_through


def test_book_variants_pass_their_own_quality_rules() -> None:
    for exercise_id in (SCALED, ADDITIVE, "l03.superposition-readback", "l03.concept-check"):
        exercise = get_exercise(exercise_id)
        assert rejection_reason(exercise, generate_variant(exercise, 0)) is None, exercise_id


def test_follow_through_never_lets_a_misconception_score_one() -> None:
    # Seed 205 once drew near-equal row and column softmaxes: the weights passed within tolerance and
    # follow-through then credited the output, so the whole wrong answer scored 1.
    for exercise_id in (SCALED, ADDITIVE):
        exercise = get_exercise(exercise_id)
        for seed in range(1, 301):
            variant = seeded(exercise, seed)
            reference = exercise.solve(variant)
            for misconception in exercise.misconceptions:
                wrong = misconception.solve(variant)
                if wrong is not None:
                    assert check_answer(exercise, variant, {**reference, **wrong}, "en").score < 1.0, (
                        seed,
                        misconception.tag,
                    )
