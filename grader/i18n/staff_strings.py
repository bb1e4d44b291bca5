"""Strings of a course's staff page: co-teachers and teaching assistants."""

from __future__ import annotations

from exercises.i18n import Text

STAFF_UI: dict[str, Text] = {
    "staff.nav": Text("教学团队", "Staff"),
    "staff.title": Text("{title}：教学团队", "{title}: course staff"),
    "staff.intro": Text(
        "合作教师可以做课程教师能做的一切，但不能删除课程。助教可以查看统计、学生、提交和导出，并给予延期和成绩更正；"
        "助教不能编辑或删除作业、重新评分、更改名单或课程设置，也不能管理教学团队。",
        "A co-teacher can do everything the course's teachers can, except delete the course. A teaching assistant "
        "sees the dashboards, students, submissions and exports, and gives extensions and score overrides; a TA "
        "cannot edit or delete assignments, regrade, change the roster or the course's settings, or manage the staff.",
    ),
    "staff.owners": Text("课程教师", "Course teachers"),
    "staff.members": Text("合作教师与助教", "Co-teachers and teaching assistants"),
    "staff.none": Text("还没有合作教师或助教。", "No co-teachers or teaching assistants yet."),
    "staff.add_heading": Text("添加成员", "Add a member"),
    "staff.add_hint": Text(
        "输入一个教师账户的用户名（学生账户需先由管理员改为教师账户）。",
        "Type the username of a teacher account (an administrator can make a student's account a teacher's first).",
    ),
    "staff.username": Text("用户名", "Username"),
    "staff.name": Text("姓名", "Name"),
    "staff.role": Text("角色", "Role"),
    "staff.role.co_teacher": Text("合作教师", "Co-teacher"),
    "staff.role.ta": Text("助教", "Teaching assistant"),
    "staff.add": Text("添加", "Add"),
    "staff.change": Text("更改角色", "Change role"),
    "staff.remove": Text("移除", "Remove"),
    "staff.added": Text("{name} 已加入教学团队。", "{name} was added to the course staff."),
    "staff.changed": Text("{name} 的角色已更改。", "{name}'s role was changed."),
    "staff.removed": Text("{name} 已从教学团队移除。", "{name} was removed from the course staff."),
    "staff.err_unknown": Text(
        "没有用户名为 {name} 的有效账户。", "There is no active account with the username {name}."
    ),
    "staff.err_account": Text(
        "{name} 是学生账户：请管理员先把它改为教师账户。",
        "{name} has a student account: an administrator must make it a teacher account first.",
    ),
    "staff.err_enrolled": Text(
        "{name} 已作为教师或学生加入本课程。", "{name} is already enrolled in this course (as a teacher or a student)."
    ),
    "staff.err_role": Text("请选择角色：合作教师或助教。", "Choose a role: co-teacher or teaching assistant."),
}
