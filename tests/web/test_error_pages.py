"""URLs no route owns get the pages' own error page (or JSON under the API), never Werkzeug's bare page."""

from __future__ import annotations

import pytest
from flask import Flask

from grader.routing import ROW_ID_MAX


@pytest.mark.parametrize(
    "path", ["/nothing", "/teach/nothing", f"/submissions/{ROW_ID_MAX + 1}", "/submissions/abc", "/courses/1/nothing"]
)
def test_an_unknown_page_is_the_apps_404_page(app: Flask, path: str) -> None:
    response = app.test_client().get(path)
    assert response.status_code == 404
    assert response.mimetype == "text/html"
    page = response.get_data(as_text=True)
    assert "找不到这个页面" in page and "Not Found" not in page  # ours (Chinese by default), not Werkzeug's


@pytest.mark.parametrize("path", ["/logout", "/teach/courses/1/archive"])
def test_a_page_url_with_the_wrong_method_is_the_apps_error_page(app: Flask, path: str) -> None:
    """Student and teacher pages alike: our page, with the Allow header the method needs."""
    response = app.test_client().get(path)
    assert response.status_code == 405
    assert "出错了" in response.get_data(as_text=True)
    assert "POST" in response.headers["Allow"]


@pytest.mark.parametrize(
    "path", ["/api/v1/nothing", "/api/v1/submissions/abc", f"/api/v1/submissions/{ROW_ID_MAX + 1}"]
)
def test_the_api_still_answers_unknown_urls_with_json(app: Flask, path: str) -> None:
    response = app.test_client().get(path)
    assert response.status_code == 404
    assert response.get_json()["error"]["code"] == "not_found"
