"""The teacher pages' strings for assignments (form, deletion), sample previews and regrades, in Chinese and English
(part of the one catalogue, grader.i18n)."""

from __future__ import annotations

from exercises.i18n import Text

ASSIGNMENT_UI: dict[str, Text] = {
    "regrade.title": Text("重新批改", "Regrade"),
    "regrade.explain": Text(
        "引擎版本更新后，用当前引擎（{version}）重新检查本作业的全部提交；每次变动都记入成绩日志。",
        "After an engine update, re-check every submission of this assignment with the current engine "
        "({version}); every change goes into the grade log.",
    ),
    "regrade.never_lower": Text("不降低任何已有分数", "Never lower a score"),
    "regrade.start": Text("开始重新批改", "Start regrade"),
    "regrade.preview": Text("预览重新批改", "Preview the regrade"),
    "regrade.preview_title": Text("重新批改预览：{title}", "Regrade preview: {title}"),
    "regrade.preview_counts": Text(
        "用当前引擎检查了 {checked} 份提交：{changed} 份会改变，其中分数提高 {up} 份、降低 {down} 份。"
        "尚未写入任何内容。",
        "{checked} submissions checked with the current engine: {changed} would change, "
        "{up} up and {down} down. Nothing has been written yet.",
    ),
    "regrade.preview_unknown": Text(
        "{n} 份提交的练习或题目已不被引擎识别，重新批改会跳过它们。",
        "{n} submissions are of an exercise or variant the engine no longer knows; the "
        "regrade leaves them as they are.",
    ),
    "regrade.preview_partial": Text(
        "只检查了前 {checked} 份提交；重新批改会检查全部。",
        "Only the first {checked} submissions were checked; the regrade checks them all.",
    ),
    "regrade.job_title": Text("重新批改 #{id}：{title}", "Regrade #{id}: {title}"),
    "regrade.queued": Text("排队等待工作进程…", "Waiting for a worker…"),
    "regrade.running": Text("已检查 {processed}/{total} 份提交", "{processed} of {total} submissions checked"),
    "regrade.done": Text(
        "完成：检查 {total} 份，改动 {changed} 份，保留原分 {kept} 份。",
        "Done: {total} checked, {changed} changed, {kept} kept at their old score.",
    ),
    "regrade.error": Text("重新批改失败：{message}", "The regrade failed: {message}"),
    "regrade.refresh_note": Text("进行中，本页会自动刷新。", "In progress; this page refreshes itself."),
    "regrade.report": Text("变动报告", "What changed"),
    "regrade.no_changes": Text("没有任何提交的结果发生变化。", "No submission's verdict changed."),
    "regrade.submission": Text("提交", "Submission"),
    "regrade.old": Text("原分", "Old score"),
    "regrade.new": Text("新分", "New score"),
    "regrade.why": Text("原因", "Why"),
    "regrade.applied": Text("结果", "Outcome"),
    "regrade.was_applied": Text("已更新", "applied"),
    "regrade.was_kept": Text("保留原结果（原因见左）", "kept as stored (see why)"),
    # A change's reason, re-worded from what grader.grading.regrade stores (grader.teacher.regrade_reasons).
    "regrade.reason_status": Text("状态：{old} → {new}", "status: {old} → {new}"),
    "regrade.reason_part": Text("{label}：{before} → {after}", "{label}: {before} → {after}"),
    "regrade.reason_separator": Text("；", "; "),
    "regrade.reason_weighting": Text(
        "各部分对错未变，但各部分的分值权重变了",
        "the parts' verdicts are the same, but their weighting in the score changed",
    ),
    "regrade.kept_never_lower": Text("保留原结果：本次启用了“不降分”", "kept as stored: “never lower” was on"),
    "regrade.kept_over_limit": Text(
        "保留原结果：计入新结果会超过每题 {n} 次的提交上限",
        "kept as stored: counting the new verdict would go over the limit of {n} attempts",
    ),
    "regrade.started": Text("发起时间：", "Started:"),
    "regrade.never_lower_on": Text("本次启用了“不降分”。", "“Never lower” was on for this run."),
    "regrade.back": Text("返回作业统计", "Back to the assignment dashboard"),
    "regrade.showing": Text("第 {first}–{last} 项，共 {total} 项变动", "Changes {first}–{last} of {total}"),
    "regrade.previous": Text("上一页", "Previous page"),
    "regrade.next": Text("下一页", "Next page"),
    "regrade.pages": Text("变动报告分页", "Pages of the report"),
    "jobstatus.queued": Text("排队中", "queued"),
    "jobstatus.running": Text("进行中", "running"),
    "jobstatus.done": Text("已完成", "done"),
    "jobstatus.error": Text("失败", "failed"),
    "regrade.history": Text("以往的重新批改", "Earlier regrades"),
    "asg.new_title": Text("新建作业", "New assignment"),
    "asg.edit_title": Text("编辑作业：{title}", "Edit assignment: {title}"),
    "asg.title_zh": Text("标题（中文）", "Title (Chinese)"),
    "asg.title_en": Text("标题（英文）", "Title (English)"),
    "asg.exercises": Text("题目", "Exercises"),
    "asg.preview": Text("预览示例题", "Preview a sample variant"),
    "asg.opens_at": Text("开放时间（{zone}，可留空）", "Opens ({zone}, optional)"),
    "asg.due_at": Text("截止时间（{zone}，可留空）", "Due ({zone}, optional)"),
    "asg.zone_note": Text(
        "时间按课程时区 {zone}（当前 {offset}）填写和显示，保存为确定的时刻。",
        "Times are in the course's time zone, {zone} (now {offset}), and are saved as fixed moments.",
    ),
    "asg.opens_short": Text("开放时间", "Opens"),
    "asg.due_short": Text("截止时间", "Due"),
    "asg.no_time": Text("未设置", "not set"),
    "asg.late_legend": Text("迟交", "Late work"),
    "asg.late_until": Text(
        "迟交关闭时间（{zone}；留空表示截止后不再接受）",
        "Late work taken until ({zone}; empty: nothing after the due date)",
    ),
    "asg.late_per_day": Text("每迟一天扣分（%，不足一天按一天）", "Penalty per day late (%, a started day counts)"),
    "asg.late_cap": Text("迟交得分上限（%，可留空）", "Late answers count at most (%, optional)"),
    "asg.late_note": Text(
        "扣分只作用于计入成绩的分数，引擎的批改结果不变。",
        "A penalty lowers the counted score only; the engine's verdict stays as it is.",
    ),
    "asg.err_percent": Text(
        "请填 0 到 100 之间的数，最多两位小数。", "Enter a number from 0 to 100, with at most two decimals."
    ),
    "asg.err_late_needs_close": Text(
        "设置扣分前，请先填写迟交关闭时间。", "Set when late work closes before a penalty."
    ),
    "asg.err_late_needs_due": Text(
        "没有截止时间的作业不能设置迟交。", "An assignment without a due date takes no late work."
    ),
    "asg.err_late_before_due": Text("迟交关闭时间必须晚于截止时间。", "Late work must close after the due date."),
    "asg.err_gap_opens_at": Text(
        "开放时间 {value} 在 {zone} 不存在（夏令时开始时钟跳过了这一小时），请换一个时间。",
        "The opening time {value} does not exist in {zone} (the clocks skip that hour when "
        "daylight saving time starts); choose another time.",
    ),
    "asg.err_gap_due_at": Text(
        "截止时间 {value} 在 {zone} 不存在（夏令时开始时钟跳过了这一小时），请换一个时间。",
        "The due time {value} does not exist in {zone} (the clocks skip that hour when "
        "daylight saving time starts); choose another time.",
    ),
    "asg.err_repeated_opens_at": Text(
        "开放时间 {value} 在 {zone} 出现两次（夏令时结束时钟回拨），无法确定是哪一个，请换一个时间。",
        "The opening time {value} happens twice in {zone} (the clocks go back when "
        "daylight saving time ends), so it is ambiguous; choose another time.",
    ),
    "asg.err_repeated_due_at": Text(
        "截止时间 {value} 在 {zone} 出现两次（夏令时结束时钟回拨），无法确定是哪一个，请换一个时间。",
        "The due time {value} happens twice in {zone} (the clocks go back when daylight "
        "saving time ends), so it is ambiguous; choose another time.",
    ),
    "asg.delete": Text("删除作业", "Delete the assignment"),
    "asg.delete_heading": Text("删除作业“{title}”？", "Delete the assignment “{title}”?"),
    "asg.delete_question": Text(
        "还没有学生向这个作业提交过答案。删除后不能恢复。",
        "No student has submitted to this assignment yet. Deleting it cannot be undone.",
    ),
    # Teachers' own tries do not stop a delete: the submissions stay, detached (their assignment_id set to NULL).
    "asg.delete_staff_tries": Text(
        "教师在这个作业里的 {n} 次试做提交会保留在各自的提交记录中，但不再属于任何作业，也不计入任何成绩。",
        "The {n} tries teachers made on this assignment are kept in their authors' "
        "submission history, no longer part of any assignment or grade.",
    ),
    "asg.delete_staff_tries_one": Text(
        "教师在这个作业里的 1 次试做提交会保留在提交记录中，但不再属于任何作业，也不计入任何成绩。",
        "The one try a teacher made on this assignment is kept in their submission "
        "history, no longer part of any assignment or grade.",
    ),
    "asg.delete_yes": Text("确认删除", "Yes, delete it"),
    "asg.deleted": Text("作业“{title}”已删除。", "Deleted the assignment “{title}”."),
    "asg.cannot_delete_heading": Text("不能删除“{title}”", "“{title}” cannot be deleted"),
    "asg.cannot_delete": Text(
        "这个作业已有学生提交。删除它会让这些提交和成绩失去所属的作业，所以不能删除。"
        "如果课程已经结束，可以归档课程：学生仍能查看成绩，但不能再提交。",
        "Students have already submitted to this assignment. Deleting it would cut those "
        "submissions and grades off from it, so it cannot be deleted. If the course is over, "
        "archive the course instead: students keep seeing their results but cannot submit.",
    ),
    "asg.cannot_delete_back": Text("返回作业统计", "Back to the assignment dashboard"),
    "asg.to_course_settings": Text("前往课程设置（归档）", "Go to the course settings (archive)"),
    "asg.attempts": Text("每题提交次数（留空表示不限）", "Attempts per exercise (empty: unlimited)"),
    "asg.variants_fresh": Text(
        "独立题目：每位学生在本作业中的题目是本作业专属的，其他作业公布的参考答案不能用来回答它。",
        "Fresh variants: each student's variants are this assignment's own, so a key shown "
        "with another assignment never answers it.",
    ),
    "asg.variants_shared": Text(
        "共享题目：本作业创建于独立题目之前，学生在这里看到的题目与其他共享题目的作业相同（学生已有的题目不会改变）。",
        "Shared variants: this assignment was made before fresh variants, so each student "
        "sees the same variant of an exercise here as in the other assignments that share "
        "(no student's variant ever changes).",
    ),
    "asg.variants_warning": Text(
        "注意：下列共享题目的作业包含相同的练习，其参考答案已经或可能向学生公布，学生可能已经看到本作业的答案：",
        "Warning: these assignments share variants with this one, set the same exercises "
        "and show (or may show) their answer keys, so students may already have seen this "
        "assignment's answers:",
    ),
    "asg.removal": Text(
        "尚未保存：移除所选练习后，{n} 个已有成绩将不再计入总分（提交记录保留，把练习加回即可恢复）。"
        "确认请点击下方按钮。",
        "Not saved yet: removing these exercises makes {n} grades stop counting towards the totals "
        "(the submissions are kept; adding the exercises back restores them). Confirm below.",
    ),
    "asg.removal_one": Text(
        "尚未保存：移除所选练习后，1 个已有成绩将不再计入总分（提交记录保留，把练习加回即可恢复）。"
        "确认请点击下方按钮。",
        "Not saved yet: removing these exercises makes 1 grade stop counting towards the totals "
        "(the submission is kept; adding the exercise back restores it). Confirm below.",
    ),
    "asg.save_removing": Text("确认移除并保存", "Remove them and save"),
    "asg.score_policy": Text("计分方式", "Which attempt counts"),
    "asg.key_policy": Text("何时公布参考答案", "When the answer key shows"),
    "asg.save": Text("保存", "Save"),
    "asg.saved": Text("作业已保存。", "Assignment saved."),
    "asg.err_title": Text(
        "请填写两种语言的标题（各最多 200 字）。", "Fill in both titles (at most 200 characters each)."
    ),
    "asg.err_exercises": Text("请至少选择一道题。", "Choose at least one exercise."),
    "asg.err_date": Text("时间格式应为 YYYY-MM-DDTHH:MM。", "Use the format YYYY-MM-DDTHH:MM."),
    "asg.err_year": Text("年份须在 2000 到 2999 之间。", "Use a year from 2000 to 2999."),
    "asg.err_window": Text("截止时间须晚于开放时间。", "The due date must come after the opening date."),
    "asg.err_attempts": Text(
        "次数须为 1–1000 的整数，或留空。", "Attempts must be a whole number from 1 to 1000, or empty."
    ),
    "asg.err_choice": Text("请选择一个选项。", "Choose one of the options."),
    "asg.policy.best": Text("取最高分", "best attempt"),
    "asg.policy.last": Text("取最后一次", "last attempt"),
    "key.after_due": Text("截止后", "after the due date"),
    "key.after_attempts": Text("次数用完后", "once attempts are used up"),
    "key.never": Text("从不", "never"),
    "key.always": Text("一直可见", "always"),
    "preview.title": Text("示例题：{title}", "Sample variant: {title}"),
    "preview.seed": Text("种子", "Seed"),
    "preview.show": Text("换一个种子", "Show this seed"),
    "preview.fields": Text("学生需要填写", "What students fill in"),
    "preview.key": Text("参考答案（仅教师可见）", "Answer key (teachers only)"),
    "preview.data": Text("题目数据", "Variant data"),
    "preview.shown_data": Text("学生看到的数据", "The data as students see it"),
    "preview.bad_seed": Text("种子须为 0 到 2^63−1 的整数。", "The seed must be a whole number from 0 to 2^63−1."),
}
