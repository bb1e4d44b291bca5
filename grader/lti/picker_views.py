"""The pages an instructor's launch leads to before the LMS gets its answer: which of their courses an LMS course
is bound to (its first instructor launch), and the Deep Linking picker (an existing assignment, or a new one)."""

from __future__ import annotations

from dataclasses import replace

from flask import redirect, request, url_for
from flask import session as flask_session
from flask.typing import ResponseReturnValue

from grader.extensions import get_session
from grader.grading.access import Action
from grader.lti.binding import BindingRefused, bind_link, bindable_courses, choose_course
from grader.lti.deep_linking import DeepLinkRequest, new_assignment, response_jwt
from grader.lti.pages import BIND_KEY, DEEP_LINK_KEY, LINK_KEY, refusal_page
from grader.lti.refusals import Refusal
from grader.models import Assignment, Course, LtiContext
from grader.teacher import assignments
from grader.teacher.access import course_or_404, teacher_required
from grader.ui.page_helpers import page_lang, render, signed_in
from grader.ui.routes import Routes

routes = Routes()


def _bind_page(context: LtiContext, status: int = 200, error: str | None = None) -> ResponseReturnValue:
    """The choice of course for an LMS course: the instructor's courses, or a new one."""
    courses = bindable_courses(get_session(), signed_in())
    return render("lti/bind.html", status, context=context, courses=courses, error=error)


def _kept_context() -> LtiContext | None:
    """The LMS course this browser's instructor is binding, if any."""
    kept = flask_session.get(BIND_KEY)
    context_id = kept.get("context_id") if isinstance(kept, dict) else None
    return get_session().get(LtiContext, context_id) if isinstance(context_id, int) else None


@routes.get("/bind")
@teacher_required
def bind() -> ResponseReturnValue:
    """The first instructor launch of an LMS course: bind it to one of their courses, or to a new one."""
    context = _kept_context()
    return _bind_page(context) if context is not None else refusal_page(Refusal.NO_STATE)


@routes.post("/bind")
@teacher_required
def bound() -> ResponseReturnValue:
    """Bind the LMS course to the course chosen, then go on: to the picker of a deep-linking launch, else to it."""
    context = _kept_context()
    if context is None:
        return refusal_page(Refusal.NO_STATE)
    try:
        course = choose_course(get_session(), signed_in(), context.id, request.form.get("course_id", ""))
    except BindingRefused:
        return _bind_page(context, 422, "lti.bind.choose")
    kept = flask_session.pop(BIND_KEY, {})
    deep_link, link_id = kept.get("deep_link"), kept.get("link_id")
    if isinstance(deep_link, dict):
        flask_session[DEEP_LINK_KEY] = replace(DeepLinkRequest(**deep_link), course_id=course.id).as_dict()
        return redirect(url_for("lti.pick"))
    if isinstance(link_id, int):  # the launch was of a link: which assignment does it open?
        flask_session[LINK_KEY] = {"link_id": link_id, "course_id": course.id}
        return redirect(url_for("lti.link_pick"))
    return redirect(url_for("teacher.course", course_id=course.id))


def _deep_link() -> DeepLinkRequest | None:
    """The deep-linking request this browser's instructor is answering, if any."""
    kept = flask_session.get(DEEP_LINK_KEY)
    return DeepLinkRequest(**kept) if isinstance(kept, dict) else None


def _pick_page(course: Course, status: int = 200, link: bool = False, **shown: object) -> ResponseReturnValue:
    """The picker (of a deep-linking request, or of the assignment an LMS link opens): the course's assignments,
    and the form of a new one (titles, exercises)."""
    shown.setdefault("form", assignments.AssignmentForm())
    actions = ("lti.linked", "lti.linked_new") if link else ("lti.picked", "lti.picked_new")
    return render(
        "lti/pick.html",
        status,
        course=course,
        catalogue=assignments.catalogue(page_lang()),
        pick_action=url_for(actions[0]),
        new_action=url_for(actions[1]),
        link=link,
        **shown,
    )


