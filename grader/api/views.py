"""API v1 routes: each view parses the request, calls a service and serialises the result."""

from __future__ import annotations

from datetime import timedelta

from flask import Blueprint, current_app, jsonify, request
from flask.typing import ResponseReturnValue

from exercises import api as engine
from grader import ratelimit
from grader.api import body as parse
from grader.api import changes, gradebook, queries, serialise, services
from grader.api.openapi import document
from grader.auth import require_principal, require_role, require_user
from grader.extensions import autocommit_requests, get_session
from grader.grading.access import STAFF_ACCOUNT_ROLES
from grader.models import SubmissionStatus, iso_timestamp, utcnow
from grader.routing import ROW_ID_MAX

blueprint = Blueprint("api_v1", __name__)
STAFF = STAFF_ACCOUNT_ROLES  # the account roles that act as staff (grader.grading.access)
PAGE_LIMIT_MAX = 200
SYNC_PAGE_LIMIT = 100  # default page of the roster, the gradebook and the grade-change feed


@blueprint.get("/openapi.json")
@parse.query_parameters()
def openapi_json() -> ResponseReturnValue:
    """The OpenAPI 3 description of this API (public)."""
    return jsonify(document())


@blueprint.get("/me")
@require_user
@parse.query_parameters()
def me() -> ResponseReturnValue:
    """The caller's account and the role the request acts with."""
    principal = require_principal()
    return jsonify(serialise.user_json(principal.user, principal.role) | {"auth": principal.via})


@blueprint.get("/courses")
@require_user
@parse.query_parameters("lang")
def courses() -> ResponseReturnValue:
    """The caller's courses (admins: all) with their assignments."""
    lang = parse.query_lang()
    rows = queries.visible_courses(get_session(), require_principal())
    return jsonify({"courses": [serialise.course_json(course, role, lang) for course, role in rows]})


@blueprint.get("/exercises")
@parse.query_parameters()
def exercises() -> ResponseReturnValue:
    """Every exercise the engine knows, with titles and answer fields (public)."""
    return jsonify({"engine_version": engine.ENGINE_VERSION, "exercises": engine.list_exercises()})


@blueprint.get("/exercises/<exercise_id>/variant")
@require_user
@parse.query_parameters("lang", "assignment")
def own_variant(exercise_id: str) -> ResponseReturnValue:
    """The caller's assigned variant of an exercise, in ``?assignment=`` if given (the server picks the seed; no
    answer; 403 before it opens; 404 naming ``assignment`` if it is not one of the caller's that sets it)."""
    lang = parse.query_lang()
    known = services.known_exercise(exercise_id, field=None)
    session, principal = get_session(), require_principal()
    assignment = services.named_assignment(
        session, principal, known, parse.query_int("assignment", None, 1, ROW_ID_MAX), lang
    )
    own = services.own_variant(session, principal, known, lang, utcnow(), assignment)
    return jsonify(serialise.variant_json(engine.variant(known, own.seed, lang), with_seed=not own.as_student))


@blueprint.get("/exercises/<exercise_id>/variants/<seed>")
@require_role(*STAFF)
@parse.query_parameters("lang")
def any_variant(exercise_id: str, seed: str) -> ResponseReturnValue:
    """Any variant by seed, for teachers and admins (as ``grader exercises variant`` prints it)."""
    lang = parse.query_lang()
    variant = engine.variant(services.known_exercise(exercise_id, field=None), parse.path_seed(seed), lang)
    return jsonify(variant)


@blueprint.post("/validate")
@require_user
@parse.query_parameters()
def validate() -> ResponseReturnValue:
    """How the engine reads an answer, without grading it or using an attempt (live preview)."""
    ratelimit.check_preview(require_principal().user_id)
    payload = parse.read_json_object(services.VALIDATE_FIELDS)
    return jsonify(services.reading_for_preview(get_session(), require_principal(), payload))


@blueprint.post("/submissions")
@autocommit_requests
@require_user
@parse.query_parameters()
def create_submission() -> ResponseReturnValue:
    """Accept an answer for grading: 202 once the queued row is committed.

    200 instead when an Idempotency-Key repeats, or when ``Prefer: wait=N`` held the reply until the grade was in.
    """
    principal = require_principal()
    key = services.idempotency_key(request.headers.get("Idempotency-Key"))
    wait = parse.prefer_wait(request.headers.get("Prefer"), services.MAX_WAIT_SECONDS)
    session = get_session()
    submission_request = services.parse_submission(
        session, principal, parse.read_json_object(services.SUBMISSION_FIELDS)
    )
    mark = services.notice_mark() if wait else None
    submission, replay = services.create_submission(session, principal, submission_request, key)
    if wait:
        submission = services.wait_for_own(session, principal, submission, wait, mark)
    data = serialise.submission_json(session, principal, submission, utcnow())
    headers = {"Location": f"/api/v1/submissions/{submission.id}"}
    if replay:
        headers["Idempotent-Replayed"] = "true"
    if wait:
        headers["Preference-Applied"] = f"wait={wait:g}"
    return jsonify(data), 200 if replay or submission.is_final else 202, headers


@blueprint.get("/submissions/<int:submission_id>")
@autocommit_requests
@require_user
@parse.query_parameters("wait", "lang")
def get_submission(submission_id: int) -> ResponseReturnValue:
    """One submission; ``?wait=S`` (0-10) holds the request until it is graded or S seconds pass."""
    principal = require_principal()
    wait = parse.query_number("wait", 0.0, 0.0, services.MAX_WAIT_SECONDS)
    feedback_lang = parse.query_choice("lang", parse.LANGS)
    session = get_session()
    submission = services.wait_until_final(
        session,
        lambda: queries.visible_submission(session, principal, submission_id),
        submission_id,
        wait,
        user_id=principal.user_id,
    )
    return jsonify(serialise.submission_json(session, principal, submission, utcnow(), feedback_lang))


