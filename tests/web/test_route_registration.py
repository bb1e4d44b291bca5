"""Pages are registered explicitly: each view module declares its routes, the owning package lists every view module
and adds their routes once; importing a view module registers nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask import Blueprint, Flask

import grader.teacher
import grader.web
from grader.ui.routes import Routes


@pytest.mark.parametrize("package", [grader.web, grader.teacher])
def test_every_view_module_is_listed(package: object) -> None:
    folder = Path(package.__file__).parent  # type: ignore[attr-defined]
    on_disk = {path.stem for path in folder.glob("*_views.py")}
    listed = {module.__name__.rsplit(".", 1)[1] for module in package.VIEW_MODULES}  # type: ignore[attr-defined]
    assert on_disk and listed == on_disk


def test_declaring_routes_registers_nothing_until_register() -> None:
    routes, blueprint = Routes(), Blueprint("probe", __name__)

    @routes.get("/probe")
    def probe() -> str:
        return "ok"

    @routes.post("/probe")
    def probe_post() -> str:
        return "posted"

    app = Flask(__name__)
    routes.register(blueprint)
    routes.register(blueprint)  # a second app built from the same blueprint adds nothing twice
    app.register_blueprint(blueprint)
    rules = {(rule.rule, rule.endpoint, frozenset(rule.methods or ())) for rule in app.url_map.iter_rules()}
    assert ("/probe", "probe.probe", frozenset({"GET", "HEAD", "OPTIONS"})) in rules
    assert ("/probe", "probe.probe_post", frozenset({"POST", "OPTIONS"})) in rules
    client = app.test_client()
    assert client.get("/probe").text == "ok" and client.post("/probe").text == "posted"


def test_the_app_serves_the_listed_modules_routes(app: Flask) -> None:
    endpoints = {rule.endpoint for rule in app.url_map.iter_rules()}
    for package, name in [(grader.web, "web"), (grader.teacher, "teacher")]:
        for module in package.VIEW_MODULES:
            for _, view, _ in module.routes.rules:
                assert f"{name}.{view.__name__}" in endpoints