def _placed(request_kept: DeepLinkRequest, chosen: Assignment) -> ResponseReturnValue:
    """The signed LtiDeepLinkingResponse for ``chosen``, posted back to the LMS by the browser."""
    token = response_jwt(get_session(), request_kept, chosen, request.host_url)
    flask_session.pop(DEEP_LINK_KEY, None)
    return render("lti/deep_link_return.html", return_url=request_kept.return_url, jwt=token)


@routes.get("/deep-link")
@teacher_required
def pick() -> ResponseReturnValue:
    """The picker of a deep-linking launch."""
    request_kept = _deep_link()
    if request_kept is None:
        return refusal_page(Refusal.NO_STATE)
    return _pick_page(course_or_404(get_session(), signed_in(), request_kept.course_id, Action.EDIT_ASSIGNMENTS))


@routes.post("/deep-link")
@teacher_required
def picked() -> ResponseReturnValue:
    """Answer the LMS with the assignment picked."""
    request_kept = _deep_link()
    if request_kept is None:
        return refusal_page(Refusal.NO_STATE)
    course = course_or_404(get_session(), signed_in(), request_kept.course_id, Action.EDIT_ASSIGNMENTS)
    chosen = next((a for a in course.assignments if str(a.id) == request.form.get("assignment_id")), None)
    if chosen is None:
        return _pick_page(course, 400, error="lti.pick.choose")
    return _placed(request_kept, chosen)


@routes.post("/deep-link/new")
@teacher_required
def picked_new() -> ResponseReturnValue:
    """Create the assignment described in the picker's "new assignment" form and answer the LMS with it."""
    request_kept = _deep_link()
    if request_kept is None:
        return refusal_page(Refusal.NO_STATE)
    course = course_or_404(get_session(), signed_in(), request_kept.course_id, Action.EDIT_ASSIGNMENTS)
    form = assignments.form_from_request(request.form)
    made = new_assignment(get_session(), course, form.title_zh, form.title_en, list(form.exercise_ids))
    if isinstance(made, dict):
        return _pick_page(course, 422, form=replace(form, errors=made), new_open=True)
    return _placed(request_kept, made)


def _kept_link() -> tuple[int, Course] | None:
    """The LMS link this browser's instructor is binding, and its course (if they teach it)."""
    kept = flask_session.get(LINK_KEY)
    if not isinstance(kept, dict) or not isinstance(kept.get("link_id"), int):
        return None
    return kept["link_id"], course_or_404(
        get_session(), signed_in(), int(kept.get("course_id") or 0), Action.EDIT_ASSIGNMENTS
    )


def _bound_link(link_id: int, course: Course, assignment_id: str) -> ResponseReturnValue:
    """Bind the link to the assignment; its teacher page next (or the picker again, saying what is wrong)."""
    try:
        chosen = bind_link(get_session(), link_id, course, assignment_id)
    except BindingRefused:
        return _pick_page(course, 400, link=True, error="lti.pick.choose")
    flask_session.pop(LINK_KEY, None)
    return redirect(url_for("teacher.assignment", assignment_id=chosen.id))


@routes.get("/link")
@teacher_required
def link_pick() -> ResponseReturnValue:
    """An instructor's launch of an LMS link that opens no assignment yet: pick the one it opens."""
    kept = _kept_link()
    return _pick_page(kept[1], link=True) if kept is not None else refusal_page(Refusal.NO_STATE)


@routes.post("/link")
@teacher_required
def linked() -> ResponseReturnValue:
    """Bind the LMS link to the assignment picked."""
    kept = _kept_link()
    if kept is None:
        return refusal_page(Refusal.NO_STATE)
    return _bound_link(kept[0], kept[1], request.form.get("assignment_id", ""))


@routes.post("/link/new")
@teacher_required
def linked_new() -> ResponseReturnValue:
    """Create the assignment described in the picker's form and bind the LMS link to it."""
    kept = _kept_link()
    if kept is None:
        return refusal_page(Refusal.NO_STATE)
    form = assignments.form_from_request(request.form)
    made = new_assignment(get_session(), kept[1], form.title_zh, form.title_en, list(form.exercise_ids))
    if isinstance(made, dict):
        return _pick_page(kept[1], 422, link=True, form=replace(form, errors=made), new_open=True)
    return _bound_link(kept[0], kept[1], str(made.id))
