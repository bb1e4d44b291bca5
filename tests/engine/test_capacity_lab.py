"""The capacity lab: deterministic, well-shaped, and showing the lesson's facts (capacity grows with d,
attention reads everything back)."""

from __future__ import annotations

import itertools
import json

import pytest

from exercises import api

ALL_DS = [32, 64, 128, 256]


@pytest.fixture(scope="module")
def full_grid() -> dict:
    """The full grid with default trials, run once for the module."""
    return api.run_capacity_lab(ALL_DS, 64)


def test_same_parameters_give_the_same_result(full_grid: dict) -> None:
    assert api.run_capacity_lab(ALL_DS, 64) == full_grid


def test_another_seed_draws_other_sentences(full_grid: dict) -> None:
    other = api.run_capacity_lab(ALL_DS, 64, seed=1)
    assert other["fixed_accuracy"] != full_grid["fixed_accuracy"]
    assert other["params"]["seed"] == 1


def test_shapes_and_keys(full_grid: dict) -> None:
    assert full_grid["ds"] == ALL_DS
    assert full_grid["ts"] == list(range(1, 65))
    for table in ("fixed_accuracy", "attention_accuracy", "fixed_cosine", "attention_weight_on_target"):
        assert sorted(full_grid[table]) == sorted(str(d) for d in ALL_DS)
        assert all(len(values) == 64 for values in full_grid[table].values())
    assert set(full_grid["first_below_90"]) == {str(d) for d in ALL_DS}
    assert full_grid["engine_version"] == api.ENGINE_VERSION
    assert full_grid["params"]["trials"] == 200 and full_grid["params"]["t_max"] == 64
    assert json.loads(json.dumps(full_grid, allow_nan=False)) == full_grid


def test_fixed_vector_accuracy_falls_with_length(full_grid: dict) -> None:
    for d in ALL_DS:
        accuracy = full_grid["fixed_accuracy"][str(d)]
        assert accuracy[0] == 1.0  # one word: nothing to confuse it with
        # Monotone up to sampling noise: each doubling of T loses accuracy, and the end is far below the start.
        for length in (2, 4, 8, 16, 32):
            assert accuracy[2 * length - 1] < accuracy[length - 1] + 0.01, (d, length)
        assert accuracy[-1] < 0.5
        rises = sum(later > earlier + 0.02 for earlier, later in itertools.pairwise(accuracy))
        assert rises <= 3, (d, accuracy)


def test_first_length_below_90_grows_roughly_in_proportion_to_d(full_grid: dict) -> None:
    below = [full_grid["first_below_90"][str(d)] for d in ALL_DS]
    assert all(t is not None for t in below)
    assert below == sorted(set(below)), below  # strictly increasing
    assert below[-1] >= 3 * below[0], below  # 8x the dimension holds several times more words
    for d, first in zip(ALL_DS, below):
        accuracy = dict(zip(full_grid["ts"], full_grid["fixed_accuracy"][str(d)]))
        assert accuracy[first] < 0.9 and all(accuracy[t] >= 0.9 for t in range(1, first))


def test_attention_reads_every_position_back(full_grid: dict) -> None:
    for d in ALL_DS:
        assert min(full_grid["attention_accuracy"][str(d)]) >= 0.99
        assert min(full_grid["attention_weight_on_target"][str(d)]) > 0.95
        assert max(full_grid["fixed_cosine"][str(d)][15:]) < 0.5  # the fixed read-back is mostly crosstalk


def test_a_length_and_a_dimension_do_not_depend_on_the_rest_of_the_request(full_grid: dict) -> None:
    part = api.run_capacity_lab([64], 20, t_min=10)
    assert part["ts"] == list(range(10, 21))
    assert part["fixed_accuracy"]["64"] == full_grid["fixed_accuracy"]["64"][9:20]
    assert part["attention_accuracy"]["64"] == full_grid["attention_accuracy"]["64"][9:20]


def test_repeated_and_unsorted_dimensions_are_normalised() -> None:
    result = api.run_capacity_lab([64, 32, 64], 3, trials=5)
    assert result["ds"] == [32, 64]


def test_progress_is_reported_after_each_dimension() -> None:
    seen: list[float] = []
    api.run_capacity_lab([32, 128], 8, trials=10, progress=seen.append)
    assert len(seen) == 2
    assert 0 < seen[0] < seen[1] == 1.0


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [
        ({"ds": [48], "t_max": 10}, "ds"),
        ({"ds": [], "t_max": 10}, "ds"),
        ({"ds": "32", "t_max": 10}, "ds"),
        ({"ds": [True], "t_max": 10}, "ds"),
        ({"ds": [32], "t_max": 65}, "t_max"),
        ({"ds": [32], "t_max": 0}, "t_max"),
        ({"ds": [32], "t_max": 8.0}, "t_max"),
        ({"ds": [32], "t_max": 8, "t_min": 0}, "t_min"),
        ({"ds": [32], "t_max": 8, "t_min": 9}, "t_min"),
        ({"ds": [32], "t_max": 8, "trials": 0}, "trials"),
        ({"ds": [32], "t_max": 8, "trials": 2001}, "trials"),
        ({"ds": [32], "t_max": 8, "seed": -1}, "seed"),
    ],
)
def test_bad_parameters_raise_value_error_naming_the_parameter(kwargs: dict, named: str) -> None:
    with pytest.raises(ValueError, match=named):
        api.run_capacity_lab(**kwargs)
