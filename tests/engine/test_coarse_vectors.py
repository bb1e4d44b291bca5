"""A vector or matrix that is the key rounded too coarsely is told so, as a single number is (score unchanged)."""

from __future__ import annotations

import pytest

from exercises import api
from exercises.messages import TOO_COARSE_ENTRIES
from exercises.rounding import coarsely_rounded


@pytest.mark.parametrize(
    "kind, student, reference, expected",
    [
        ("vector", [-0.80, 0.17], [-0.8041, 0.1684], True),
        ("vector", [-0.8041, 0.17], [-0.8041, 0.1684], True),  # one entry exact, the other too coarse
        ("vector", [-0.80, 0.20], [-0.8041, 0.1684], False),  # 0.20 is no rounding of 0.1684
        ("vector", [-0.8041, 0.1684], [-0.8041, 0.1684], False),  # nothing is coarse
        ("vector", [-0.80], [-0.8041, 0.1684], False),  # another length
        ("matrix", [[0.33, 0.67], [0.5, 0.5]], [[0.3319, 0.6681], [0.5, 0.5]], True),
        ("matrix", [[0.33, 0.67], [0.5]], [[0.3319, 0.6681], [0.5, 0.5]], False),
        ("vectors", [[0.33, 0.67]], [[0.3319, 0.6681]], True),
    ],
)
def test_coarsely_rounded_entries(kind, student, reference, expected):
    assert coarsely_rounded(kind, student, reference) is expected


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_coarse_state_is_told_so_and_scores_nothing(lang):
    key = api.answer_key("ch09.rnn-step", 0)
    coarse = "[" + ", ".join(f"{value:.2f}" for value in key["h"]) + "]"
    part = api.grade("ch09.rnn-step", 0, {"pre_activation": "[1.25, -0.75]", "h": coarse}, lang)["parts"]["h"]
    assert part["score"] == 0 and not part["correct"]
    assert part["feedback"].endswith(TOO_COARSE_ENTRIES.get(lang)) and part["tags"] == []
