"""Fresh variants per assignment: a new assignment's students get variants of their own there (seed from assignment,
student and exercise), so a key shown with another assignment never answers it; existing assignments and their
stored seeds never change; pages, form submit, API submit, validate and own-variant all use the assignment's seed;
the assignment form says which mode it is and warns when a shared one shares with a visible key."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from flask import current_app
from flask.testing import FlaskClient
from sqlalchemy import create_engine, func, select, text
from sqlalchemy.orm import Session

from exercises import api as engine
from grader.grading import policy
from grader.grading.variant_seeds import SHARED_SCOPE, derive_seed, seed_for
from grader.migrate import upgrade
from grader.models import AnswerKeyPolicy, Assignment, Submission, User, VariantAssignment, utcnow
from grader.security import issue_token
from tests.factories import make_assignment, make_taught_assignment, make_user

Login = Callable[[str], tuple[FlaskClient, str]]
SHIFT = "ch13.shift-pairs"


def _second(session: Session, first: Assignment, **settings: object) -> Assignment:
    """Another open assignment of ``first``'s course setting the same exercise."""
    now = utcnow()
    other = Assignment(
        course_id=first.course_id,
        title_zh="练习",
        title_en="Practice",
        exercise_ids=[SHIFT],
        opens_at=now - timedelta(days=1),
        due_at=now + timedelta(days=1),
        **settings,
    )
    session.add(other)
    session.commit()
    return other


def _bearer(session: Session, user: User) -> dict[str, str]:
    token = issue_token(session, user, name="t")
    session.commit()
    return {"Authorization": f"Bearer {token}"}


def _fresh_assignment_with_its_own_variant(session: Session) -> tuple[Assignment, User, int, int]:
    """A fresh-variant assignment and its student, with the student's fresh and shared shift-pairs seeds, for the
    first student whose two variants differ: shift-pairs has few distinct variants (~5 % of seed pairs give the same
    data), and a test that tells which variant was served needs them apart."""
    for _ in range(20):
        assignment, _, student = make_taught_assignment(session)
        assignment.fresh_variants = True
        session.commit()
        fresh, shared = seed_for(session, student.id, SHIFT, assignment), seed_for(session, student.id, SHIFT)
        if engine.variant(SHIFT, fresh, "en")["data"] != engine.variant(SHIFT, shared, "en")["data"]:
            return assignment, student, fresh, shared
    raise AssertionError("20 students in a row got the same fresh and shared variant")


def test_a_fresh_assignment_seed_derives_from_assignment_student_and_exercise(session: Session) -> None:
    student = make_user(session)
    graded = make_assignment(session, [student], fresh_variants=True)
    practice = _second(session, graded, fresh_variants=True)
    secret = current_app.config["VARIANT_SECRET"]
    seeds = [seed_for(session, student.id, SHIFT, a) for a in (graded, practice)]
    assert seeds == [derive_seed(secret, student.id, SHIFT, a.id) for a in (graded, practice)]
    assert seeds[0] != seeds[1] != seed_for(session, student.id, SHIFT)
    # Stored: a later call with another secret returns the stored seed.
    assert seed_for(session, student.id, SHIFT, graded, secret="another") == seeds[0]


def test_a_shared_assignment_keeps_the_students_stored_seed(session: Session) -> None:
    student = make_user(session)
    legacy = make_assignment(session, [student])  # fresh_variants false: as every assignment before 0014
    stored = seed_for(session, student.id, SHIFT, secret="the secret of long ago")
    also_shared = _second(session, legacy)
    assert seed_for(session, student.id, SHIFT, legacy) == stored == seed_for(session, student.id, SHIFT, also_shared)
    rows = session.scalars(select(VariantAssignment).where(VariantAssignment.user_id == student.id)).all()
    assert [(r.scope, r.seed) for r in rows] == [(SHARED_SCOPE, stored)]


def test_migration_keeps_every_stored_seed_and_existing_assignments_share(empty_database: str) -> None:
    upgrade(empty_database, "0013")
    engine_ = create_engine(empty_database)
    now = utcnow()
    try:
        with engine_.begin() as db:
            db.execute(
                text(
                    "INSERT INTO users (id, username, display_name, role, created_at, session_epoch) "
                    "VALUES (1, 'old', 'Old', 'student', :now, 0)"
                ),
                {"now": now},
            )
            db.execute(
                text(
                    "INSERT INTO courses (id, code, title, created_at, time_zone) "
                    "VALUES (1, 'c', 'C', :now, 'Asia/Shanghai')"
                ),
                {"now": now},
            )
            db.execute(
                text(
                    "INSERT INTO assignments (id, course_id, title_zh, title_en, exercise_ids, score_policy, "
                    "answer_key_policy, created_at, updated_at) VALUES (1, 1, 'a', 'a', '[\"ch13.shift-pairs\"]',"
                    " 'best', 'after_due', :now, :now)"
                ),
                {"now": now},
            )
            db.execute(
                text(
                    "INSERT INTO variant_assignments (user_id, exercise_id, seed, created_at) "
                    "VALUES (1, 'ch13.shift-pairs', 123456789, :now)"
                ),
                {"now": now},
            )
        upgrade(empty_database)
        with engine_.connect() as db:
            assert db.execute(text("SELECT user_id, exercise_id, seed, scope FROM variant_assignments")).all() == [
                (1, SHIFT, 123456789, 0)
            ]
            assert db.execute(text("SELECT fresh_variants FROM assignments")).scalar_one() in (False, 0)
    finally:
        engine_.dispose()


