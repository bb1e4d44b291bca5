"""The test LMS's gradebook: AGS line items and scores on lti1p3platform's service (which checks our access token
against the platform key and its scopes), answered as the standard asks (JSON arrays, a Link header for the next
page) rather than the library's ``{"content": [...]}``."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from flask import Flask, Response, jsonify, request
from lti1p3platform.score import UpdateScoreStatus
from lti1p3platform.service_connector import AssignmentsGradesService

from tests.lti.platform import LmsPlatform, _Conf, _FlaskRequest

PAGE_SIZE = 1  # one line item per page, so that finding one by resourceId must follow Link headers


@dataclass
class Gradebook:
    """Line items by context, and every score the LMS accepted, in order."""

    line_items: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    scores: list[dict[str, Any]] = field(default_factory=list)
    created: int = 0
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def scores_of(self, user: str) -> list[dict[str, Any]]:
        """The scores accepted for LMS user ``user``."""
        return [s for s in self.scores if s["userId"] == user]


def _service(lms: LmsPlatform, book: Gradebook, context: str) -> AssignmentsGradesService:
    class Service(AssignmentsGradesService):
        def find_lineitems(self, page: Any = 1, limit: Any = None, **filters: Any) -> Any:  # type: ignore[override]
            items = [
                i
                for i in book.line_items.get(context, [])
                if "resource_id" not in filters or i.get("resourceId") == filters["resource_id"]
            ]
            start = (int(page) - 1) * PAGE_SIZE
            return {"content": items[start : start + PAGE_SIZE], "has_next": start + PAGE_SIZE < len(items)}

        def create_lineitem(self, lineitem: Any) -> Any:
            book.created += 1
            item = {**lineitem, "id": f"{lms.url}/ags/{context}/lineitems/{next(book._ids)}?type=grade"}
            book.line_items.setdefault(context, []).append(item)
            return item

        def find_lineitem(self, line_item_id: str) -> Any:
            return next(i for i in book.line_items.get(context, []) if i["id"].split("?")[0].endswith(line_item_id))

        def update_lineitem(self, lineitem: Any) -> Any:
            return lineitem

        def delete_lineitem(self, line_item_id: str) -> None:
            return None

        def update_score(self, line_item_id: str, score: Any) -> UpdateScoreStatus:
            book.scores.append({**score, "lineItem": line_item_id, "query": request.query_string.decode()})
            return UpdateScoreStatus.SUCCESS

        def get_results(
            self, line_item_id: str, page: int = 1, limit: int | None = None, user_id: str | None = None
        ) -> Any:
            return {"content": [], "has_next": False}

    return Service(
        _FlaskRequest(request),
        _Conf(registration=lms.registration()),
        lineitems_url=f"{lms.url}/ags/{context}/lineitems",
    )


def _answer(result: Any) -> Response:
    """The library's Response as HTTP: a page of line items becomes an array with a Link header."""
    body = result.result
    if isinstance(body, dict) and "content" in body:
        response = jsonify(body["content"])
        if body.get("next"):
            response.headers["link"] = f'<{body["next"]}>; REL="next"'  # case varies in the wild
    else:
        response = jsonify(body if body is not None else {"message": result.message})
    response.status_code = result.code
    return response


def add_gradebook(lms: LmsPlatform) -> Gradebook:
    """Serve AGS from a new gradebook on ``lms`` (call before ``start``)."""
    book = Gradebook()

    def routes(app: Flask, platform: LmsPlatform) -> None:
        @app.route("/ags/<context>/lineitems", methods=["GET", "POST"])
        def lineitems(context: str) -> Response:
            service = _service(platform, book, context)
            handler = service.handle_get_lineitems if request.method == "GET" else service.handle_create_lineitem
            return _answer(service.handle_resp(handler))

        @app.post("/ags/<context>/lineitems/<item>/scores")
        def scores(context: str, item: str) -> Response:
            service = _service(platform, book, context)
            return _answer(service.handle_resp(service.handle_update_score, line_item_id=item))

    lms.extra_routes.append(routes)
    return book
