"""The one string catalogue: no key defined twice (within a file or across files), every key in both languages, and
every key a template names is defined (student and teacher templates alike)."""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

import pytest

from exercises.i18n import Text
from grader import i18n
from grader.i18n import PARTS, UI

CATALOGUE_FILES = sorted((Path(i18n.__file__).parent).glob("*_strings.py"))
TEMPLATE_DIRS = [Path(i18n.__file__).parents[1] / "templates", Path(i18n.__file__).parents[1] / "teacher" / "templates"]
USED_KEY = re.compile(r"""\b_\(['"]([a-z_0-9.]+)['"]""")


def _literal_keys(path: Path) -> list[str]:
    """Every string key of every dict literal in ``path``, as written (a repeated key in one literal is kept twice,
    although Python would silently keep only its last value)."""
    tree = ast.parse(path.read_text("utf-8"))
    return [
        key.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Dict)
        for key in node.keys
        if isinstance(key, ast.Constant) and isinstance(key.value, str)
    ]


def test_the_catalogue_is_kept_in_its_files() -> None:
    assert {path.name for path in CATALOGUE_FILES} == {
        "student_strings.py",
        "teacher_strings.py",
        "assignment_strings.py",
        "course_strings.py",  # running a course: extensions, late work
        "lti_strings.py",
        "account_strings.py",  # roster accounts and one-time sign-in links
        "export_strings.py",  # readable grade files and the .xlsx gradebook
        "staff_strings.py",  # a course's co-teachers and teaching assistants
        "policy_strings.py",  # grading policies and the course gradebook page
    }


def test_no_key_is_defined_twice() -> None:
    written = Counter(key for path in CATALOGUE_FILES for key in _literal_keys(path))
    assert sorted(key for key, count in written.items() if count > 1) == []
    assert sum(len(part) for part in PARTS) == len(UI) == len(written)


def test_a_key_in_two_parts_is_refused() -> None:
    with pytest.raises(ValueError, match=r"nav\.x"):
        i18n._merged(({"nav.x": Text("甲", "a")}, {"nav.x": Text("乙", "b")}))


@pytest.mark.parametrize("key", sorted(UI))
def test_every_key_has_both_languages(key: str) -> None:
    text = UI[key]
    assert text.zh.strip() and text.en.strip()


def test_colliding_meanings_have_their_own_keys() -> None:
    assert (UI["nav.teach"].zh, UI["teach.nav"].zh) == ("教学管理", "教师面板")
    assert (UI["nav.courses"].en, UI["teach.nav.courses"].en) == ("My courses", "Courses I teach")
    assert (UI["policy.best"].en, UI["asg.policy.best"].en) == ("best attempt counts", "best attempt")
    assert (UI["policy.last"].en, UI["asg.policy.last"].en) == ("last attempt counts", "last attempt")


def test_every_key_a_template_names_is_defined() -> None:
    used = {
        key
        for folder in TEMPLATE_DIRS
        for path in folder.rglob("*.html")
        for key in USED_KEY.findall(path.read_text("utf-8"))
    }
    assert "teach.nav.courses" in used and "nav.courses" in used
    assert sorted(key for key in used - set(UI) if not key.endswith((".", "_"))) == []