@pytest.mark.parametrize("fresh", [True, False])
def test_a_key_shown_in_practice_answers_the_graded_one_only_when_they_share(session: Session, fresh: bool) -> None:
    student = make_user(session)
    graded = make_assignment(session, [student], fresh_variants=fresh)
    practice = _second(session, graded, fresh_variants=fresh, answer_key_policy=AnswerKeyPolicy.ALWAYS)
    now = utcnow()
    # Shared: the practice key would answer the open graded assignment, so it is held back; fresh: it is shown,
    # and it is the key of another variant.
    assert policy.answer_key_visible(session, student.id, practice, SHIFT, now) is fresh
    assert (seed_for(session, student.id, SHIFT, practice) != seed_for(session, student.id, SHIFT, graded)) is fresh


def test_a_fresh_practice_key_still_waits_for_its_own_rule(session: Session) -> None:
    student = make_user(session)
    graded = make_assignment(session, [student], fresh_variants=True, answer_key_policy=AnswerKeyPolicy.AFTER_DUE)
    assert not policy.answer_key_visible(session, student.id, graded, SHIFT, utcnow())


def test_page_form_submit_and_api_use_the_assignment_variant(login: Login, session: Session) -> None:
    assignment, student, fresh, shared = _fresh_assignment_with_its_own_variant(session)
    client, csrf = login(student.username)
    page = client.get(f"/assignments/{assignment.id}/exercises/{SHIFT}").get_data(as_text=True)
    shown = engine.variant(SHIFT, fresh, "en")["prompt"]
    assert shown.splitlines()[0] in page
    headers = _bearer(session, student)
    mine = client.get(f"/api/v1/exercises/{SHIFT}/variant?assignment={assignment.id}", headers=headers)
    assert mine.status_code == 200
    assert (
        mine.get_json()["data"]
        == engine.variant(SHIFT, fresh, "en")["data"]
        != engine.variant(SHIFT, shared, "en")["data"]
    )
    key = engine.answer_key(SHIFT, fresh)
    posted = client.post(
        "/api/v1/submissions",
        headers=headers,
        json={"exercise_id": SHIFT, "assignment_id": assignment.id, "answer": key, "lang": "en"},
    )
    assert posted.status_code == 202, posted.get_json()
    form = client.post(
        f"/assignments/{assignment.id}/exercises/{SHIFT}",
        data={"csrf_token": csrf, **{f"answer.{name}": str(value) for name, value in key.items()}},
    )
    assert form.status_code in (302, 303), form.get_data(as_text=True)[:500]
    seeds = session.scalars(select(Submission.seed).where(Submission.user_id == student.id)).all()
    assert seeds == [fresh, fresh]


@pytest.mark.parametrize(
    ("query", "status", "field"),
    [
        ("assignment=abc", 400, "assignment"),
        ("assignment=0", 400, "assignment"),
        ("assignment={other}", 404, "assignment"),
    ],
)
def test_own_variant_refuses_an_assignment_not_the_callers(
    session: Session, client: FlaskClient, query: str, status: int, field: str
) -> None:
    student = make_user(session)
    make_assignment(session, [student], fresh_variants=True)
    outsider = make_assignment(session, [make_user(session)], fresh_variants=True)
    before = session.scalar(select(func.count(VariantAssignment.id)))
    reply = client.get(
        f"/api/v1/exercises/{SHIFT}/variant?{query.format(other=outsider.id)}", headers=_bearer(session, student)
    )
    assert reply.status_code == status
    assert reply.get_json()["error"]["field"] == field
    assert session.scalar(select(func.count(VariantAssignment.id))) == before  # nothing stored


def _form(csrf: str, title: str) -> dict[str, str]:
    """An assignment form setting the shift-pairs exercise, titled ``title`` in both languages."""
    return {
        "csrf_token": csrf,
        "title_zh": title,
        "title_en": title,
        "exercise_ids": SHIFT,
        "score_policy": "best",
        "answer_key_policy": "after_due",
    }


