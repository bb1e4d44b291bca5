"""Grading policy strings (partial credit, follow-through) and the course gradebook page's, in Chinese and English
(part of the one catalogue, grader.i18n)."""

from __future__ import annotations

from exercises.i18n import Text

POLICY_UI: dict[str, Text] = {
    "gpolicy.legend": Text("部分得分", "Partial credit"),
    "gpolicy.note": Text(
        "只影响答错的部分能得多少分，答对的部分总是满分。修改后新的提交立即按新规则批改；已有的提交要重新批改才会改变。",
        "Only what a wrong part can still earn; a right part always earns full marks. After a change, new "
        "submissions are graded by the new rule at once; existing ones change when the assignment is regraded.",
    ),
    "gpolicy.partial_credit": Text("逐项部分得分", "Entry-by-entry partial credit"),
    "gpolicy.partial.on": Text(
        "开：列表、向量或矩阵答对几项就得几项的分",
        "On: a list, vector or matrix earns the share of its entries that are right",
    ),
    "gpolicy.partial.off": Text(
        "关：这类答案要全对才得分", "Off: such an answer earns marks only when all of it is right"
    ),
    "gpolicy.follow_through": Text("连带分（follow-through）", "Follow-through credit"),
    "gpolicy.follow_through_hint": Text(
        "前面一步算错、后面按自己的结果做对的步骤能得多少分。",
        "What a step earns when it is done correctly from the student's own wrong earlier step.",
    ),
    "gpolicy.ft.full": Text("全部分数", "full marks"),
    "gpolicy.ft.half": Text("一半分数", "half marks"),
    "gpolicy.ft.none": Text("不给分", "no marks"),
    "gpolicy.err_choice": Text("请选择一个选项。", "Choose one of the options."),
    "gpolicy.changed": Text(
        "评分规则已改变。下面的预览显示按新规则重新批改会改变哪些已有分数；开始重新批改后才会生效，并生成报告。",
        "The grading policy changed. The preview below shows which existing scores a regrade under the new policy "
        "would change; they change only when you start the regrade, which writes its report.",
    ),
    # What the student (and the teacher's dashboard) reads about the assignment's policy.
    "gpolicy.dt": Text("部分得分", "Partial credit"),
    "gpolicy.summary": Text("{partial}；连带分：{follow}", "{partial}; follow-through credit: {follow}"),
    "gpolicy.summary_partial.on": Text("逐项给部分分", "partial credit entry by entry"),
    "gpolicy.summary_partial.off": Text("每一部分全对才得分", "each part earns marks only when all of it is right"),
    "gpolicy.summary_ft.full": Text("全部分数", "full marks"),
    "gpolicy.summary_ft.half": Text("一半分数", "half marks"),
    "gpolicy.summary_ft.none": Text("不给分", "none"),
}

GRADEBOOK_UI: dict[str, Text] = {
    "gbook.link": Text("课程成绩册", "Course gradebook"),
    "gbook.title": Text("成绩册：{title}", "Gradebook: {title}"),
    "gbook.caption": Text(
        "每位学生每份作业的得分（分数与得分率）", "Every student's score on every assignment (points and percent)"
    ),
    "gbook.search": Text("按用户名或姓名查找", "Find by username or name"),
    "gbook.search_button": Text("查找", "Find"),
    "gbook.clear": Text("显示全部", "Show everyone"),
    "gbook.found": Text("找到 {n} 位学生。", "{n} students found."),
    "gbook.none_found": Text("没有符合条件的学生。", "No student matches."),
    "gbook.no_students": Text("本课程还没有学生。", "This course has no students yet."),
    "gbook.col.student": Text("学生", "Student"),
    "gbook.col.assignment": Text("{title}（满分 {max} 分）", "{title} (max {max} points)"),
    "gbook.col.total": Text("课程总分（满分 {max} 分）", "Course total (max {max} points)"),
    "gbook.sort_by": Text("按此列排序：{column}", "Sort by {column}"),
    "gbook.sorted_up": Text("（升序）", "(ascending)"),
    "gbook.sorted_down": Text("（降序）", "(descending)"),
    "gbook.cell": Text("{points} / {max} 分 · {percent}", "{points} / {max} pts · {percent}"),
    "gbook.not_attempted": Text("未作答", "not attempted"),
    "gbook.mark.late": Text("迟交", "late"),
    "gbook.mark.overridden": Text("教师改分", "overridden"),
    "gbook.mark.extended": Text("延期", "extension"),
    "gbook.marks_note": Text(
        "标记：迟交＝计分的作答迟交了；教师改分＝有分数被教师修改；延期＝该生有延期或额外尝试次数。",
        "Marks: late = a counted answer came late; overridden = a teacher changed a score; extension = the student "
        "has a later due date or extra attempts.",
    ),
    "gbook.pages": Text("成绩册分页", "Pages of the gradebook"),
    "gbook.showing": Text("第 {page} / {pages} 页", "Page {page} of {pages}"),
    "gbook.previous": Text("上一页", "Previous page"),
    "gbook.next": Text("下一页", "Next page"),
}
