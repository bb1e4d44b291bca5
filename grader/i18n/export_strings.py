"""Strings of the grade exports (readable CSV headers and marks, the .xlsx gradebook), in Chinese and English."""

from __future__ import annotations

from exercises.i18n import Text

EXPORT_UI: dict[str, Text] = {
    "export.col.username": Text("用户名", "Username"),
    "export.col.name": Text("姓名", "Name"),
    "export.col.points_of": Text("{name}（满分 {max} 分）", "{name} (points, max {max})"),
    "export.col.total": Text("总分", "Total"),
    "export.col.percent": Text("得分率（%）", "Score (%)"),
    "export.col.percent_of": Text("{name}（得分率 %）", "{name} (%)"),
    "export.col.due": Text("截止时间", "Due"),
    "export.col.extra_attempts": Text("额外尝试次数", "Extra attempts"),
    "export.col.submission_id": Text("提交编号", "Submission"),
    "export.col.exercise": Text("练习", "Exercise"),
    "export.col.status": Text("状态", "Status"),
    "export.col.points": Text("得分", "Points"),
    "export.col.max_points": Text("满分", "Out of"),
    "export.col.raw_answer": Text("作答内容", "Answer"),
    "export.col.tags": Text("误区", "Misconceptions"),
    "export.col.created": Text("提交时间", "Submitted"),
    "export.col.finished": Text("评分时间", "Graded"),
    "export.col.counted": Text("计入统计", "Counted"),
    "export.col.assignment": Text("作业", "Assignment"),
    "export.yes": Text("是", "yes"),
    "export.no": Text("否", "no"),
    "export.not_attempted": Text("未作答", "not attempted"),
    "export.mark.late": Text("（迟交）", "(late)"),
    "export.mark.overridden": Text("（教师改分）", "(overridden)"),
    "export.ids": Text("机器可读（列名为编号，时间为 UTC）", "Machine-readable (ids as headers, times in UTC)"),
    "export.gradebook": Text("下载成绩册（.xlsx）", "Download the gradebook (.xlsx)"),
    "export.summary": Text("总览", "Summary"),
}
