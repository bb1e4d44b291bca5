"""A view module's routes, declared beside its views and added to a blueprint explicitly by the package that owns it.

Importing a view module registers nothing: the package lists its view modules and calls ``routes.register(bp)``
for each when the app is built, so what serves a URL is visible in one place.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from flask import Blueprint

F = TypeVar("F", bound=Callable[..., Any])


@dataclass
class Routes:
    """The URL rules of one view module, kept until ``register`` adds them to a blueprint."""

    rules: list[tuple[str, Callable[..., Any], dict[str, Any]]] = field(default_factory=list)
    registered_on: set[str] = field(default_factory=set)

    def route(self, rule: str, **options: Any) -> Callable[[F], F]:
        """Declare ``rule`` for the decorated view (options as for ``Blueprint.route``)."""

        def declare(view: F) -> F:
            self.rules.append((rule, view, options))
            return view

        return declare

    def get(self, rule: str, **options: Any) -> Callable[[F], F]:
        """Declare a GET rule."""
        return self.route(rule, methods=["GET"], **options)

    def post(self, rule: str, **options: Any) -> Callable[[F], F]:
        """Declare a POST rule."""
        return self.route(rule, methods=["POST"], **options)

    def register(self, blueprint: Blueprint) -> None:
        """Add the rules to ``blueprint``; once per blueprint, because a blueprint takes no new rules after its first
        registration on an app (and tests build many apps from one blueprint)."""
        if blueprint.name in self.registered_on:
            return
        for rule, view, options in self.rules:
            blueprint.add_url_rule(rule, view_func=view, **options)
        self.registered_on.add(blueprint.name)
