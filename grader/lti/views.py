"""The LTI endpoints as thin adapters: /lti/login, /lti/launch and /lti/jwks.json.

The login and the launch are posted by the LMS (a form from another site), so they cannot carry our CSRF token;
they are protected by the state (once, with its cookie), the nonce and the platform's signature instead, and are
the only views of the blueprint exempt from its CSRF check (grader.lti.blueprint)."""

from __future__ import annotations

import json
from urllib.parse import urlencode

from flask import Response, current_app, flash, jsonify, redirect, request, url_for
from flask import session as flask_session
from flask.typing import ResponseReturnValue
from sqlalchemy import select

from grader.auth_session import login_user
from grader.extensions import get_session
from grader.grading.access import Action
from grader.i18n import t
from grader.lti import outbox
from grader.lti.ags import LmsAnswer
from grader.lti.claims import DEEP_LINKING_REQUEST
from grader.lti.deep_linking import DeepLinkRequest, deep_link_request, response_jwt
from grader.lti.identity import LaunchOutcome, apply_launch
from grader.lti.keys import ensure_keys, key_set
from grader.lti.launch import LaunchRequest, RefusedLaunch, validate_launch
from grader.lti.nrps import sync_roster
from grader.lti.oidc import STATE_COOKIE_PREFIX, STATE_TTL, begin_login
from grader.lti.refusals import Refusal
from grader.lti.registration import canvas_developer_key, platforms, tool_values
from grader.lti.status import outbox_course, passback_rows
from grader.lti.tokens import TokenRefused
from grader.models import LtiContext, utcnow
from grader.teacher.access import admin_required, course_or_404, teacher_required
from grader.ui.page_helpers import page_lang, render, signed_in
from grader.ui.routes import Routes

routes = Routes()
DEEP_LINK_KEY = "lti_deep_link"


def refusal_page(reason: Refusal, status: int = 400) -> ResponseReturnValue:
    """The error page of a refused login or launch, in both languages (it is read by the LMS administrator)."""
    return render("lti/refused.html", status, reason=reason, zh=t(reason.key, "zh"), en=t(reason.key, "en"))


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
            jwks_cool_down=float(current_app.config.get("GRADER_LTI_JWKS_COOL_DOWN", 5.0)),
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
    picking = deep_link_request(checked, outcome.course.id) if checked.message_type == DEEP_LINKING_REQUEST else None
    if checked.message_type == DEEP_LINKING_REQUEST and (picking is None or not outcome.staff):
        return refusal_page(Refusal.STAFF_ONLY if picking is not None else Refusal.MISSING_CLAIM)
    login_user(outcome.user)
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
    """The course's grade passback: sent, pending, needs attention."""
    session = get_session()
    course = course_or_404(session, signed_in(), course_id)
    return render("lti/passback.html", course=course, rows=passback_rows(session, course.id))


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


def _deep_link() -> DeepLinkRequest | None:
    """The deep-linking request this browser's instructor is answering, if any."""
    kept = flask_session.get(DEEP_LINK_KEY)
    return DeepLinkRequest(**kept) if isinstance(kept, dict) else None


@routes.get("/deep-link")
@teacher_required
def pick() -> ResponseReturnValue:
    """The picker of a deep-linking launch: the course's assignments."""
    request_kept = _deep_link()
    if request_kept is None:
        return refusal_page(Refusal.NO_STATE)
    course = course_or_404(get_session(), signed_in(), request_kept.course_id, Action.EDIT_ASSIGNMENTS)
    return render("lti/pick.html", course=course)


@routes.post("/deep-link")
@teacher_required
def picked() -> ResponseReturnValue:
    """The signed LtiDeepLinkingResponse for the picked assignment, posted back to the LMS."""
    session, request_kept = get_session(), _deep_link()
    if request_kept is None:
        return refusal_page(Refusal.NO_STATE)
    course = course_or_404(session, signed_in(), request_kept.course_id, Action.EDIT_ASSIGNMENTS)
    chosen = next((a for a in course.assignments if str(a.id) == request.form.get("assignment_id")), None)
    if chosen is None:
        return render("lti/pick.html", 400, course=course, error=t("lti.pick.choose", page_lang()))
    token = response_jwt(session, request_kept, chosen, request.host_url)
    flask_session.pop(DEEP_LINK_KEY, None)
    return render("lti/deep_link_return.html", return_url=request_kept.return_url, jwt=token)


@routes.post("/courses/<int:course_id>/roster-sync")
@teacher_required
def roster_sync(course_id: int) -> ResponseReturnValue:
    """Read the roster of every LMS course bound to this course now."""
    session = get_session()
    course = course_or_404(session, signed_in(), course_id, Action.MANAGE_ROSTER)
    lang = page_lang()
    for context in session.scalars(select(LtiContext).where(LtiContext.course_id == course.id)).all():
        try:
            done = sync_roster(session, context, utcnow())
        except (LmsAnswer, TokenRefused) as exc:
            session.rollback()
            flash(t("lti.roster.failed", lang, title=context.title, why=str(exc)[:300]))
            continue
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


@routes.get("/setup")
@admin_required
def setup() -> ResponseReturnValue:
    """For administrators: the values to paste into the LMS (and Canvas's developer key) and the platforms
    registered."""
    base = request.host_url
    return render(
        "lti/setup.html",
        values=tool_values(base),
        platforms=platforms(get_session()),
        canvas_json=json.dumps(canvas_developer_key(base), indent=2),
    )
