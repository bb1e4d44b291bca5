"""Finding people by name: the one rule every search of people asks (``User.name_contains``), on both databases."""

from __future__ import annotations

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from grader.models import User
from tests.factories import make_user, unique


@pytest.fixture
def people(session: Session) -> dict[str, User]:
    """Four users with telling usernames and names."""
    tag = unique("n")
    found = {}
    for key, username, name in (
        ("emile", f"{tag}-emile", "Émile Zola"),
        ("li", f"{tag}-li", "李小龙"),
        ("split", f"{tag}-xy", "zw"),
        ("percent", f"{tag}-pct", "100% sure_thing"),
    ):
        user = make_user(session, username=username)
        user.display_name = name
        found[key] = user
    session.commit()
    return found


def matching(session: Session, people: dict[str, User], text: str) -> set[str]:
    """The keys of ``people`` whose username or name contains ``text``."""
    ids = {user.id: key for key, user in people.items()}
    return {
        ids[user_id] for user_id in session.scalars(select(User.id).where(User.name_contains(text))) if user_id in ids
    }


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("zola", {"emile"}),  # in the name, in another case
        ("ZOLA", {"emile"}),
        ("-EMILE", {"emile"}),  # in the username, in another case
        ("小龙", {"li"}),
        ("yz", set()),  # nothing spans the username and the name
        ("y\x1fz", set()),
        ("100%", {"percent"}),  # LIKE's wildcards are the characters themselves
        ("0% s", {"percent"}),
        ("%", {"percent"}),
        ("s_r", set()),
        ("e_thing", {"percent"}),
    ],
)
def test_a_name_or_username_contains_the_text_in_any_case(
    session: Session, people: dict[str, User], text: str, expected: set[str]
) -> None:
    assert matching(session, people, text) == expected


def test_letters_beyond_ascii_match_in_the_case_the_database_folds(session: Session, people: dict[str, User]) -> None:
    """Both sides are lowered by the database, so a name matches itself typed as it is, whatever the database
    knows of case beyond ASCII."""
    assert matching(session, people, "Émile") == {"emile"}
