"""The teacher pages' blueprint (mounted at /teach): CSRF on every post, error pages, the ``T`` string helper."""
from __future__ import annotations

from typing import Any

from flask import Blueprint, request
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import HTTPException

from grader.teacher.strings import tt
from grader.web.csrf import protect
from grader.web.pages import page_lang, refuse_nul_text, render

teacher = Blueprint("teacher", __name__, url_prefix="/teach", template_folder="templates", static_folder="static")


@teacher.before_request
def _require_csrf_token() -> None:
    """Every post of the teacher pages (forms, exports, regrades) carries the session's CSRF token."""
    protect(request)


@teacher.before_request
def _refuse_nul_text() -> None:
    """Junk no page can store (NUL characters) is a 400 page, not a database error."""
    refuse_nul_text()


@teacher.context_processor
def _teacher_strings() -> dict[str, Any]:
    """``T(key, **values)``: a teacher-page string in the page's language."""
    lang = page_lang()

    def translate(key: str, **values: object) -> str:
        return tt(key, lang, **values)

    return {"T": translate}


@teacher.errorhandler(400)
@teacher.errorhandler(403)
@teacher.errorhandler(404)
@teacher.errorhandler(405)
def _error_page(exc: HTTPException) -> ResponseReturnValue:
    """The student pages' error page, so a course someone does not teach looks like one that does not exist."""
    code = exc.code or 400
    key = "error.csrf" if exc.description == "csrf" else f"error.{code}" if code in (400, 403, 404) else "error.400"
    return render("error.html", code, code=code, message_key=key)
