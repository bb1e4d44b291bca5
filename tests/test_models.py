"""Models and their rules on both databases: constraints, UTC timestamps, the append-only grade log,
server-side variant seeds, passwords and API tokens."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from flask import Flask
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from exercises.api import SEED_LIMIT
from grader.grading.variant_seeds import derive_seed, seed_for
from grader.models import ApiToken, AppendOnlyError, GradeLogEntry, Role, Submission, User, VariantAssignment
from grader.security import (
    authenticate_password,
    find_live_token,
    hash_password,
    issue_token,
    record_token_use,
    role_at_least,
    verify_password,
)
from tests.factories import BOOK_ANSWER, EXERCISE, TEST_PASSWORD, make_user, unique


def add_submission(session: Session, user: User, **fields: object) -> Submission:
    """A committed submission row."""
    row = Submission(user_id=user.id, exercise_id=EXERCISE, seed=0, lang="en", raw_answer=BOOK_ANSWER, **fields)
    session.add(row)
    session.commit()
    return row


def test_usernames_are_unique(session: Session) -> None:
    name = unique("twin")
    make_user(session, username=name)
    with pytest.raises(IntegrityError):
        make_user(session, username=name)


def test_role_must_be_known(session: Session) -> None:
    with pytest.raises(IntegrityError):
        make_user(session, role="superuser")


def test_idempotency_key_is_unique_per_user_only(session: Session, student: User) -> None:
    add_submission(session, student, idempotency_key="k")
    add_submission(session, make_user(session), idempotency_key="k")
    add_submission(session, student)  # no key: any number allowed
    add_submission(session, student)
    with pytest.raises(IntegrityError):
        add_submission(session, student, idempotency_key="k")


@pytest.mark.parametrize("fields", [{"status": "done"}, {"score": 1.5}, {"score": -0.1}])
def test_submission_status_and_score_are_checked(session: Session, student: User, fields: dict) -> None:
    with pytest.raises(IntegrityError):
        add_submission(session, student, **fields)


def test_timestamps_come_back_as_aware_utc(session: Session, student: User) -> None:
    shanghai = timezone(timedelta(hours=8))
    moment = datetime(2030, 1, 2, 11, 30, tzinfo=shanghai)
    row = add_submission(session, student, finished_at=moment)
    session.expire_all()
    stored = session.get_one(Submission, row.id).finished_at
    assert stored == moment and stored.utcoffset() == timedelta(0)


def test_naive_timestamps_are_refused(session: Session, student: User) -> None:
    with pytest.raises(Exception, match="naive"):
        add_submission(session, student, finished_at=datetime(2030, 1, 1))


def test_grade_log_is_append_only(session: Session, student: User) -> None:
    entry = GradeLogEntry(
        submission_id=add_submission(session, student).id, old_score=None, new_score=0.5, reason="graded", actor="test"
    )
    session.add(entry)
    session.commit()
    entry.new_score = 1.0
    with pytest.raises(AppendOnlyError):
        session.commit()
    session.rollback()
    session.delete(session.get_one(GradeLogEntry, entry.id))
    with pytest.raises(AppendOnlyError):
        session.commit()


def test_seed_is_assigned_once_and_stays(session: Session, student: User) -> None:
    seed = seed_for(session, student.id, EXERCISE)
    assert 0 <= seed < SEED_LIMIT
    assert seed_for(session, student.id, EXERCISE, secret="a different secret") == seed  # stored, not re-derived
    rows = session.scalars(select(VariantAssignment).where(VariantAssignment.user_id == student.id)).all()
    assert [(r.exercise_id, r.seed) for r in rows] == [(EXERCISE, seed)]


def test_seeds_differ_between_students_and_exercises(session: Session, student: User) -> None:
    other = make_user(session)
    seeds = {
        seed_for(session, student.id, EXERCISE),
        seed_for(session, other.id, EXERCISE),
        seed_for(session, student.id, "ch09.rnn-step"),
    }
    assert len(seeds) == 3


def test_derived_seed_depends_on_the_secret() -> None:
    assert derive_seed("s1", 7, EXERCISE) == derive_seed("s1", 7, EXERCISE)
    assert derive_seed("s1", 7, EXERCISE) != derive_seed("s2", 7, EXERCISE)


def test_passwords_are_hashed_and_verified(session: Session, student: User) -> None:
    assert student.password_hash and TEST_PASSWORD not in student.password_hash
    assert verify_password(student.password_hash, TEST_PASSWORD)
    assert not verify_password(student.password_hash, "wrong")
    assert not verify_password(None, "")
    assert not verify_password("not-a-hash", "x")
    assert hash_password("x") != hash_password("x")  # salted
    assert authenticate_password(session, student.username, TEST_PASSWORD) == student
    assert authenticate_password(session, student.username, "wrong") is None
    assert authenticate_password(session, "nobody-" + student.username, TEST_PASSWORD) is None


def test_tokens_are_stored_hashed_and_found_by_value(app: Flask, session: Session) -> None:
    teacher = make_user(session, Role.TEACHER)
    raw = issue_token(session, teacher, name="ci")
    low = issue_token(session, teacher, name="as-student", role=Role.STUDENT)
    session.commit()
    stored = [token.token_hash for token in teacher.tokens]
    assert raw not in stored and len(stored) == 2
    found = find_live_token(session, raw)
    assert found is not None and found.user_id == teacher.id and found.token_role == Role.TEACHER
    assert found.last_used_at is None and record_token_use(session, found)  # what the API's authentication does
    session.commit()
    assert (lowered := find_live_token(session, low)) is not None and lowered.token_role == Role.STUDENT
    assert (used := find_live_token(session, raw)) is not None and used.last_used_at is not None
    assert find_live_token(session, raw + "x") is None
    assert find_live_token(session, "") is None


def test_revoked_token_no_longer_authenticates(session: Session, student: User) -> None:
    raw = issue_token(session, student, name="t")
    session.commit()
    live = find_live_token(session, raw)
    assert live is not None
    token = session.get(ApiToken, live.token_id)
    assert token is not None
    token.revoked_at = datetime.now(UTC)
    session.commit()
    assert find_live_token(session, raw) is None


def test_token_role_cannot_exceed_its_owner(session: Session, student: User) -> None:
    with pytest.raises(ValueError):
        issue_token(session, student, name="t", role=Role.ADMIN)


def test_role_order() -> None:
    assert role_at_least(Role.ADMIN, Role.TEACHER) and role_at_least(Role.TEACHER, Role.TEACHER)
    assert not role_at_least(Role.STUDENT, Role.TEACHER)
