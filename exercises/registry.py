"""The one explicit list of exercises the engine knows."""

from __future__ import annotations

from exercises.ch09 import attention_cost, multihead_shapes, rnn_step, scaled_dot_attention
from exercises.ch13 import (
    encoder_collision,
    encoder_states,
    exposure_divergence,
    greedy_decode,
    loss_average,
    shift_pairs,
)
from exercises.engine_errors import UnknownExercise
from exercises.l03 import additive_attention, concept_check, superposition_readback
from exercises.plugin import Exercise

EXERCISES: tuple[Exercise, ...] = (
    shift_pairs.EXERCISE,
    encoder_states.EXERCISE,
    encoder_collision.EXERCISE,
    exposure_divergence.EXERCISE,
    greedy_decode.EXERCISE,
    loss_average.EXERCISE,
    rnn_step.EXERCISE,
    attention_cost.EXERCISE,
    multihead_shapes.EXERCISE,
    scaled_dot_attention.EXERCISE,
    additive_attention.EXERCISE,
    superposition_readback.EXERCISE,
    concept_check.EXERCISE,
)
REGISTRY: dict[str, Exercise] = {exercise.id: exercise for exercise in EXERCISES}


def get_exercise(exercise_id: object) -> Exercise:
    """The exercise registered under ``exercise_id``; raises UnknownExercise otherwise."""
    if not isinstance(exercise_id, str) or exercise_id not in REGISTRY:
        raise UnknownExercise(exercise_id)
    return REGISTRY[exercise_id]