def test_new_assignments_are_fresh_and_an_edit_keeps_the_mode(login: Login, session: Session) -> None:
    legacy, teacher, _ = make_taught_assignment(session)
    client, csrf = login(teacher.username)
    new_form = client.get(f"/teach/courses/{legacy.course_id}/assignments/new").get_data(as_text=True)
    assert "Fresh variants:" in new_form
    posted = client.post(f"/teach/courses/{legacy.course_id}/assignments/new", data=_form(csrf, "New"))
    assert posted.status_code in (302, 303)
    created = session.scalars(select(Assignment).where(Assignment.title_en == "New")).one()
    assert created.fresh_variants
    edit = client.get(f"/teach/assignments/{legacy.id}/edit").get_data(as_text=True)
    assert "Shared variants:" in edit and "variant-warning" not in edit
    saved = client.post(f"/teach/assignments/{legacy.id}/edit", data=_form(csrf, "Edited"))
    assert saved.status_code in (302, 303)
    session.expire_all()
    assert session.get(Assignment, legacy.id).fresh_variants is False  # type: ignore[union-attr]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_form_warns_when_a_shared_assignment_shares_with_a_visible_key(
    login: Login, session: Session, lang: str
) -> None:
    graded, teacher, _ = make_taught_assignment(session)
    practice = _second(session, graded, answer_key_policy=AnswerKeyPolicy.ALWAYS)
    _second(session, graded, fresh_variants=True, answer_key_policy=AnswerKeyPolicy.ALWAYS)  # fresh: no warning
    client, _ = login(teacher.username)
    client.set_cookie("lang", lang)
    page = client.get(f"/teach/assignments/{graded.id}/edit").get_data(as_text=True)
    warning = {"en": "Warning: these assignments share variants", "zh": "注意：下列共享题目的作业"}[lang]
    assert warning in page and f'/teach/assignments/{practice.id}"' in page
    assert page.count('<li><a href="/teach/assignments/') == 1


def test_the_api_says_which_mode_an_assignment_has(session: Session, client: FlaskClient) -> None:
    student = make_user(session)
    legacy = make_assignment(session, [student])
    fresh = _second(session, legacy, fresh_variants=True)
    courses = client.get("/api/v1/courses", headers=_bearer(session, student)).get_json()
    modes = {a["id"]: a["fresh_variants"] for course in courses["courses"] for a in course["assignments"]}
    assert modes == {legacy.id: False, fresh.id: True}


def test_without_an_assignment_named_the_only_fresh_assignment_gives_the_variant(
    session: Session, client: FlaskClient
) -> None:
    """A student whose one assignment with the exercise is fresh reads and previews on that assignment's variant
    when the request names none (the shared variant would be one they are never graded on)."""
    _, student, fresh, shared = _fresh_assignment_with_its_own_variant(session)
    headers = _bearer(session, student)
    reply = client.get(f"/api/v1/exercises/{SHIFT}/variant?lang=en", headers=headers)
    assert reply.status_code == 200
    assert (
        reply.get_json()["data"]
        == engine.variant(SHIFT, fresh, "en")["data"]
        != engine.variant(SHIFT, shared, "en")["data"]
    )


def test_without_an_assignment_named_two_assignments_keep_the_shared_variant(
    session: Session, client: FlaskClient
) -> None:
    student = make_user(session)
    legacy = make_assignment(session, [student])
    _second(session, legacy, fresh_variants=True)
    shared = seed_for(session, student.id, SHIFT)
    reply = client.get(f"/api/v1/exercises/{SHIFT}/variant?lang=en", headers=_bearer(session, student))
    assert reply.status_code == 200
    assert reply.get_json()["data"] == engine.variant(SHIFT, shared, "en")["data"]


def test_without_an_assignment_named_two_fresh_assignments_ask_which(session: Session, client: FlaskClient) -> None:
    """Two assignments that each give their own variant: the shared variant is neither's, so the API asks which
    assignment is meant (422 naming the field) instead of showing a variant the student is never graded on."""
    student = make_user(session)
    first = make_assignment(session, [student])
    first.fresh_variants = True
    session.commit()
    second = _second(session, first, fresh_variants=True)
    headers = _bearer(session, student)
    reply = client.get(f"/api/v1/exercises/{SHIFT}/variant?lang=en", headers=headers)
    assert reply.status_code == 422
    error = reply.get_json()["error"]
    assert (error["code"], error["field"]) == ("assignment_required", "assignment")
    assert str(first.id) in error["message"] and str(second.id) in error["message"]
    named = client.get(f"/api/v1/exercises/{SHIFT}/variant?lang=en&assignment={second.id}", headers=headers)
    assert named.get_json()["data"] == engine.variant(SHIFT, seed_for(session, student.id, SHIFT, second), "en")["data"]
