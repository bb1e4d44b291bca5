"""The engine's command line run as a real subprocess: JSON out, errors as JSON, batches that survive bad lines."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from exercises import api

ROOT = Path(__file__).resolve().parents[2]
SHIFT = "ch13.shift-pairs"
BOOK_TYPED = {
    "pairs": "BOS→blue, blue→door, door→句号, 句号→EOS",
    "bos_scored": "否",
    "eos_scored": "是",
    "scored_count": "4",
}


def run_cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    """``python -m exercises.cli ARGS`` from the repository root."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "exercises.cli", *args],
        input=stdin.encode(),
        cwd=ROOT,
        env=env,
        capture_output=True,
        timeout=120,
    )


def json_lines(completed: subprocess.CompletedProcess) -> list[dict]:
    """Each stdout line parsed as JSON."""
    return [json.loads(line) for line in completed.stdout.decode().splitlines()]


def stderr_error(completed: subprocess.CompletedProcess) -> dict:
    """The JSON error object printed on stderr."""
    return json.loads(completed.stderr.decode())["error"]


def test_list_json_names_every_exercise_and_the_lab() -> None:
    completed = run_cli("list", "--json")
    assert completed.returncode == 0
    listed = json.loads(completed.stdout)
    assert [e["id"] for e in listed] == api.exercise_ids(graded_only=False)
    shift = next(e for e in listed if e["id"] == SHIFT)
    assert shift["graded"] is True and shift["chapter"] == "ch13"
    assert [f["name"] for f in shift["fields"]] == ["pairs", "bos_scored", "eos_scored", "scored_count"]
    assert shift["title"]["en"] and shift["title"]["zh"]
    lab = next(e for e in listed if e["id"] == "l03.capacity-lab")
    assert lab["graded"] is False and lab["fields"] == []


def test_list_table_is_readable_text() -> None:
    completed = run_cli("list", "--lang", "en")
    assert completed.returncode == 0
    text = completed.stdout.decode()
    assert text.splitlines()[0].split() == ["id", "chapter", "graded", "fields", "title"]
    assert SHIFT in text and "scored_count" in text


def test_variant_json_is_the_engine_variant() -> None:
    completed = run_cli("variant", SHIFT, "--seed", "7", "--lang", "en", "--json")
    assert completed.returncode == 0
    assert json.loads(completed.stdout) == api.variant(SHIFT, 7, "en")


def test_variant_text_shows_the_prompt() -> None:
    completed = run_cli("variant", SHIFT, "--seed", "0", "--lang", "en")
    assert completed.returncode == 0
    assert api.variant(SHIFT, 0, "en")["prompt"] in completed.stdout.decode()


def test_single_mode_usage_errors_exit_2_with_json_on_stderr() -> None:
    for args, code in (
        (("variant", "no.such", "--seed", "1"), "unknown-exercise"),
        (("variant", SHIFT, "--seed", "-1"), "bad-seed"),
        (("variant", SHIFT, "--seed", "abc"), "bad-seed"),
        (("variant", SHIFT), "usage"),
        (("grade", "no.such", "--seed", "1", "--answer", "-"), "unknown-exercise"),
        (("grade", SHIFT, "--seed", "1"), "usage"),
        (("grade", SHIFT, "--seed", "1", "--answer", "/no/such/file.json"), "bad-answer-file"),
    ):
        completed = run_cli(*args, stdin="{}")
        assert completed.returncode == 2, args
        assert completed.stdout == b"", args
        assert stderr_error(completed)["code"] == code, args


def test_variant_batch_answers_in_order_and_survives_a_bad_line() -> None:
    lines = [
        json.dumps({"exercise_id": SHIFT, "seed": 3}),
        "{not json",
        "",
        json.dumps({"exercise_id": SHIFT, "seed": 4, "lang": "en"}),
        json.dumps({"exercise_id": "no.such", "seed": 4}),
        json.dumps({"seed": 4}),
    ]
    completed = run_cli("variant", "--batch", stdin="\n".join(lines) + "\n")
    assert completed.returncode == 0
    out = json_lines(completed)
    assert len(out) == 5  # the blank line gets no reply
    assert out[0] == api.variant(SHIFT, 3, "zh")
    assert out[1] == {
        "line": 2,
        "status": "error",
        "error": {"code": "bad-json", "message": "the line is not valid JSON"},
    }
    assert out[2] == api.variant(SHIFT, 4, "en")
    assert (out[3]["line"], out[3]["error"]["code"]) == (5, "unknown-exercise")
    assert (out[4]["line"], out[4]["error"]["code"]) == (6, "missing-field")


