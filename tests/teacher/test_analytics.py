"""Every dashboard statistic against values worked out by hand for the fixture course (both backends)."""

from __future__ import annotations

import pytest
from sqlalchemy.orm import Session

from grader.courses.roster import remove_student
from grader.models import Assignment
from grader.teacher import analytics, progress_stats
from tests.factories import rebuild_progress
from tests.teacher.course_data import COST, GREEDY, LOSS, FixtureCourse, add_submission, at, build


@pytest.fixture
def fixture_course(session: Session) -> FixtureCourse:
    """The hand-computed fixture course."""
    return build(session)


def by_key(summaries: list[progress_stats.ScoreSummary]) -> dict[object, progress_stats.ScoreSummary]:
    """Summaries keyed by exercise or assignment id."""
    return {s.key: s for s in summaries}


def test_exercise_statistics_best_policy(session: Session, fixture_course: FixtureCourse) -> None:
    """Attempted, mean counted (best) score, first-try share and histogram per exercise."""
    stats = progress_stats.exercise_stats(session, fixture_course.best)
    assert [s.key for s in stats] == [LOSS, COST]
    loss, cost = stats
    # LOSS: alice best 1.0 (first 0.5), bob 1.0 (first 1.0), carol 0.25 — teacher, outsider and invalid rows ignored.
    assert loss.attempted == 3
    assert loss.mean_score == pytest.approx(0.75)
    assert loss.first_try_share == pytest.approx(1 / 3)
    assert loss.histogram == (0, 1, 0, 0, 0, 2)
    # COST: alice 0.0, carol 2/3.
    assert cost.attempted == 2
    assert cost.mean_score == pytest.approx(1 / 3)
    assert cost.first_try_share == pytest.approx(0.0)
    assert cost.histogram == (1, 0, 0, 1, 0, 0)


def test_exercise_statistics_last_policy(session: Session, fixture_course: FixtureCourse) -> None:
    """With 'last attempt counts', alice's later 0.5 replaces her earlier 1.0; carol's queued row is not counted."""
    (greedy,) = progress_stats.exercise_stats(session, fixture_course.last)
    assert greedy.key == GREEDY
    assert greedy.attempted == 2
    assert greedy.mean_score == pytest.approx(0.25)
    assert greedy.first_try_share == pytest.approx(0.5)
    assert greedy.histogram == (1, 0, 1, 0, 0, 0)


def test_unattempted_exercise_has_zero_counts(session: Session, fixture_course: FixtureCourse) -> None:
    """An exercise nobody answered still gets a row, with no mean and an empty histogram."""
    fixture_course.best.exercise_ids = [LOSS, COST, GREEDY]
    rebuild_progress(session)
    greedy = by_key(progress_stats.exercise_stats(session, fixture_course.best))[GREEDY]
    assert (greedy.attempted, greedy.mean_score, greedy.first_try_share) == (0, None, None)
    assert greedy.histogram == (0,) * progress_stats.BIN_COUNT


def test_assignment_statistics(session: Session, fixture_course: FixtureCourse) -> None:
    """Per assignment: a student's score is the sum of counted scores over the exercises set (missing = 0)."""
    stats = by_key(
        progress_stats.assignment_stats(session, fixture_course.course.id, [fixture_course.best, fixture_course.last])
    )
    best = stats[fixture_course.best.id]
    # alice (1.0 + 0.0)/2, bob 1.0/2, carol (0.25 + 2/3)/2; first tries right: bob's LOSS only, of 5 pairs.
    assert best.attempted == 3
    assert best.mean_score == pytest.approx((0.5 + 0.5 + (0.25 + 2 / 3) / 2) / 3)
    assert best.first_try_share == pytest.approx(1 / 5)
    assert best.histogram == (0, 0, 3, 0, 0, 0)
    last = stats[fixture_course.last.id]
    assert (last.attempted, last.mean_score, last.first_try_share) == (2, pytest.approx(0.25), pytest.approx(0.5))
    assert last.histogram == (1, 0, 1, 0, 0, 0)