@blueprint.get("/submissions")
@require_user
@parse.query_parameters(
    "course", "assignment", "student", "exercise", "status", "limit", "offset", "before_id", "after_id"
)
def list_submissions() -> ResponseReturnValue:
    """Submissions the caller may read, filtered by course, assignment, student, exercise, status; newest first
    (pages by ``offset`` or ``before_id``), or oldest first after ``after_id`` (incremental sync)."""
    principal = require_principal()
    filters = queries.SubmissionFilters(
        course_id=parse.query_int("course", None, 1, ROW_ID_MAX),
        assignment_id=parse.query_int("assignment", None, 1, ROW_ID_MAX),
        student_id=parse.query_int("student", None, 1, ROW_ID_MAX),
        exercise_id=parse.query_text("exercise", 64),
        status=parse.query_choice("status", [s.value for s in SubmissionStatus]),
    )
    limit = parse.query_int("limit", 50, 1, PAGE_LIMIT_MAX) or 50
    offset = parse.query_int("offset", 0, 0, 2**62) or 0
    before_id, after_id = parse.query_cursor(offset)
    session = get_session()
    page = queries.list_submissions(
        session, principal, filters, queries.PageRequest(limit, offset, before_id, after_id)
    )
    staff_rows = queries.staff_row_ids(session, principal, page.rows)
    items = [serialise.submission_summary(principal, row, row.id in staff_rows) for row in page.rows]
    return jsonify(
        {
            "submissions": items,
            "total": page.total,
            "limit": limit,
            "offset": offset,
            "next_before_id": page.next_before_id,
            "next_after_id": page.next_after_id,
        }
    )


@blueprint.get("/assignments/<int:assignment_id>/progress")
@require_user
@parse.query_parameters("student", "lang")
def assignment_progress(assignment_id: int) -> ResponseReturnValue:
    """Per-exercise progress on an assignment: the caller's own, or a student's for the course's teachers."""
    principal = require_principal()
    lang = parse.query_lang()
    session = get_session()
    assignment = queries.visible_assignment(session, principal, assignment_id)
    student_id = parse.query_int("student", None, 1, ROW_ID_MAX)
    student = queries.progress_subject(session, principal, assignment, student_id)
    return jsonify(serialise.progress_json(session, student, assignment, lang))


@blueprint.get("/assignments/<int:assignment_id>/grades")
@require_user
@parse.query_parameters("limit", "after_id", "lang")
def assignment_grades(assignment_id: int) -> ResponseReturnValue:
    """The assignment's gradebook for its course's teachers and admins: every student's counted results, by id."""
    principal = require_principal()
    lang = parse.query_lang()
    limit = parse.query_int("limit", SYNC_PAGE_LIMIT, 1, PAGE_LIMIT_MAX) or SYNC_PAGE_LIMIT
    after_id = parse.query_int("after_id", 0, 0, ROW_ID_MAX) or 0
    session = get_session()
    assignment = gradebook.staff_assignment(session, principal, assignment_id)
    page = gradebook.gradebook_page(session, assignment, after_id, limit)
    return jsonify(
        {
            "assignment": serialise.assignment_json(assignment, lang),
            "students": [serialise.gradebook_row_json(row) for row in page.rows],
            "limit": limit,
            "next_after_id": page.next_after_id,
        }
    )


@blueprint.get("/courses/<int:course_id>/students")
@require_user
@parse.query_parameters("limit", "after_id")
def course_students(course_id: int) -> ResponseReturnValue:
    """The course's enrolled students by id, for its teachers and admins (to map an LMS's users to ours)."""
    principal = require_principal()
    limit = parse.query_int("limit", SYNC_PAGE_LIMIT, 1, PAGE_LIMIT_MAX) or SYNC_PAGE_LIMIT
    after_id = parse.query_int("after_id", 0, 0, ROW_ID_MAX) or 0
    session = get_session()
    course = gradebook.staff_course(session, principal, course_id)
    page = gradebook.student_page(session, course.id, after_id, limit)
    return jsonify(
        {
            "course": {"id": course.id, "code": course.code, "title": course.title},
            "students": [serialise.student_json(student) for student in page.students],
            "limit": limit,
            "next_after_id": page.next_after_id,
        }
    )


@blueprint.get("/grade-changes")
@require_user
@parse.query_parameters("course", "assignment", "after_id", "limit")
def grade_changes() -> ResponseReturnValue:
    """Grade-log entries of the submissions the caller may read, oldest first after ``after_id``, once settled."""
    principal = require_principal()
    filters = changes.ChangeFilters(
        course_id=parse.query_int("course", None, 1, ROW_ID_MAX),
        assignment_id=parse.query_int("assignment", None, 1, ROW_ID_MAX),
    )
    limit = parse.query_int("limit", SYNC_PAGE_LIMIT, 1, PAGE_LIMIT_MAX) or SYNC_PAGE_LIMIT
    after_id = parse.query_int("after_id", 0, 0, ROW_ID_MAX) or 0
    settle = float(current_app.config[changes.SETTLE_SETTING])
    settled_before = utcnow() - timedelta(seconds=settle)
    page = changes.list_changes(get_session(), principal, filters, after_id, limit, settled_before)
    return jsonify(
        {
            "changes": [serialise.change_json(change) for change in page.changes],
            "limit": limit,
            "next_after_id": page.next_after_id,
            "has_more": page.has_more,
            "settle_seconds": settle,
            "settled_before": iso_timestamp(settled_before),
        }
    )
