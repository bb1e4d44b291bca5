"""Helpers shared by the page views: the language, the signed-in user, login redirects and safe 'next' links."""

from __future__ import annotations

import functools
import json
import unicodedata
from collections.abc import Callable
from functools import wraps
from typing import Any, ParamSpec, TypeVar
from urllib.parse import urlsplit

from flask import Blueprint, abort, current_app, make_response, redirect, render_template, request, url_for
from markupsafe import Markup
from werkzeug.exceptions import HTTPException, MethodNotAllowed, NotFound
from werkzeug.routing import RequestRedirect
from werkzeug.wrappers import Response

from exercises.api import misconception_name
from grader.auth_session import current_user
from grader.grading.feedback import feedback_in
from grader.i18n import js_strings, lang_of, t
from grader.models import User
from grader.ui.csrf import csrf_token, protect

P = ParamSpec("P")
R = TypeVar("R")


class NotVisible(LookupError):
    """The thing does not exist for this user (unknown, or in a course the user is not in): a 404."""


def page_lang() -> str:
    """The language of this request's pages."""
    return lang_of(request)


def signed_in() -> User:
    """The signed-in user; views behind ``login_required`` only."""
    user = current_user()
    if user is None:
        abort(401)
    return user


def safe_next(target: str | None, default: str) -> str:
    """``target`` if it is a path on this site (no scheme, no host, no '//', no control characters), else
    ``default``."""
    if not target:
        return default
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return default
    # A line break cannot go into a Location header (the response would fail), nor any other control character.
    if any(unicodedata.category(char) == "Cc" for char in target):
        return default
    return target


def _answers_get(path: str) -> str | None:
    """``path`` (or where the app would redirect it, e.g. with its trailing slash) if a route answers GET there."""
    adapter = current_app.url_map.bind_to_environ(request.environ)
    try:
        adapter.match(path, method="GET")
    except RequestRedirect as moved:  # /teach -> /teach/: the same page, on this host (the adapter is bound to it)
        return urlsplit(moved.new_url).path
    except (NotFound, MethodNotAllowed):
        return None
    return path


def gettable_next(target: str | None, default: str) -> str:
    """Where to go back to after a post: ``target`` (a path on this site, see ``safe_next``) if it answers GET, else
    its nearest parent path that does (a confirm page at /teach/courses/11/archive -> /teach/courses/11), else
    ``default``. A page that was itself the answer to a post cannot be fetched again, and a GET of it would be a 405."""
    safe = safe_next(target, "")
    if not safe:
        return default
    parts = urlsplit(safe)
    found = _answers_get(parts.path)
    if found is not None:
        return safe if found == parts.path else found
    path = parts.path.rstrip("/")
    while path:
        path = path.rsplit("/", 1)[0]
        found = _answers_get(path or "/")
        if found is not None:
            return found
    return default


def error_message_key(exc: HTTPException) -> str:
    """The UI string that explains an error page: a CSRF failure, a field with control characters, or the 4xx
    status's own words."""
    if exc.description in ("csrf", "control"):
        return f"error.{exc.description}"
    return f"error.{exc.code}" if exc.code in (400, 403, 404, 405, 413) else "error.400"


def error_page(exc: HTTPException) -> Response:
    """The error page of a 4xx in the user's language (a CSRF failure says so), with the exception's own headers
    (e.g. the Allow of a 405) but our content type."""
    code = exc.code or 400
    response = make_response(render("error.html", code, code=code, message_key=error_message_key(exc)))
    for name, value in exc.get_headers():
        if name.lower() != "content-type":
            response.headers[name] = value
    return response


# Besides NUL: control characters other than tab and line breaks (terminal escapes) and the bidirectional
# embeddings, overrides and isolates, which make a title or a name display as something else than it is.
_HIDDEN_CONTROLS = {
    chr(code) for code in (*range(0x20), 0x7F, *range(0x80, 0xA0), *range(0x202A, 0x202F), *range(0x2066, 0x206A))
} - {"\t", "\n", "\r"}


def refuse_hidden_characters(names_and_titles: bool = False) -> None:
    """A 400 page for a query or form value containing NUL (PostgreSQL text cannot hold it, so no field of ours
    may); with ``names_and_titles`` (the teacher pages, whose fields are shown to others) also for the other
    hidden control characters. Typed answers keep theirs: the engine reads past invisible characters."""
    refused = _HIDDEN_CONTROLS if names_and_titles else {"\x00"}
    for source in (request.args, request.form):
        if any(not refused.isdisjoint(value) for _name, values in source.lists() for value in values):
            abort(400, description="control")


def guard_pages(blueprint: Blueprint, error_codes: tuple[int, ...], names_and_titles: bool = False) -> None:
    """The guards of a blueprint of pages, in this order: the session's CSRF token on every post, a 400 page for
    hidden characters (refuse_hidden_characters, with ``names_and_titles``), and the error page in the user's
    language (error_page) for ``error_codes``."""

    def require_csrf_token() -> None:
        protect(request)

    def refuse_hidden() -> None:
        refuse_hidden_characters(names_and_titles)

    blueprint.before_request(require_csrf_token)
    blueprint.before_request(refuse_hidden)
    for code in error_codes:
        blueprint.register_error_handler(code, error_page)


def login_required(view: Callable[P, R]) -> Callable[P, R | Response]:
    """Send anonymous visitors to the login page, then back here."""

    @wraps(view)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R | Response:
        if current_user() is None:
            return redirect(url_for("web.login", next=request.full_path.rstrip("?")))
        return view(*args, **kwargs)

    return wrapper


def visible_or_404(load: Callable[[], R]) -> R:
    """Run a page-service lookup; a thing the user may not see is a 404 (no hint it exists)."""
    try:
        return load()
    except NotVisible:
        abort(404)


def render(template: str, status: int = 200, **context: Any) -> tuple[str, int]:
    """Render a page template with a status code."""
    return render_template(template, **context), status


def template_globals() -> dict[str, Any]:
    """What every page template may use: ``_`` for UI strings, the language, the user, the CSRF token, and
    ``misconception_name(exercise_id, tag)``: a tag's short name in the page's language (None if unknown)."""
    lang = page_lang()

    def translate(key: str, **values: object) -> str:
        return t(key, lang, **values)

    def named(exercise_id: str, tag: str) -> str | None:
        return misconception_name(exercise_id, tag, lang)

    return {
        "_": translate,
        "lang": lang,
        "user": current_user(),
        "csrf_token": csrf_token,
        "feedback_in": feedback_in,
        "misconception_name": named,
        "ui_strings": _ui_strings(lang),
    }


@functools.cache
def _ui_strings(lang: str) -> Markup:
    """The page script's strings in ``lang`` as the JSON base.html embeds; made once per language, since the
    catalogue is fixed when the app starts (at ~0.4 ms a page, it was the dearest thing most pages rendered)."""
    return Markup(json.dumps(js_strings(lang), ensure_ascii=False).replace("</", "<\\/"))
