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
