"""Diagnoses added from the third grading audit (engine 1.9.0), without redrawing any variant."""

from __future__ import annotations

import math

from exercises import api
from exercises.ch13 import loss_average
from exercises.checking import check_answer
from exercises.registry import get_exercise
from exercises.variant_generation import generate_variant
from tests.engine.verdict_support import seeded

LOSS = get_exercise("ch13.loss-average")


def test_the_mean_without_eos_that_keeps_the_eos_term_is_named() -> None:
    # Found by the audit on 124 of 201 seeds: total / (n − 1), the divisor reduced but the EOS term kept, was
    # answered with the rule alone.
    named = 0
    for seed in range(1, 201):
        variant = seeded(LOSS, seed)
        key = LOSS.solve(variant)
        losses = [-math.log(p) for p in loss_average._probabilities(variant)]
        kept = sum(losses) / (len(losses) - 1)
        part = check_answer(LOSS, variant, {**key, "mean_loss_without_eos": kept}, "en").parts["mean_loss_without_eos"]
        if losses[-1] == 0:  # p(EOS) = 1: the same number as the key
            assert part.correct
            continue
        assert not part.correct and part.misconception == "eos-kept-divisor-reduced", seed
        assert "kept EOS's −ln p in the sum" in part.feedback
        named += 1
    assert named > 50


def test_a_diagnosis_added_later_never_redraws_a_variant() -> None:
    added = [m for m in LOSS.misconceptions if not m.draws_variants]
    assert [m.tag for m in added] == ["eos-kept-divisor-reduced"]


def test_encoder_states_written_without_the_a_are_named() -> None:
    # Found by the audit on 196 of 201 seeds: [1, 0] for [a, 0] got "partly right" and the rule, and the next
    # states often earned follow-through credit, hiding the unit mistake.
    states = get_exercise("ch13.encoder-states")
    named = 0
    for seed in range(1, 201):
        variant = seeded(states, seed)
        key = states.solve(variant)["states"]
        if all(v == 0 for state in key for v in state):
            continue
        coefficients = ", ".join(f"[{round(x / math.log(2))}, {round(y / math.log(2))}]" for x, y in key)
        result = api.grade("ch13.encoder-states", seed, {"states": coefficients}, "en")
        part = result["parts"]["states"]
        assert part["misconception"] == "dropped-a" and part["score"] < 1, (seed, coefficients, part)
        assert "left the a out" in part["feedback"]
        named += 1
    assert named > 150
    right = ", ".join(
        f"[{round(x / math.log(2))}a, {round(y / math.log(2))}a]"
        for x, y in states.solve(generate_variant(states, 3))["states"]
    )
    assert api.grade("ch13.encoder-states", 3, {"states": right}, "en")["score"] == 1.0


def test_steps_counted_from_zero_are_named_and_the_divergence_follows_through() -> None:
    # Found by the audit on 201 of 201 seeds: the step of the first mistake counted from 0 got the rule alone.
    exposure = get_exercise("ch13.exposure-divergence")
    for seed in range(0, 201):
        key = exposure.solve(seeded(exposure, seed))
        divergence = key["first_input_divergence_step"]
        typed = {
            "first_wrong_step": str(key["first_wrong_step"] - 1),
            "first_input_divergence_step": "无" if divergence is None else str(divergence - 1),
            "teacher_forced_input": key["teacher_forced_input"],
            "generated_input": key["generated_input"],
        }
        parts = api.grade("ch13.exposure-divergence", seed, typed, "en")["parts"]
        assert parts["first_wrong_step"]["misconception"] == "zero-based-steps", seed
        assert "counted the steps from 0" in parts["first_wrong_step"]["feedback"]
        if divergence is not None:
            assert parts["first_input_divergence_step"]["score"] == 1.0, seed  # right in the student's own count


def test_bos_listed_as_the_first_prediction_is_named() -> None:
    # Found by the audit on 201 of 201 seeds: "BOS blue key . EOS" scored 0.89 through follow-through, unexplained.
    greedy = get_exercise("ch13.greedy-decode")
    for seed in range(0, 201):
        key = greedy.solve(seeded(greedy, seed))
        typed = {"tokens": " ".join(["BOS", *key["tokens"]]), "stopped_by": key["stopped_by"]}
        part = api.grade("ch13.greedy-decode", seed, typed, "en")["parts"]["tokens"]
        assert part["misconception"] == "bos-listed" and part["score"] < 1, seed
        assert "BOS is the input of step 1" in part["feedback"]


