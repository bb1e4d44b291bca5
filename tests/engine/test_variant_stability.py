"""A student's variant never changes under them: an engine change that alters what a seed generates fails here.

Students work on their variant for days and their stored answers were graded against it, so a new misconception
solver, a reworded question or a new quality rule must leave every seed's data (and the sub-seed it was drawn
from) as it was. The fingerprints below are of seeds 0..149 of every exercise; a change that is meant to alter
variants needs its own plan for the students holding them, not a new fingerprint pasted in.
"""

from __future__ import annotations

import hashlib
import json

import pytest

from exercises import api
from exercises.registry import get_exercise
from exercises.variant_generation import generate_variant

SEEDS = 150
FINGERPRINTS = {
    "ch13.shift-pairs": "a612e0b7ea9fb333",
    "ch13.encoder-states": "b7fb8ff920afe9f9",
    "ch13.encoder-collision": "c668fbaceafe3585",
    "ch13.exposure-divergence": "6ef80b909edaa3c5",
    "ch13.greedy-decode": "b95a5a760d1727e6",
    "ch13.loss-average": "52f4f7403776b046",
    "ch09.rnn-step": "68bd902491ab0265",
    "ch09.attention-cost": "a1a6187d1409e961",
    "ch09.multihead-shapes": "c9792ff691a38cdf",
    "ch09.scaled-dot-attention": "ed68cd901290825b",
    "l03.additive-attention": "db2505c74e261b41",
    "l03.superposition-readback": "7694206770626d99",
    "l03.concept-check": "405e5ce7badead3b",
}


def _fingerprint(exercise_id: str) -> str:
    """A digest of the data and sub-seed of seeds 0..SEEDS-1."""
    exercise = get_exercise(exercise_id)
    digest = hashlib.sha256()
    for seed in range(SEEDS):
        variant = generate_variant(exercise, seed)
        digest.update(json.dumps([variant.data, variant.subseed], sort_keys=True, default=str).encode())
    return digest.hexdigest()[:16]


@pytest.mark.parametrize("exercise_id", sorted(FINGERPRINTS))
def test_every_seed_generates_the_variant_it_always_did(exercise_id: str) -> None:
    assert _fingerprint(exercise_id) == FINGERPRINTS[exercise_id]


def test_every_graded_exercise_is_fingerprinted() -> None:
    assert set(api.exercise_ids()) == set(FINGERPRINTS)
