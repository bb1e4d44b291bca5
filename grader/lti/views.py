"""The LTI endpoints as thin adapters: /lti/login, /lti/launch and /lti/jwks.json, and the course's grade passback
and roster sync pages.

The login and the launch are posted by the LMS (a form from another site), so they cannot carry our CSRF token;
they are protected by the state (once, with its cookie), the nonce and the platform's signature instead, and are
the only views of the blueprint exempt from its CSRF check (grader.lti.blueprint)."""

from __future__ import annotations

from urllib.parse import urlencode

from flask import Response, current_app, flash, jsonify, redirect, request, url_for
from flask import session as flask_session
from flask.typing import ResponseReturnValue

from grader.auth_session import login_user
from grader.extensions import get_session
from grader.grading.access import Action
from grader.i18n import t
from grader.lti import outbox
from grader.lti.claims import DEEP_LINKING_REQUEST
from grader.lti.deep_linking import deep_link_request
from grader.lti.identity import LaunchOutcome, apply_launch
from grader.lti.keys import ensure_keys, key_set
from grader.lti.launch import LaunchRequest, RefusedLaunch, validate_launch
from grader.lti.nrps import sync_context
from grader.lti.oidc import STATE_COOKIE_PREFIX, STATE_TTL, begin_login
from grader.lti.pages import BIND_KEY, DEEP_LINK_KEY, LINK_KEY, refusal_page
from grader.lti.refusals import Refusal
from grader.lti.status import outbox_course, passback_rows, roster_rows
from grader.models import utcnow
from grader.teacher.access import course_or_404, teacher_required
from grader.ui.page_helpers import page_lang, render, signed_in
from grader.ui.routes import Routes

routes = Routes()


@routes.route("/login", methods=["GET", "POST"])
def login() -> ResponseReturnValue:
    """OIDC third-party login initiation: store a state and nonce, set the state cookie, go to the platform."""
    result = begin_login(get_session(), request.values.to_dict(), request.host_url, utcnow())
    if isinstance(result, Refusal):
        return refusal_page(result)
    response = redirect(result.url)
    # SameSite=None; Secure; Partitioned: sent back on the LMS's cross-site form post, also inside its iframe.
    response.set_cookie(
        STATE_COOKIE_PREFIX + result.state,
        result.state,
        max_age=int(STATE_TTL.total_seconds()),
        secure=True,
        httponly=True,
        samesite="None",
        partitioned=True,
        path="/lti/",
    )
    return response


def _landing(outcome: LaunchOutcome) -> str:
    """Staff go to the teacher page of the assignment (or course); students to their own assignment page."""
    if outcome.staff:
        if outcome.assignment is not None:
            return url_for("teacher.assignment", assignment_id=outcome.assignment.id)
        if outcome.course is not None:
            return url_for("teacher.course", course_id=outcome.course.id)
    if outcome.assignment is not None:
        return url_for("web.assignment", assignment_id=outcome.assignment.id)
    return url_for("web.courses")


def _refused_launch(refused: RefusedLaunch) -> ResponseReturnValue:
    """The refusal page; where only the state cookie was missing, the offer to log in again in a new window."""
    if refused.reason is Refusal.NO_STATE_COOKIE and refused.login_params:
        relaunch = url_for("lti.login") + "?" + urlencode(refused.login_params)
        return render("lti/new_window.html", 400, relaunch_url=relaunch)
    return refusal_page(refused.reason)