def test_grade_single_from_a_file_and_from_stdin(tmp_path: Path) -> None:
    answer_file = tmp_path / "answer.json"
    answer_file.write_text(json.dumps(BOOK_TYPED, ensure_ascii=False), encoding="utf-8")
    for args, stdin in ((("--answer", str(answer_file)), ""), (("--answer", "-"), json.dumps(BOOK_TYPED))):
        completed = run_cli("grade", SHIFT, "--seed", "0", "--lang", "en", *args, stdin=stdin)
        assert completed.returncode == 0
        result = json.loads(completed.stdout)
        assert result["status"] == "graded" and result["score"] == 1.0
        assert result["engine_version"] == api.ENGINE_VERSION
        assert set(result["parts"]) == set(BOOK_TYPED)
        assert all(part["correct"] and part["misconception"] is None for part in result["parts"].values())


def test_grade_an_unreadable_answer_is_invalid_with_errors() -> None:
    answer = {**BOOK_TYPED, "bos_scored": "perhaps"}
    completed = run_cli("grade", SHIFT, "--seed", "0", "--answer", "-", stdin=json.dumps(answer))
    assert completed.returncode == 0
    result = json.loads(completed.stdout)
    assert result["status"] == "invalid" and result["score"] is None
    assert [error["field"] for error in result["errors"]] == ["bos_scored"]


def test_grade_batch_grades_good_lines_and_reports_bad_ones() -> None:
    key = api.answer_key(SHIFT, 5)
    records = [
        {"exercise_id": SHIFT, "seed": 5, "answer": key},
        {"exercise_id": SHIFT, "seed": 5, "answer": {**key, "eos_scored": False}, "lang": "en"},
        "[[[",
        {"exercise_id": "no.such", "seed": 5, "answer": key},
        {"exercise_id": SHIFT, "seed": 2**63, "answer": key},
        {"exercise_id": SHIFT, "seed": 5},
        {"exercise_id": SHIFT, "seed": 5, "answer": key, "lang": "fr"},
        {"exercise_id": SHIFT, "seed": 5, "answer": {"pairs": "BOS→"}},
        {"exercise_id": SHIFT, "seed": 0, "answer": BOOK_TYPED},
    ]
    stdin = "\n".join(r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in records) + "\n"
    completed = run_cli("grade", "--batch", stdin=stdin)
    assert completed.returncode == 0
    out = json_lines(completed)
    assert len(out) == len(records)
    assert out[0]["status"] == "graded" and out[0]["score"] == 1.0
    assert out[1]["status"] == "graded" and out[1]["score"] < 1.0
    assert out[1]["parts"]["eos_scored"]["misconception"] == "eos-not-scored"
    assert out[1]["parts"]["eos_scored"]["correct"] is False
    assert [(o["status"], o["line"], o["error"]["code"]) for o in out[2:7]] == [
        ("error", 3, "bad-json"),
        ("error", 4, "unknown-exercise"),
        ("error", 5, "bad-seed"),
        ("error", 6, "missing-field"),
        ("error", 7, "bad-lang"),
    ]
    assert all(o["error"]["message"] for o in out[2:7])
    assert out[7]["status"] == "invalid" and out[7]["errors"]
    assert out[8]["status"] == "graded" and out[8]["score"] == 1.0


def test_batch_refuses_a_single_mode_id() -> None:
    completed = run_cli("grade", SHIFT, "--batch", stdin="")
    assert completed.returncode == 2 and stderr_error(completed)["code"] == "usage"


def test_selftest_prints_a_row_per_exercise() -> None:
    completed = run_cli("selftest", "--seeds", "2")
    text = completed.stdout.decode()
    for exercise_id in api.exercise_ids():
        assert exercise_id in text
    shift_row = next(line.split() for line in text.splitlines() if line.startswith(SHIFT + " "))
    assert shift_row == [SHIFT, "3", "3/3", "21/21", "6/6", "ok"]  # 7 tags x 3 seeds; 2 languages x 3 seeds
    assert completed.returncode == (0 if text.rstrip().endswith(", 0 failing") else 1)


def test_lab_json_is_the_engine_result() -> None:
    completed = run_cli("lab", "--d", "32", "64", "--t-max", "12", "--trials", "20", "--json")
    assert completed.returncode == 0
    assert json.loads(completed.stdout) == api.run_capacity_lab([32, 64], 12, trials=20)


def test_lab_bad_parameter_exits_2_naming_it() -> None:
    completed = run_cli("lab", "--d", "48", "--t-max", "12", "--json")
    assert completed.returncode == 2
    error = stderr_error(completed)
    assert error["code"] == "bad-parameter" and "ds" in error["message"]
