"""API v1 routes: each view parses the request, calls a service and serialises the result."""

from __future__ import annotations

from datetime import timedelta

from flask import Blueprint, current_app, jsonify
from flask.typing import ResponseReturnValue

from exercises import api as engine
from grader import ratelimit
from grader.api import body as parse
from grader.api import changes, gradebook, queries, serialise, services, submission_listing
from grader.api.openapi import document
from grader.api.schemas_base import no_query, query_model, read_body
from grader.api.schemas_course import ChangesQuery, GradesQuery, StudentsQuery
from grader.api.schemas_headers import SubmissionHeaders, header_model, submitted_headers
from grader.api.schemas_submissions import (
    LangQuery,
    ProgressQuery,
    SubmissionListQuery,
    SubmissionQuery,
    SubmissionRequest,
    ValidateRequest,
    VariantQuery,
)
from grader.api_errors import BLUEPRINT
from grader.auth import require_principal, require_role, require_user
from grader.extensions import autocommit_requests, get_session
from grader.grading.access import STAFF_ACCOUNT_ROLES
from grader.models import iso_timestamp, utcnow

blueprint = Blueprint(BLUEPRINT, __name__)
STAFF = STAFF_ACCOUNT_ROLES  # the account roles that act as staff (grader.grading.access)


@blueprint.get("/openapi.json")
@no_query
def openapi_json() -> ResponseReturnValue:
    """The OpenAPI 3 description of this API (public)."""
    return jsonify(document(current_app))


@blueprint.get("/me")
@require_user
@no_query
def me() -> ResponseReturnValue:
    """The caller's account and the role the request acts with."""
    principal = require_principal()
    return jsonify(serialise.user_json(principal.user, principal.role) | {"auth": principal.via})


@blueprint.get("/courses")
@require_user
@query_model(LangQuery)
def courses(query: LangQuery) -> ResponseReturnValue:
    """The caller's courses (admins: all) with their assignments."""
    rows = queries.visible_courses(get_session(), require_principal())
    return jsonify({"courses": [serialise.course_json(course, role, query.lang) for course, role in rows]})


@blueprint.get("/exercises")
@no_query
def exercises() -> ResponseReturnValue:
    """Every exercise the engine knows, with titles and answer fields (public)."""
    return jsonify({"engine_version": engine.ENGINE_VERSION, "exercises": engine.list_exercises()})


@blueprint.get("/exercises/<exercise_id>/variant")
@require_user
@query_model(VariantQuery)
def own_variant(query: VariantQuery, exercise_id: str) -> ResponseReturnValue:
    """The caller's assigned variant of an exercise, in ``?assignment=`` if given (the server picks the seed; no
    answer; 403 before it opens; 404 naming ``assignment`` if it is not one of the caller's that sets it)."""
    lang = query.lang
    known = services.known_exercise(exercise_id, field=None)
    session, principal = get_session(), require_principal()
    assignment = services.named_assignment(session, principal, known, query.assignment, lang)
    own = services.own_variant(session, principal, known, lang, utcnow(), assignment)
    return jsonify(serialise.variant_json(engine.variant(known, own.seed, lang), with_seed=not own.as_student))


@blueprint.get("/exercises/<exercise_id>/variants/<seed:seed>")
@require_role(*STAFF)
@query_model(LangQuery)
def any_variant(query: LangQuery, exercise_id: str, seed: str) -> ResponseReturnValue:
    """Any variant by seed, for teachers and admins (as ``grader exercises variant`` prints it)."""
    variant = engine.variant(services.known_exercise(exercise_id, field=None), parse.path_seed(seed), query.lang)
    return jsonify(variant)


@blueprint.post("/validate")
@require_user
@no_query
def validate() -> ResponseReturnValue:
    """How the engine reads an answer, without grading it or using an attempt (live preview)."""
    ratelimit.check_preview(require_principal().user_id)
    wanted = read_body(ValidateRequest)
    return jsonify(services.reading_for_preview(get_session(), require_principal(), wanted))


@blueprint.post("/submissions")
@autocommit_requests
@require_user
@no_query
@header_model(SubmissionHeaders)
def create_submission(sent: SubmissionHeaders) -> ResponseReturnValue:
    """Accept an answer for grading: 202 once the queued row is committed.

    200 instead when an Idempotency-Key repeats, or when ``Prefer: wait=N`` held the reply until the grade was in.
    """
    principal = require_principal()
    key, wait = sent.idempotency_key, sent.wait or 0.0
    session = get_session()
    wanted = read_body(SubmissionRequest, first=lambda payload: services.refuse_a_students_seed(principal, payload))
    submission_request = services.check_submission(session, principal, wanted)
    mark = services.notice_mark() if wait else None
    submission, replay = services.create_submission(session, principal, submission_request, key)
    if wait:
        submission = services.wait_for_own(session, principal, submission, wait, mark)
    data = serialise.submission_json(session, principal, submission, utcnow())
    headers = submitted_headers(submission.id, replay, wait)
    return jsonify(data), 200 if replay or submission.is_final else 202, headers


