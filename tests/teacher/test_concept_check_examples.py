"""The concept check's misconception examples on the teacher's pages name the item and the option chosen, not the
letters each student saw in their own shuffled order."""

from __future__ import annotations

import csv
import functools
import io
from collections.abc import Callable

from flask.testing import FlaskClient
from sqlalchemy.orm import Session

from exercises import api as engine
from exercises.l03.concept_check import MISCONCEPTIONS
from exercises.l03.concept_items import WRONG_BY_TAG
from exercises.registry import get_exercise
from exercises.variant_generation import generate_variant
from grader.models import Assignment, Course, Enrolment, EnrolmentRole, Role
from tests.factories import make_user, unique
from tests.teacher.course_data import add_submission

CONCEPT = "l03.concept-check"
TAG = "lstm-encoder-plus-decoder"


@functools.cache  # the search for two such seeds draws hundreds of variants, once per backend without it
def _wrong_answer(seed: int) -> dict[str, object] | None:
    """The answer of a student who gets every item right but picks ``TAG``'s option (None if not shown)."""
    misconception = next(m for m in MISCONCEPTIONS if m.tag == TAG)
    return misconception.solve(generate_variant(get_exercise(CONCEPT), seed))


def test_examples_say_the_option_in_words(session: Session, login: Callable[[str], tuple[FlaskClient, str]]) -> None:
    """Two students whose shuffles put the same wrong option under different letters: the dashboard and the CSV
    quote the item's option in words, and no student's letters."""
    teacher = make_user(session, Role.TEACHER)
    course = Course(code=unique("concept"), title="Concept check course")
    course.enrolments = [Enrolment(user=teacher, role=EnrolmentRole.TEACHER)]
    assignment = Assignment(course=course, title_zh="概念", title_en="Concepts", exercise_ids=[CONCEPT])
    session.add_all([course, assignment])
    seeds = [seed for seed in range(1, 400) if _wrong_answer(seed) is not None][:2]
    letters = set()
    for seed in seeds:
        student = make_user(session, Role.STUDENT)
        course.enrolments.append(Enrolment(user=student, role=EnrolmentRole.STUDENT))
        answer = _wrong_answer(seed)
        assert answer is not None
        letters.add(" ".join(str(letter) for letter in answer["choices"]))  # type: ignore[attr-defined]
        result = engine.grade(CONCEPT, seed, {"choices": " ".join(answer["choices"])}, "en")  # type: ignore[arg-type]
        assert TAG in result["parts"]["choices"]["tags"], result
        row = add_submission(session, student, assignment, CONCEPT, seed, result["score"], result["parts"])
        row.seed = seed
    session.commit()
    client, token = login(teacher.username)
    _, option = WRONG_BY_TAG[TAG]

    page = client.get(f"/teach/assignments/{assignment.id}").get_data(as_text=True)
    assert option.text.en in page
    for shown in letters:
        assert f"choices: {shown}" not in page

    download = client.post(f"/teach/assignments/{assignment.id}/export/misconceptions.csv", data={"csrf_token": token})
    rows = list(csv.reader(io.StringIO(download.get_data(as_text=True).lstrip("\ufeff"))))
    (row,) = [r for r in rows[1:] if r[1] == TAG]
    assert option.text.zh in row[6] and option.text.en in row[6]
    assert "choices:" not in row[6]
