"""The strings of running a course (extensions, late work), for teacher and student pages, in Chinese and English."""

from __future__ import annotations

from exercises.i18n import Text

COURSE_UI: dict[str, Text] = {
    "ext.title": Text("延期与额外次数：{title}", "Extensions: {title}"),
    "ext.link": Text("延期与额外次数", "Extensions"),
    "ext.intro": Text(
        "为个别学生设定更晚的截止时间或额外的提交次数。学生会看到自己的截止时间；成绩、导出与 API 都按它计算。",
        "Give a student a later due date or extra attempts. The student sees their own due date; "
        "grades, exports and the API all follow it.",
    ),
    "ext.assignment_due": Text("作业的截止时间：{when}", "The assignment is due {when}"),
    "ext.no_due": Text("这个作业没有截止时间。", "This assignment has no due date."),
    "ext.assignment_attempts": Text("每题 {n} 次机会", "{n} attempts per exercise"),
    "ext.student": Text("学生", "Student"),
    "ext.due_at": Text("新的截止时间（{zone}，可留空）", "New due date ({zone}, optional)"),
    "ext.extra_attempts": Text("额外次数（每题）", "Extra attempts (per exercise)"),
    "ext.reason": Text("原因（可留空，仅教师可见）", "Reason (optional, seen by staff only)"),
    "ext.save": Text("保存延期", "Save extension"),
    "ext.saved": Text("已为 {name} 保存延期。", "Extension saved for {name}."),
    "ext.cleared": Text("已取消 {name} 的延期。", "Extension removed for {name}."),
    "ext.clear": Text("取消延期", "Remove"),
    "ext.current": Text("已有的延期", "Current extensions"),
    "ext.none": Text("还没有任何延期。", "No extensions yet."),
    "ext.col_due": Text("截止时间", "Due"),
    "ext.col_extra": Text("额外次数", "Extra attempts"),
    "ext.col_reason": Text("原因", "Reason"),
    "ext.col_updated": Text("设定于", "Set"),
    "ext.same_due": Text("同作业", "as the assignment"),
    "ext.choose": Text("请选择学生", "Choose a student"),
    "ext.err_student": Text("请选择本课程的一名学生。", "Choose a student of this course."),
    "ext.err_no_due": Text(
        "这个作业没有截止时间，无需延期；可以给额外次数。",
        "This assignment has no due date to extend; extra attempts can still be given.",
    ),
    "ext.err_before_due": Text(
        "新的截止时间必须晚于作业的截止时间（{due}）。",
        "The new due date must be after the assignment's due date ({due}).",
    ),
    "ext.err_attempts": Text(
        "额外次数须是 0 到 1000 之间的整数。", "Extra attempts must be a whole number from 0 to 1000."
    ),
    "ext.err_unlimited": Text(
        "这个作业的提交次数不限，无需额外次数。",
        "This assignment allows unlimited attempts: extra attempts mean nothing here.",
    ),
    "ext.err_nothing": Text(
        "请填写新的截止时间、额外次数，或两者都填。", "Give a later due date, extra attempts, or both."
    ),
    "ext.err_reason": Text("原因最多 500 个字符。", "The reason may have at most 500 characters."),
    "ext.err_date": Text(
        "截止时间格式不对，请用日期时间选择器。", "The due date is not a date and time; use the picker."
    ),
    "ext.mark": Text("已延期", "extended"),
}