@blueprint.get("/submissions/<int:submission_id>")
@autocommit_requests
@require_user
@query_model(SubmissionQuery)
def get_submission(query: SubmissionQuery, submission_id: int) -> ResponseReturnValue:
    """One submission; ``?wait=S`` (0-10) holds the request until it is graded or S seconds pass."""
    principal = require_principal()
    session = get_session()
    submission = services.wait_until_final(
        session,
        lambda: queries.visible_submission(session, principal, submission_id),
        submission_id,
        query.wait,
        user_id=principal.user_id,
    )
    return jsonify(serialise.submission_json(session, principal, submission, utcnow(), query.lang))


@blueprint.get("/submissions")
@require_user
@query_model(SubmissionListQuery)
def list_submissions(query: SubmissionListQuery) -> ResponseReturnValue:
    """Submissions the caller may read, filtered by course, assignment, student, exercise, status; newest first
    (pages by ``offset`` or ``before_id``), or oldest first after ``after_id`` (incremental sync)."""
    principal = require_principal()
    filters = submission_listing.SubmissionFilters(
        query.course, query.assignment, query.student, query.exercise, query.status
    )
    session = get_session()
    page = submission_listing.list_submissions(
        session,
        principal,
        filters,
        submission_listing.PageRequest(query.limit, query.offset, query.before_id, query.after_id),
    )
    staff_rows = queries.staff_row_ids(session, principal, page.rows)
    items = [serialise.submission_summary(principal, row, row.id in staff_rows) for row in page.rows]
    return jsonify(
        {
            "submissions": items,
            "total": page.total,
            "limit": query.limit,
            "offset": query.offset,
            "next_before_id": page.next_before_id,
            "next_after_id": page.next_after_id,
        }
    )


@blueprint.get("/assignments/<int:assignment_id>/progress")
@require_user
@query_model(ProgressQuery)
def assignment_progress(query: ProgressQuery, assignment_id: int) -> ResponseReturnValue:
    """Per-exercise progress on an assignment: the caller's own, or a student's for the course's teachers."""
    principal = require_principal()
    session = get_session()
    assignment = queries.visible_assignment(session, principal, assignment_id)
    student = queries.progress_subject(session, principal, assignment, query.student)
    return jsonify(serialise.progress_json(session, student, assignment, query.lang))


@blueprint.get("/assignments/<int:assignment_id>/grades")
@require_user
@query_model(GradesQuery)
def assignment_grades(query: GradesQuery, assignment_id: int) -> ResponseReturnValue:
    """The assignment's gradebook for its course's teachers and admins: every student's counted results, by id."""
    session = get_session()
    assignment = gradebook.staff_assignment(session, require_principal(), assignment_id)
    page = gradebook.gradebook_page(session, assignment, query.after_id, query.limit)
    return jsonify(
        {
            "assignment": serialise.assignment_json(assignment, query.lang),
            "students": [serialise.gradebook_row_json(row) for row in page.rows],
            "limit": query.limit,
            "next_after_id": page.next_after_id,
        }
    )


@blueprint.get("/courses/<int:course_id>/students")
@require_user
@query_model(StudentsQuery)
def course_students(query: StudentsQuery, course_id: int) -> ResponseReturnValue:
    """The course's enrolled students by id, for its teachers and admins (to map an LMS's users to ours)."""
    session = get_session()
    course = gradebook.staff_course(session, require_principal(), course_id)
    page = gradebook.student_page(session, course.id, query.after_id, query.limit)
    return jsonify(
        {
            "course": {"id": course.id, "code": course.code, "title": course.title},
            "students": [serialise.student_json(student) for student in page.students],
            "limit": query.limit,
            "next_after_id": page.next_after_id,
        }
    )


@blueprint.get("/grade-changes")
@require_user
@query_model(ChangesQuery)
def grade_changes(query: ChangesQuery) -> ResponseReturnValue:
    """Grade-log entries of the submissions the caller may read, oldest first after ``after_id``, once settled."""
    filters = changes.ChangeFilters(course_id=query.course, assignment_id=query.assignment)
    settle = float(current_app.config[changes.SETTLE_SETTING])
    settled_before = utcnow() - timedelta(seconds=settle)
    page = changes.list_changes(
        get_session(), require_principal(), filters, query.after_id, query.limit, settled_before
    )
    return jsonify(
        {
            "changes": [serialise.change_json(change) for change in page.changes],
            "limit": query.limit,
            "next_after_id": page.next_after_id,
            "has_more": page.has_more,
            "settle_seconds": settle,
            "settled_before": iso_timestamp(settled_before),
        }
    )