def test_one_heads_share_of_the_projections_is_named() -> None:
    # Found by the audit on 201 of 201 seeds: 4·d_model·head_dim got the formula restated.
    heads = get_exercise("ch09.multihead-shapes")
    for seed in range(0, 201):
        data = seeded(heads, seed).data
        d_model, head_dim = data["d_model"], data["d_model"] // data["heads"]
        typed = {"head_dim": str(head_dim), "projection_params": f"4*{d_model}*{head_dim}"}
        part = api.grade("ch09.multihead-shapes", seed, typed, "en")["parts"]["projection_params"]
        assert part["misconception"] == "one-head-only" and part["score"] == 0, seed


def test_an_rnn_step_without_the_bias_or_with_the_sigmoid_is_named() -> None:
    # Found by the audit: the bias forgotten (197 of 201 seeds) and the sigmoid for tanh (201) got the rule alone.
    rnn = get_exercise("ch09.rnn-step")
    for seed in range(0, 201):
        data = seeded(rnn, seed).data
        key = rnn.solve(seeded(rnn, seed))
        sigmoid = [1 / (1 + math.exp(-z)) for z in key["pre_activation"]]
        part = check_answer(rnn, seeded(rnn, seed), {**key, "h": sigmoid}, "en").parts["h"]
        assert part.misconception == "sigmoid-for-tanh" and "(0, 1)" in part.feedback, seed
        if any(data["b"]):
            pre = [z - b for z, b in zip(key["pre_activation"], data["b"])]
            result = check_answer(
                rnn, seeded(rnn, seed), {"pre_activation": pre, "h": [math.tanh(z) for z in pre]}, "en"
            )
            assert result.parts["pre_activation"].misconception == "no-bias", seed


def test_attention_averaging_the_keys_or_scaled_by_the_token_count_is_named() -> None:
    # Found by the audit on 201 of 201 seeds each: weights × K for the output, and QKᵀ/√n for the scores.
    from exercises.ch09 import scaled_dot_attention as sdpa

    attention = get_exercise("ch09.scaled-dot-attention")
    for seed in range(0, 201):
        variant = seeded(attention, seed)
        key = attention.solve(variant)
        keys_averaged = sdpa.matmul(key["weights"], variant.data["k"])
        output = check_answer(attention, variant, {**key, "output": keys_averaged}, "en").parts["output"]
        assert output.misconception == "values-from-keys", seed
        by_tokens = sdpa._chain(
            variant, sdpa._scores(variant.data["q"], variant.data["k"], math.sqrt(len(variant.data["q"])))
        )
        scores = check_answer(attention, variant, {**key, **by_tokens}, "en").parts["scores"]
        assert scores.misconception == "scaled-by-tokens", seed


def test_additive_scores_without_tanh_are_named() -> None:
    # Found by the audit on 201 of 201 seeds: the mistake the lesson most invites got the rule alone.
    from exercises.l03 import additive_attention

    additive = get_exercise("l03.additive-attention")
    for seed in range(0, 201):
        variant = seeded(additive, seed)
        scores = additive_attention._scores(variant.data, squash=False)
        part = check_answer(additive, variant, {**additive.solve(variant), "scores": scores}, "en").parts["scores"]
        assert part.misconception == "no-tanh" and "tanh" in part.feedback, seed


def test_a_count_that_includes_bos_after_saying_bos_is_not_scored_is_named() -> None:
    # Found by the audit on 201 of 201 seeds. A student who says BOS is scored makes bos-scored, which alone is named.
    shift = get_exercise("ch13.shift-pairs")
    for seed in range(0, 201):
        variant = seeded(shift, seed)
        key = shift.solve(variant)
        counted = {**key, "scored_count": key["scored_count"] + 1}
        assert check_answer(shift, variant, counted, "en").parts["scored_count"].misconception == "count-includes-bos"
        both = check_answer(shift, variant, {**counted, "bos_scored": True}, "en").parts["scored_count"]
        assert both.tags == ("bos-scored",), seed
