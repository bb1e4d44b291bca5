"""Access rules live in grader.grading.access alone: what each course part may do, and the SQL for listings agrees
with the answer for one course; no other module decides who teaches a course or who is an admin by itself."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from sqlalchemy.orm import Session

from grader.grading import access
from grader.grading.access import Action, Actor, CourseRole
from grader.models import Course, CourseStaff, Enrolment, EnrolmentRole, Role, StaffRole
from tests.factories import make_user, unique

GRADER = Path(access.__file__).resolve().parents[1]
# Deciding who teaches (an enrolment as teacher, a staff row) or who is an admin, outside the one module.
RULES = {
    "a teacher enrolment read as an access rule": re.compile(r"Enrolment\.role\s*==\s*EnrolmentRole\.TEACHER"),
    "an admin check by role": re.compile(r"role\s*[!=]=\s*Role\.ADMIN"),
    "a course_staff read": re.compile(r"CourseStaff\.\w+"),
}
ALLOWED = {
    "grading/access.py",  # the rules
    "grading/course_staff.py",  # the staff list itself (who holds which part), not what a part may do
    "models/course_staff.py",
}


def test_no_module_but_the_access_module_decides_who_may_act_in_a_course() -> None:
    found = [
        f"{path.relative_to(GRADER)}:{number}: {what}"
        for path in sorted(GRADER.rglob("*.py"))
        if str(path.relative_to(GRADER)) not in ALLOWED
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1)
        for what, pattern in RULES.items()
        if pattern.search(line)
    ]
    assert found == []


def test_a_rule_breach_would_be_seen() -> None:
    assert RULES["a teacher enrolment read as an access rule"].search("Enrolment.role == EnrolmentRole.TEACHER")
    assert RULES["an admin check by role"].search("if user.role != Role.ADMIN:")
    assert RULES["a course_staff read"].search("select(CourseStaff.user_id)")


def test_what_each_part_may_do() -> None:
    everything = set(Action)
    assert access.GRANTS[CourseRole.OWNER] == everything
    assert access.GRANTS[CourseRole.ADMIN] == everything
    assert access.GRANTS[CourseRole.CO_TEACHER] == everything - {Action.DELETE_COURSE}
    assert access.GRANTS[CourseRole.TA] == {
        Action.VIEW_COURSE,
        Action.SEE_STUDENTS,
        Action.EXPORT,
        Action.GIVE_EXTENSIONS,
        Action.OVERRIDE,
    }
    assert access.GRANTS[CourseRole.STUDENT] == {Action.VIEW_COURSE}
    assert not any(access.allows(None, action) for action in Action)


@pytest.fixture
def parts(session: Session) -> tuple[int, dict[str, Actor]]:
    """A course with one user in each part (and acting through a student-role token), and an outsider."""
    course = Course(code=unique("access"), title="Access")
    session.add(course)
    session.flush()
    users = {
        name: make_user(session, role)
        for name, role in [
            ("owner", Role.TEACHER),
            ("co_teacher", Role.TEACHER),
            ("ta", Role.TEACHER),
            ("student", Role.STUDENT),
            ("outsider", Role.TEACHER),
            ("admin", Role.ADMIN),
        ]
    }
    session.add_all(
        [
            Enrolment(course_id=course.id, user_id=users["owner"].id, role=EnrolmentRole.TEACHER),
            Enrolment(course_id=course.id, user_id=users["student"].id, role=EnrolmentRole.STUDENT),
            CourseStaff(course_id=course.id, user_id=users["co_teacher"].id, role=StaffRole.CO_TEACHER),
            CourseStaff(course_id=course.id, user_id=users["ta"].id, role=StaffRole.TA),
        ]
    )
    session.commit()
    actors = {name: Actor.of_user(user) for name, user in users.items()}
    actors["owner_as_student"] = Actor(users["owner"].id, Role.STUDENT)
    actors["ta_as_student"] = Actor(users["ta"].id, Role.STUDENT)
    return course.id, actors


EXPECTED_PARTS = {
    "owner": CourseRole.OWNER,
    "co_teacher": CourseRole.CO_TEACHER,
    "ta": CourseRole.TA,
    "student": CourseRole.STUDENT,
    "outsider": None,
    "admin": CourseRole.ADMIN,
    "owner_as_student": CourseRole.STUDENT,
    "ta_as_student": CourseRole.STUDENT,
}


def test_each_user_has_their_part_and_the_listing_sql_agrees_with_it(
    session: Session, parts: tuple[int, dict[str, Actor]]
) -> None:
    course_id, actors = parts
    disagreements = []
    for name, actor in actors.items():
        part = access.course_role(session, actor, course_id)
        assert part == EXPECTED_PARTS[name], name
        for action in Action:
            listed = course_id in {course.id for course in access.courses(session, actor, action)}
            if listed != access.allows(part, action) or listed != access.may(session, actor, action, course_id):
                disagreements.append(f"{name} {action}: listed {listed}, part {part}")
    assert disagreements == []


def test_membership_counts_every_part_but_an_admin_s(session: Session, parts: tuple[int, dict[str, Actor]]) -> None:
    course_id, actors = parts
    members = {name for name, actor in actors.items() if access.is_member(session, actor.user_id, course_id)}
    assert members == {"owner", "co_teacher", "ta", "student", "owner_as_student", "ta_as_student"}
