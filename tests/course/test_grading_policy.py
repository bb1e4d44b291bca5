"""Grading policy per assignment: element-wise partial credit on or off, follow-through credit full, half or none.

The example of issue 19: forgetting the √d_k scaling in scaled attention. On seed 5 the unscaled score matrix has
three zero entries, which match the key's (3 of 9 entries), and the weights, the output and the diagonal question
are all right given those scores. By default that scores (1/3 + 1 + 1 + 1) / 4 = 83.3 %; each policy gives less.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from exercises import api as engine
from grader.extensions import get_db
from grader.grading.regrade import request_regrade, run_regrade
from grader.models import (
    Assignment,
    GradeLogEntry,
    RegradeChange,
    RegradeJob,
    RegradeStatus,
    Submission,
    SubmissionStatus,
)
from grader.security import issue_token
from tests.factories import make_taught_assignment
from tests.pipeline_helpers import submit, wait_final
from tests.support import WorkerProcess, wait_for

Login = Callable[[str], tuple[FlaskClient, str]]
SCALED = "ch09.scaled-dot-attention"
SEED = 5  # its unscaled scores [[1, -1, 0], [-2, 2, 0], [-1, 0, 1]]: three zeros where the key has them


def _unscaled_answer(seed: int = SEED) -> dict[str, Any]:
    """The answer of a student who left out the division by √d_k and worked on correctly from there."""
    data = engine.variant(SCALED, seed, "en")["data"]
    scores = np.asarray(data["q"]) @ np.asarray(data["k"]).T
    exps = np.exp(scores)
    weights = exps / exps.sum(axis=1, keepdims=True)
    return {
        "scores": scores.tolist(),
        "weights": weights.tolist(),
        "output": (weights @ np.asarray(data["v"])).tolist(),
        "diagonal_dominant": all(int(np.argmax(row)) == i for i, row in enumerate(weights)),
    }


def _policy(partial: bool, follow: str) -> engine.GradingPolicy:
    return engine.GradingPolicy(partial, engine.FollowThrough(follow))


@pytest.mark.parametrize(
    ("partial", "follow", "score", "parts"),
    [
        # (scores, weights, output, diagonal_dominant): the scores earn 3/9 with partial credit, nothing without.
        (True, "full", 0.833333, (0.333333, 1.0, 1.0, 1.0)),
        (True, "half", 0.583333, (0.333333, 0.5, 0.5, 1.0)),
        (True, "none", 0.333333, (0.333333, 0.0, 0.0, 1.0)),
        (False, "full", 0.75, (0.0, 1.0, 1.0, 1.0)),
        (False, "half", 0.5, (0.0, 0.5, 0.5, 1.0)),
        (False, "none", 0.25, (0.0, 0.0, 0.0, 1.0)),
    ],
)
def test_forgetting_the_scaling_scores_83_percent_by_default_and_less_under_stricter_policies(
    partial: bool, follow: str, score: float, parts: tuple[float, ...]
) -> None:
    result = engine.grade(SCALED, SEED, _unscaled_answer(), "en", _policy(partial, follow))
    assert result["status"] == "graded" and result["score"] == score
    names = ("scores", "weights", "output", "diagonal_dominant")
    assert tuple(result["parts"][name]["score"] for name in names) == parts
    # The diagnosis does not depend on the policy: the missing scaling is named, the later steps follow through.
    assert result["parts"]["scores"]["misconception"] == "unscaled"
    assert result["parts"]["weights"]["follow_through"] and result["parts"]["output"]["follow_through"]
    assert not any(result["parts"][name]["correct"] for name in ("scores", "weights", "output"))


def test_the_default_policy_is_the_engine_without_one() -> None:
    answer = _unscaled_answer()
    assert engine.grade(SCALED, SEED, answer, "zh", engine.DEFAULT_POLICY) == engine.grade(SCALED, SEED, answer, "zh")
    assert _policy(True, "full") == engine.DEFAULT_POLICY


@pytest.mark.parametrize(("partial", "follow"), [(False, "none"), (False, "half"), (True, "none")])
def test_a_right_answer_scores_full_marks_under_every_policy(partial: bool, follow: str) -> None:
    key = engine.answer_key(SCALED, SEED)
    assert engine.grade(SCALED, SEED, key, "en", _policy(partial, follow))["score"] == 1.0


@pytest.mark.parametrize(
    ("follow", "lang", "said"),
    [
        ("half", "en", "In this assignment follow-through credit counts half."),
        ("half", "zh", "本作业的连带分只计一半。"),
        ("none", "en", "this assignment gives no follow-through credit"),
        ("none", "zh", "但本作业不给连带分"),
    ],
)
def test_the_feedback_says_what_follow_through_really_earns(follow: str, lang: str, said: str) -> None:
    result = engine.grade(SCALED, SEED, _unscaled_answer(), lang, _policy(True, follow))
    assert said in result["parts"]["weights"]["feedback"]
    full = engine.grade(SCALED, SEED, _unscaled_answer(), lang)["parts"]["weights"]["feedback"]
    assert said not in full


def _graded_row(session: Session, assignment: Assignment, user_id: int, answer: dict[str, Any]) -> Submission:
    """A submission stored as graded under the default policy (what the worker gave before a policy change)."""
    result = engine.grade(SCALED, SEED, answer, "en")
    row = Submission(
        user_id=user_id,
        assignment_id=assignment.id,
        exercise_id=SCALED,
        seed=SEED,
        lang="en",
        raw_answer=answer,
        parsed_answer=result["parsed"],
        status=SubmissionStatus.GRADED,
        score=result["score"],
        parts=result["parts"],
        errors=[],
        engine_version=result["engine_version"],
    )
    session.add(row)
    session.commit()
    return row


def _scaled_assignment(session: Session, **settings: Any) -> tuple[Assignment, Any, Any]:
    assignment, teacher, student = make_taught_assignment(session)
    assignment.exercise_ids = [SCALED]
    for name, value in settings.items():
        setattr(assignment, name, value)
    session.commit()
    return assignment, teacher, student


def _form(token: str, **policy: str) -> dict[str, str]:
    return {
        "csrf_token": token,
        "title_zh": "注意力",
        "title_en": "Attention",
        "exercise_ids": SCALED,
        "opens_at": "",
        "due_at": "",
        "attempts": "",
        "score_policy": "best",
        "answer_key_policy": "never",
        **policy,
    }


@pytest.mark.parametrize(
    ("lang", "labels"),
    [
        ("en", ("Entry-by-entry partial credit", "Follow-through credit", "half marks")),
        ("zh", ("逐项部分得分", "连带分（follow-through）", "一半分数")),
    ],
)
def test_the_assignment_form_offers_the_policy_with_today_as_default(
    login: Login, session: Session, lang: str, labels: tuple[str, ...]
) -> None:
    assignment, teacher, _ = _scaled_assignment(session)
    client, _ = login(teacher.username)
    client.set_cookie("lang", lang)
    page = client.get(f"/teach/courses/{assignment.course_id}/assignments/new").get_data(as_text=True)
    assert all(label in page for label in labels)
    assert 'name="partial_credit" value="on" checked' in page
    assert '<option value="full" selected>' in page


def test_a_policy_change_is_saved_and_leads_to_the_regrade_preview_with_the_new_policy(
    login: Login, session: Session
) -> None:
    assignment, teacher, student = _scaled_assignment(session)
    stored = _graded_row(session, assignment, student.id, _unscaled_answer())
    assert stored.score == 0.833333
    client, token = login(teacher.username)
    reply = client.post(
        f"/teach/assignments/{assignment.id}/edit", data=_form(token, partial_credit="off", follow_through="half")
    )
    assert reply.status_code == 302
    assert reply.headers["Location"].endswith(f"/teach/assignments/{assignment.id}/regrade/preview?policy_changed=1")
    session.expire_all()
    saved = session.get_one(Assignment, assignment.id)
    assert (saved.partial_credit, saved.follow_through_credit) == (False, "half")
    page = client.get(reply.headers["Location"]).get_data(as_text=True)
    assert "The grading policy changed." in page
    assert "1 submissions checked with the current engine: 1 would change, 0 up and 1 down." in page
    assert "each part earns marks only when all of it is right; follow-through credit: half marks" in page
    # Never-lower is not ticked here: scores it kept would not follow the new policy.
    assert '<input type="checkbox" name="never_lower" id="never-lower">' in page
    # Nothing is written until the regrade runs.
    session.expire_all()
    assert session.get_one(Submission, stored.id).score == 0.833333
    for dashboard in (f"/teach/assignments/{assignment.id}", f"/teach/courses/{assignment.course_id}"):
        shown = client.get(dashboard).get_data(as_text=True)
        assert "each part earns marks only when all of it is right; follow-through credit: half marks" in shown
    edit = client.get(f"/teach/assignments/{assignment.id}/edit").get_data(as_text=True)
    assert 'name="partial_credit" value="off" checked' in edit and '<option value="half" selected>' in edit


def test_saving_without_a_policy_change_goes_to_the_assignment_as_before(login: Login, session: Session) -> None:
    assignment, teacher, _ = _scaled_assignment(session, follow_through_credit="none")
    client, token = login(teacher.username)
    # A post without the policy fields (a form or client older than policies) keeps the assignment's policy.
    reply = client.post(f"/teach/assignments/{assignment.id}/edit", data=_form(token))
    assert reply.status_code == 302 and reply.headers["Location"].endswith(f"/teach/assignments/{assignment.id}")
    session.expire_all()
    saved = session.get_one(Assignment, assignment.id)
    assert (saved.partial_credit, saved.follow_through_credit) == (True, "none")


@pytest.mark.parametrize(
    ("field", "typed"),
    [("partial_credit", "maybe"), ("follow_through", "quarter"), ("follow_through", "FULL"), ("partial_credit", "1")],
)
def test_a_bad_policy_value_is_named_on_the_form_and_saves_nothing(
    login: Login, session: Session, field: str, typed: str
) -> None:
    assignment, teacher, _ = _scaled_assignment(session)
    client, token = login(teacher.username)
    reply = client.post(f"/teach/assignments/{assignment.id}/edit", data=_form(token, **{field: typed}))
    page = reply.get_data(as_text=True)
    assert reply.status_code == 422 and f'id="err-{field}"' in page and "Choose one of the options." in page
    session.expire_all()
    saved = session.get_one(Assignment, assignment.id)
    assert (saved.title_en, saved.partial_credit, saved.follow_through_credit) == ("Test assignment", True, "full")


def test_the_regrade_applies_the_new_policy_and_reports_each_change(app: Flask, session: Session) -> None:
    assignment, teacher, student = _scaled_assignment(session)
    stored = _graded_row(session, assignment, student.id, _unscaled_answer())
    right = _graded_row(session, assignment, student.id, engine.answer_key(SCALED, SEED))
    assignment.partial_credit, assignment.follow_through_credit = True, "none"
    session.commit()
    job = request_regrade(session, assignment=assignment, user=teacher, never_lower=False)
    if run_regrade(get_db(app), job.id, worker="policy-test", lease_seconds=60) != RegradeStatus.DONE:
        # The job was also sent to this session's queue: a real worker started by an earlier test may hold it.
        wait_for(
            lambda: session.get_one(RegradeJob, job.id, populate_existing=True).status == RegradeStatus.DONE,
            "the regrade done by the session's worker",
        )
    session.expire_all()
    assert session.get_one(Submission, stored.id).score == 0.333333
    assert session.get_one(Submission, right.id).score == 1.0  # a right answer is right under any policy
    (change,) = session.scalars(select(RegradeChange).where(RegradeChange.job_id == job.id)).all()
    assert (change.submission_id, change.old_score, change.new_score, change.applied) == (
        stored.id,
        0.833333,
        0.333333,
        True,
    )
    assert (
        change.reason == "output: ✗ 1.00 [unscaled] → ✗ 0.00 [unscaled]; weights: ✗ 1.00 [unscaled] → ✗ 0.00 [unscaled]"
    )
    log = session.scalars(select(GradeLogEntry).where(GradeLogEntry.submission_id == stored.id)).all()
    assert [(entry.old_score, entry.new_score) for entry in log][-1] == (0.833333, 0.333333)


@pytest.mark.integration
def test_the_worker_grades_a_new_answer_under_its_assignments_policy(session: Session, worker: WorkerProcess) -> None:
    assignment, _, student = _scaled_assignment(session, partial_credit=False, follow_through_credit="half")
    found = submit(
        session,
        user_id=student.id,
        exercise_id=SCALED,
        seed=SEED,
        raw_answer=_unscaled_answer(),
        parsed_answer=None,
        lang="en",
        assignment_id=assignment.id,
    )
    graded = wait_final(session, found.id)
    assert graded.status == SubmissionStatus.GRADED and graded.score == 0.5
    assert graded.parts is not None and graded.parts["weights"]["score"] == 0.5


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("en", "each part earns marks only when all of it is right; follow-through credit: none"),
        ("zh", "每一部分全对才得分；连带分：不给分"),
    ],
)
def test_the_student_sees_the_policy_on_the_assignment_and_exercise_pages(
    login: Login, session: Session, lang: str, said: str
) -> None:
    assignment, _, student = _scaled_assignment(session, partial_credit=False, follow_through_credit="none")
    client, _ = login(student.username)
    client.set_cookie("lang", lang)
    for path in (f"/assignments/{assignment.id}", f"/assignments/{assignment.id}/exercises/{SCALED}"):
        page = client.get(path)
        assert page.status_code == 200, path
        assert said in page.get_data(as_text=True), path


def test_the_api_assignment_carries_the_policy(client: FlaskClient, session: Session) -> None:
    assignment, teacher, _ = _scaled_assignment(session, partial_credit=False, follow_through_credit="half")
    token = issue_token(session, teacher, name="t")
    session.commit()
    reply = client.get(f"/api/v1/assignments/{assignment.id}/grades", headers={"Authorization": f"Bearer {token}"})
    shown = reply.get_json()["assignment"]
    assert (shown["partial_credit"], shown["follow_through_credit"]) == (False, "half")