@routes.post("/launch")
def launch() -> ResponseReturnValue:
    """The id_token form post: validate, then sign the LMS user in and send them to their page."""
    state = request.form.get("state", "")
    session = get_session()
    checked = validate_launch(
        session,
        LaunchRequest(
            id_token=request.form.get("id_token", ""),
            state=state,
            state_cookie=request.cookies.get(STATE_COOKIE_PREFIX + state),
            base_url=request.host_url,
            jwks_cool_down=float(current_app.config["GRADER_LTI_JWKS_COOL_DOWN"]),
        ),
        utcnow(),
    )
    if isinstance(checked, RefusedLaunch):
        return _refused_launch(checked)
    outcome = apply_launch(session, checked)
    if isinstance(outcome, Refusal):
        return refusal_page(outcome)
    if outcome.user is None:
        return render("lti/anonymous.html", assignment=outcome.assignment, course=outcome.course)
    course_id = outcome.course.id if outcome.course is not None else 0
    picking = deep_link_request(checked, course_id) if checked.message_type == DEEP_LINKING_REQUEST else None
    if checked.message_type == DEEP_LINKING_REQUEST and (picking is None or not outcome.staff):
        return refusal_page(Refusal.STAFF_ONLY if picking is not None else Refusal.MISSING_CLAIM)
    login_user(outcome.user)
    if outcome.course is None:  # the instructor's first launch: which course is this LMS course?
        flask_session[BIND_KEY] = {
            "context_id": outcome.context.id,
            "deep_link": picking and picking.as_dict(),
            "link_id": outcome.link_id,
        }
        response = redirect(url_for("lti.bind"))
    elif outcome.staff and picking is None and outcome.assignment is None and outcome.link_id is not None:
        # An instructor's launch of a link made without our picker: which assignment does it open?
        flask_session[LINK_KEY] = {"link_id": outcome.link_id, "course_id": outcome.course.id}
        response = redirect(url_for("lti.link_pick"))
    else:
        if picking is not None:
            flask_session[DEEP_LINK_KEY] = picking.as_dict()
        response = redirect(url_for("lti.pick") if picking is not None else _landing(outcome))
    response.delete_cookie(STATE_COOKIE_PREFIX + state, path="/lti/", secure=True, samesite="None", partitioned=True)
    return response


@routes.get("/jwks.json")
def jwks() -> Response:
    """Our public signing keys (the next one too, published before it signs), each with its kid."""
    session = get_session()
    ensure_keys(session)
    session.commit()
    response = jsonify(key_set(session))
    response.headers["Cache-Control"] = "public, max-age=300"
    return response


@routes.get("/courses/<int:course_id>/grades")
@teacher_required
def passback(course_id: int) -> ResponseReturnValue:
    """The course's grade passback (sent, pending, needs attention) and its LMS rosters (latest sync, who left)."""
    session = get_session()
    course = course_or_404(session, signed_in(), course_id)
    return render(
        "lti/passback.html",
        course=course,
        rows=passback_rows(session, course.id),
        rosters=roster_rows(session, course.id),
    )


@routes.post("/outbox/<int:outbox_id>/resend")
@teacher_required
def resend(outbox_id: int) -> ResponseReturnValue:
    """Send a score that needs attention again (after the cause was fixed in the LMS)."""
    session = get_session()
    course_id = outbox_course(session, outbox_id)
    course = course_or_404(session, signed_in(), course_id if course_id is not None else 0, Action.EDIT_COURSE)
    if outbox.resend(session, outbox_id, utcnow()):
        flash(t("lti.passback.resent", page_lang()))
    return redirect(url_for("lti.passback", course_id=course.id))


@routes.post("/courses/<int:course_id>/roster-sync")
@teacher_required
def roster_sync(course_id: int) -> ResponseReturnValue:
    """Read the roster of every LMS course bound to this course now."""
    session = get_session()
    course = course_or_404(session, signed_in(), course_id, Action.MANAGE_ROSTER)
    lang = page_lang()
    for context in roster_rows(session, course.id):
        done = sync_context(session, context.context_id, utcnow())
        if isinstance(done, str):
            flash(t("lti.roster.failed", lang, title=context.title, why=done[:300]))
        else:
            flash(
                t(
                    "lti.roster.done",
                    lang,
                    title=context.title,
                    enrolled=done.enrolled,
                    updated=done.updated,
                    ended=done.ended,
                )
            )
    return redirect(url_for("lti.passback", course_id=course.id))
