"""The layers of docs/architecture.md, checked on the source: which package may import which.

Read from the import statements of every module (also those under ``if TYPE_CHECKING:``), so an import hidden
from the runtime still counts.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# package -> packages it must never import (a package means itself and everything below it)
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "exercises": ("grader",),
    "grader.models": ("grader.api", "grader.web", "grader.teacher", "grader.ui", "grader.grading", "grader.i18n"),
    "grader.grading": ("grader.api", "grader.web", "grader.teacher", "grader.ui", "grader.i18n"),
    "grader.courses": ("grader.api", "grader.web", "grader.teacher", "grader.ui", "grader.i18n", "grader.lti"),
    "grader.i18n": ("grader.api", "grader.web", "grader.teacher", "grader.ui", "grader.grading", "grader.models"),
    "grader.ui": ("grader.api", "grader.web", "grader.teacher"),
    "grader.api": ("grader.web", "grader.teacher", "grader.ui"),
    "grader.web": ("grader.teacher",),
    "grader.teacher": ("grader.web", "grader.api"),
    "grader.lti": ("grader.web", "grader.api"),
}


def _module_name(path: Path) -> str:
    """The dotted name of the module in ``path``."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(path: Path) -> set[str]:
    """Every module ``path`` imports, as dotted names (``from a import b`` counts as ``a`` and ``a.b``)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def _within(name: str, package: str) -> bool:
    return name == package or name.startswith(f"{package}.")


MODULES = {_module_name(path): path for folder in ("grader", "exercises") for path in (ROOT / folder).rglob("*.py")}


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_package_imports_only_what_its_layer_may(package: str) -> None:
    members = {name: path for name, path in MODULES.items() if _within(name, package)}
    assert members, f"no modules found under {package}"
    broken = sorted(
        f"{name} imports {imported}"
        for name, path in members.items()
        for imported in _imported(path)
        if any(_within(imported, banned) for banned in FORBIDDEN[package])
    )
    assert broken == []


def test_a_rule_breach_would_be_seen() -> None:
    assert any(_within(name, "grader.web") for name in _imported(ROOT / "grader" / "app.py"))


def _engine_cycle() -> list[str]:
    """One cycle among the engine's modules' imports (every import statement counts), or [] when there is none."""
    engine = {name: path for name, path in MODULES.items() if _within(name, "exercises")}
    edges = {
        name: sorted(other for other in _imported(path) if other in engine and other != name)
        for name, path in engine.items()
    }
    done: set[str] = set()

    def visit(name: str, trail: list[str]) -> list[str]:
        if name in trail:
            return [*trail[trail.index(name) :], name]
        if name in done:
            return []
        for other in edges[name]:
            cycle = visit(other, [*trail, name])
            if cycle:
                return cycle
        done.add(name)
        return []

    for name in sorted(engine):
        cycle = visit(name, [])
        if cycle:
            return cycle
    return []


def test_the_engine_has_no_import_cycle() -> None:
    # A package's __init__ importing its own modules is no cycle in practice, but none of the engine's does that.
    assert _engine_cycle() == []
