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
    "points.col": Text("得分 / 分值", "Points"),
    "points.total": Text("共 {points} / {max} 分", "{points} of {max} points"),
    "points.label": Text("分值", "Points"),
    "points.err": Text(
        "分值须是大于 0、至多 1000 的数，最多两位小数。",
        "Points must be a number above 0 and at most 1000, with at most two decimals.",
    ),
    "ovr.err_student": Text("请选择本课程的一名学生。", "Choose a student of this course."),
    "ovr.err_exercise": Text(
        "请选择本作业中的一道题，或作业总分。", "Choose an exercise of this assignment, or its total."
    ),
    "ovr.err_score": Text("分数须在 0 到满分之间。", "The score must be from 0 to the maximum."),
    "ovr.err_reason": Text("请写明原因（最多 500 个字符）。", "Give a reason (at most 500 characters)."),
    "ovr.mark": Text("教师已改分", "set by your teacher"),
    "ovr.reason": Text("原因：{reason}", "Reason: {reason}"),
    "ovr.title": Text("改分：{title}", "Score overrides: {title}"),
    "ovr.link": Text("改分", "Overrides"),
    "ovr.intro": Text(
        "为学生的某道题或作业总分指定计入的分数，并写明原因。改分会记入日志，重新批改也不会覆盖它，直到你取消。",
        "Set the score that counts for a student on one exercise or on the assignment's total, with a "
        "reason. It is logged, and regrades keep it until you clear it.",
    ),
    "ovr.exercise": Text("题目", "Exercise"),
    "ovr.total": Text("作业总分", "Assignment total"),
    "ovr.score": Text("计入的分数（%）", "Counted score (%)"),
    "ovr.reason_label": Text("原因（学生可见）", "Reason (the student sees it)"),
    "ovr.save": Text("保存改分", "Save override"),
    "ovr.saved": Text("已为 {name} 保存改分。", "Override saved for {name}."),
    "ovr.cleared": Text("已取消 {name} 的改分。", "Override cleared for {name}."),
    "ovr.clear": Text("取消改分", "Clear"),
    "ovr.current": Text("当前的改分", "Current overrides"),
    "ovr.none": Text("还没有任何改分。", "No overrides yet."),
    "ovr.log": Text("改分日志", "Override log"),
    "ovr.col_when": Text("时间", "When"),
    "ovr.col_who": Text("操作人", "By"),
    "ovr.col_old": Text("原改分", "Before"),
    "ovr.col_new": Text("新改分", "After"),
    "ovr.err_percent": Text(
        "请填 0 到 100 之间的数，最多两位小数。", "Enter a number from 0 to 100, with at most two decimals."
    ),
}
