"""Assignment and Grade Services: one line item per assignment per context (the launch's or the deep link's, else
found by resourceId, only then created), and the score of one outbox row sent once."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode, urlsplit, urlunsplit

import requests
from sqlalchemy import select
from sqlalchemy.orm import Session

from grader.lti.claims import URL_MOST
from grader.lti.tokens import access_token, forget_token, http_timeout
from grader.models import Assignment, LtiContext, LtiLineItem, LtiPlatform

LINEITEM_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
AGS_SCOPES = (LINEITEM_SCOPE, SCORE_SCOPE)
LINEITEM_TYPE = "application/vnd.ims.lis.v2.lineitem+json"
LINEITEMS_TYPE = "application/vnd.ims.lis.v2.lineitemcontainer+json"
SCORE_TYPE = "application/vnd.ims.lis.v1.score+json"
LINE_ITEM_TAG = "grader"


class LmsAnswer(Exception):
    """A call to the LMS that did not succeed: its status (None: no answer, a time-out) and Retry-After."""

    def __init__(self, status: int | None, message: str, retry_after: str | None = None) -> None:
        super().__init__(message)
        self.status, self.retry_after = status, retry_after


@dataclass
class LmsClient:
    """Calls to one platform's services with a cached access token, refreshed once on a 401."""

    session: Session
    platform: LtiPlatform
    now: Any
    scopes: tuple[str, ...] = AGS_SCOPES

    def call(
        self, method: str, url: str, *, accept: str, body: dict[str, Any] | None = None, content_type: str | None = None
    ) -> requests.Response:
        """One authorised call; raises LmsAnswer unless it answers 2xx."""
        for attempt in (1, 2):
            token = access_token(self.session, self.platform, self.scopes, self.now)
            headers = {"Authorization": f"Bearer {token}", "Accept": accept}
            if content_type:
                headers["Content-Type"] = content_type
            try:
                answer = requests.request(method, url, json=body, headers=headers, timeout=http_timeout())
            except requests.RequestException as exc:
                raise LmsAnswer(None, f"{method} {url}: {exc}") from exc
            if answer.status_code == 401 and attempt == 1:
                forget_token(self.session, self.platform, self.scopes)
                continue
            if not 200 <= answer.status_code < 300:
                raise LmsAnswer(
                    answer.status_code,
                    f"{method} {url} answered {answer.status_code}: {answer.text[:300]}",
                    answer.headers.get("Retry-After"),
                )
            return answer
        raise AssertionError("unreachable")  # the loop returns or raises


def with_path_suffix(url: str, suffix: str) -> str:
    """``url`` with ``suffix`` appended to its path, its query string kept (a line item URL may carry one)."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/") + suffix, parts.query, parts.fragment))


def _with_query(url: str, **params: str) -> str:
    """``url`` with ``params`` added to its query string."""
    parts = urlsplit(url)
    query = "&".join(q for q in (parts.query, urlencode(params)) if q)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, parts.fragment))


def json_body(answer: requests.Response) -> Any:
    """The JSON of a successful answer; LmsAnswer if it holds none (e.g. a proxy's HTML sign-in page answered
    200): a misconfiguration the teacher is shown, not a task that fails the same way on every retry."""
    try:
        return answer.json()
    except ValueError as exc:
        raise LmsAnswer(
            answer.status_code, f"{answer.url} answered {answer.status_code} without JSON: {answer.text[:300]}"
        ) from exc


def _items(answer: requests.Response) -> list[dict[str, Any]]:
    """The line items of one page of a container."""
    body = json_body(answer)
    return [item for item in body if isinstance(item, dict)] if isinstance(body, list) else []


def next_page(answer: requests.Response) -> str | None:
    """The rel="next" URL of the Link header (its name and rel read case-insensitively; the URL kept as given)."""
    link = answer.headers.get("Link") or answer.headers.get("link") or ""
    for part in link.split(","):
        if ";" in part:
            target, *attributes = part.split(";")
            if any(a.strip().lower().replace('"', "") == "rel=next" for a in attributes):
                return target.strip().strip("<>")
    return None


def line_item_url(client: LmsClient, context: LtiContext, assignment: Assignment, maximum: float) -> str:
    """The line item of ``assignment`` in ``context``: the one recorded, else the one the LMS has with this
    resourceId, else a new one; recorded (committed)."""
    session = client.session
    row = session.scalar(
        select(LtiLineItem).where(LtiLineItem.context_id == context.id, LtiLineItem.assignment_id == assignment.id)
    )
    if row is not None and row.url:
        return row.url
    if not context.lineitems_url:
        raise LmsAnswer(404, "the LMS gave this course no line-items service (AGS not enabled for the tool)")
    found: str | None = None
    page: str | None = _with_query(context.lineitems_url, resource_id=str(assignment.id))
    while page and found is None:
        answer = client.call("GET", page, accept=LINEITEMS_TYPE)
        found = next(
            (str(i["id"]) for i in _items(answer) if str(i.get("resourceId")) == str(assignment.id) and i.get("id")),
            None,
        )
        page = next_page(answer)
    if found is None:
        created = client.call(
            "POST",
            context.lineitems_url,
            accept=LINEITEM_TYPE,
            content_type=LINEITEM_TYPE,
            body={
                "scoreMaximum": maximum,
                "label": assignment.title_en or assignment.title_zh,
                "resourceId": str(assignment.id),
                "tag": LINE_ITEM_TAG,
            },
        )
        made = json_body(created)
        if not isinstance(made, dict) or not made.get("id"):
            raise LmsAnswer(created.status_code, f"{context.lineitems_url} created a line item without an id")
        found = str(made["id"])
    if len(found) > URL_MOST:  # an answer, not a failure to answer: refused for good, not retried
        raise LmsAnswer(200, f"the LMS's line item URL is longer than {URL_MOST} characters, which this tool keeps")
    if row is None:
        session.add(LtiLineItem(context_id=context.id, assignment_id=assignment.id, url=found))
    else:
        row.url = found
    session.commit()
    return found


def post_score(client: LmsClient, line_item: str, score: dict[str, Any]) -> None:
    """POST one score to the line item's /scores (raises LmsAnswer)."""
    client.call(
        "POST", with_path_suffix(line_item, "/scores"), accept="application/json", content_type=SCORE_TYPE, body=score
    )
