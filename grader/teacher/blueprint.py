"""The teacher pages' blueprint (mounted at /teach): CSRF on every post, error pages (strings come from the one catalogue, grader.i18n)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from flask import Blueprint, request, url_for
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import RequestEntityTooLarge

from grader.i18n import t
from grader.ui.page_helpers import guard_pages, page_lang, render

F = TypeVar("F", bound=Callable[..., Any])

teacher = Blueprint("teacher", __name__, url_prefix="/teach", template_folder="templates", static_folder="static")


@dataclass(frozen=True)
class BodyLimit:
    """A view's own cap on the request body, what to say when a body is over it, and where to go back to."""

    max_bytes: int
    message_key: str  # a teacher-page string with a {size} placeholder
    back_endpoint: str  # a page taking the same URL values as the view (e.g. its course_id)


_BODY_LIMITS: dict[str, BodyLimit] = {}


def body_limit(max_bytes: int, message_key: str, back_endpoint: str) -> Callable[[F], F]:
    """Let the view read a body of up to ``max_bytes`` instead of the app-wide cap (the API's 64 KiB)."""

    def mark(view: F) -> F:
        _BODY_LIMITS[f"{teacher.name}.{view.__name__}"] = BodyLimit(max_bytes, message_key, back_endpoint)
        return view

    return mark


@teacher.before_request
def _apply_body_limit() -> None:
    """A view that takes a file reads a larger body; set before the CSRF check below reads the form."""
    limit = _BODY_LIMITS.get(request.endpoint or "")
    if limit is not None:
        request.max_content_length = limit.max_bytes


# After the body limit: every post (forms, exports, regrades) carries the session's CSRF token; junk no page can store
# (NUL) or should show (terminal escapes, direction overrides) is a 400 page; the error pages are the student pages',
# so a course someone does not teach looks like one that does not exist.
guard_pages(teacher, (400, 403, 404, 405), names_and_titles=True)


@teacher.errorhandler(RequestEntityTooLarge)
def _too_large_page(exc: RequestEntityTooLarge) -> ResponseReturnValue:
    """A body over the cap (found while the CSRF check reads the form): say how large it may be, and link back."""
    limit = _BODY_LIMITS.get(request.endpoint or "")
    max_bytes = request.max_content_length or 0
    size = f"{max_bytes // 1024 // 1024} MiB" if max_bytes >= 1024 * 1024 else f"{max_bytes // 1024} KiB"
    message = t(limit.message_key if limit else "error.too_large", page_lang(), size=size)
    back = url_for(limit.back_endpoint, **(request.view_args or {})) if limit else url_for("teacher.home")
    return render("teach/too_large.html", 413, message=message, back=back)
