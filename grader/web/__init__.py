"""Web pages for students: login, courses, assignments, exercises, submissions and the capacity lab."""

from __future__ import annotations

from flask import Flask, Response, current_app, request, session
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import HTTPException

from grader.api_errors import http_exception_response, is_api_request
from grader.auth_session import SESSION_USER_KEY
from grader.percent import FULL_MARKS, full_marks, shown_percent
from grader.ui.page_helpers import error_page, guard_pages, template_globals
from grader.web import auth_views, course_views, exercise_views, fragment_views, lab_views, link_views
from grader.web.api_csrf import protect_cookie_api_posts
from grader.web.blueprint import web

# Every page view module; its routes are added to the blueprint in init_app, not by importing it.
VIEW_MODULES = (auth_views, course_views, exercise_views, fragment_views, lab_views, link_views)


# Every form post and script call carries the session's CSRF token; junk no page can store (NUL characters) is a 400
# page, not a database error; 4xx errors are a page in the user's language (a CSRF failure says so).
guard_pages(web, (400, 403, 404, 405, 413))


def _unrouted_error_page(exc: HTTPException) -> ResponseReturnValue:
    """A URL no blueprint owns (no route matched, or not with this method): JSON under the API, else the error
    page in the user's language rather than Werkzeug's bare one."""
    if is_api_request():
        return http_exception_response(exc)
    return error_page(exc)


def _no_store_for_signed_in(response: Response) -> Response:
    """Answers to a signed-in browser or a token (grades, answers, keys) are kept by no cache, nor by the browser
    for its Back button after logout; public documents and static files keep their own headers."""
    if "Cache-Control" in response.headers or (request.endpoint or "").endswith("static"):
        return response
    if "Authorization" in request.headers or session.get(SESSION_USER_KEY) is not None:
        response.headers["Cache-Control"] = "no-store"
    return response


# Every script of the pages is a file of ours (the UI strings ride in a JSON data block, which is never run), so a
# script injected into a page through some field we failed to escape would not run either.
# Everything else (styles, images, fetches) comes from our own origin too.
PAGE_SCRIPT_POLICY = "default-src 'self'; script-src 'self'; object-src 'none'; base-uri 'self'"
# Links to other sites carry no path of ours (an assignment or submission id) in their Referer.
REFERRER_POLICY = "same-origin"
# Production is served over HTTPS only (SESSION_COOKIE_SECURE): browsers are told to never try plain HTTP for a year.
STRICT_TRANSPORT = "max-age=31536000"


def _frame_policy(response: Response) -> Response:
    """Pages may be framed only by ourselves and the origins in GRADER_FRAME_ANCESTORS (an LMS): no clickjacking;
    and run no script but our own files."""
    if response.mimetype == "text/html":
        ancestors = " ".join(["'self'", *str(current_app.config.get("GRADER_FRAME_ANCESTORS") or "").split()])
        response.headers.setdefault("Content-Security-Policy", f"frame-ancestors {ancestors}; {PAGE_SCRIPT_POLICY}")
    return response


def _no_sniff(response: Response) -> Response:
    """Browsers take every answer as the type it says it is (a JSON error or an export is never run as a page)."""
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    return response


def _transport_and_referrer(response: Response) -> Response:
    """Every answer: the Referrer-Policy; in production also Strict-Transport-Security."""
    response.headers.setdefault("Referrer-Policy", REFERRER_POLICY)
    if current_app.config["GRADER_ENV"] == "production":
        response.headers.setdefault("Strict-Transport-Security", STRICT_TRANSPORT)
    return response


def init_app(app: Flask) -> None:
    """Register the pages, their template globals, error pages (also for URLs no route matches), the CSRF check on cookie-authenticated API posts
    the no-store rule for private answers and the frame policy of pages."""
    for module in VIEW_MODULES:
        module.routes.register(web)
    app.register_blueprint(web)
    # By status code, so that they come before the API's handler for every HTTPException, which they defer to.
    for code in (404, 405):
        app.register_error_handler(code, _unrouted_error_page)
    app.context_processor(template_globals)
    app.add_template_filter(shown_percent, "percent")
    app.add_template_test(full_marks, "full_marks")
    app.jinja_env.globals["FULL_MARKS"] = FULL_MARKS
    app.before_request(protect_cookie_api_posts)
    app.after_request(_no_store_for_signed_in)
    app.after_request(_frame_policy)
    app.after_request(_no_sniff)
    app.after_request(_transport_and_referrer)