def test_a_mean_on_a_bin_edge_is_binned_as_the_table_shows_it(session: Session, fixture_course: FixtureCourse) -> None:
    # Found by an audit: (1.0 + 0.2)/3 is 0.39999999999999997 in floating point; the student table shows 40 % and
    # the histogram counted it in 20–39 %. A mean is binned by the whole percentage the pages show.
    three = Assignment(
        course=fixture_course.course,
        title_zh="三题",
        title_en="Three",
        exercise_ids=[LOSS, COST, GREEDY],
        score_policy="best",
    )
    session.add(three)
    session.commit()
    scores = {fixture_course.alice: (1.0, 0.2), fixture_course.bob: (1.0, 1.0, 0.4), fixture_course.carol: (0.8, 1.0)}
    for minute, (student, counted) in enumerate(scores.items()):
        for exercise_id, score in zip((LOSS, COST, GREEDY), counted):
            add_submission(session, student, three, exercise_id, 100 + minute, score)
    rebuild_progress(session)
    (stats,) = progress_stats.assignment_stats(session, fixture_course.course.id, [three])
    assert stats.histogram == (0, 0, 1, 1, 1, 0)  # 40 %, 60 %, 80 %


def test_misconception_histogram(session: Session, fixture_course: FixtureCourse) -> None:
    """Tag counts are per wrong submission (a tag on two parts counts once), shares are of wrong answers."""
    loss, cost = analytics.misconceptions(session, fixture_course.best)
    assert (loss.exercise_id, loss.wrong_answers) == (LOSS, 3)
    assert [(t.tag, t.count, t.students) for t in loss.tags] == [("log10", 2, 2), ("log2", 1, 1)]
    assert [t.share_of_wrong for t in loss.tags] == [pytest.approx(2 / 3), pytest.approx(1 / 3)]
    # Newest first; of alice's two log10 parts the wrong one (score 0), not the follow-through part, is the example.
    assert loss.tags[0].examples == ("total_loss: 0.54", "total_loss: 0.5406")
    assert loss.tags[1].examples == ("total_loss: 1.7958",)
    assert (cost.exercise_id, cost.wrong_answers) == (COST, 2)
    assert [(t.tag, t.count, t.share_of_wrong) for t in cost.tags] == [
        ("causal-half-square", 1, pytest.approx(0.5)),
        ("linear-growth", 1, pytest.approx(0.5)),
    ]
    (greedy,) = analytics.misconceptions(session, fixture_course.last)
    assert greedy.wrong_answers == 2
    assert {t.tag: t.count for t in greedy.tags} == {"eos-omitted": 1, "tie-to-later": 1}
    assert {t.tag: t.examples for t in greedy.tags}["eos-omitted"] == ("tokens: blue key .",)


def test_student_progress(session: Session, fixture_course: FixtureCourse) -> None:
    """Every enrolled student (dave too), with exercises attempted, full marks, score and last graded attempt."""
    rows = progress_stats.student_table(
        session, fixture_course.course.id, [fixture_course.best, fixture_course.last]
    ).rows
    assert [r.display_name for r in rows] == ["Alice", "Bob", "Carol", "Dave"]
    alice, bob, carol, dave = rows
    assert (alice.attempted, alice.full_marks, alice.total) == (3, 1, 3)
    assert alice.score == pytest.approx((1.0 + 0.0 + 0.5) / 3)
    assert alice.last_activity == at(13)  # her later submissions are outside this course's exercises
    assert (bob.attempted, bob.full_marks, bob.score, bob.last_activity) == (2, 1, pytest.approx(1 / 3), at(12))
    assert (carol.attempted, carol.full_marks) == (2, 0)
    assert carol.score == pytest.approx((0.25 + 2 / 3) / 3)
    assert carol.last_activity == at(9)  # her latest graded attempt (the queued one at minute 14 is not graded yet)
    assert (dave.attempted, dave.full_marks, dave.score, dave.last_activity) == (0, 0, 0.0, None)


def test_removed_student_drops_out_of_statistics(session: Session, fixture_course: FixtureCourse) -> None:
    """Statistics follow the roster: without bob, LOSS has two students left."""
    assert remove_student(session, fixture_course.course, fixture_course.bob.id) is not None
    loss = by_key(progress_stats.exercise_stats(session, fixture_course.best))[LOSS]
    assert (loss.attempted, loss.first_try_share) == (2, pytest.approx(0.0))
