"""The student pages' and the API's strings in Chinese and English (part of the one catalogue, grader.i18n)."""

from __future__ import annotations

from exercises.i18n import Text

STUDENT_UI: dict[str, Text] = {
    # Layout and navigation
    "app.name": Text("自动批改", "Auto-grader"),
    "nav.courses": Text("我的课程", "My courses"),
    "nav.submissions": Text("我的提交", "My submissions"),
    "nav.lab": Text("容量实验", "Capacity lab"),
    "nav.teach": Text("教学管理", "Teaching"),
    "nav.main": Text("主导航", "Main navigation"),
    "nav.breadcrumb": Text("当前位置", "You are here"),
    "nav.skip": Text("跳到正文", "Skip to content"),
    "nav.signed_in_as": Text("已登录：{name}", "Signed in as {name}"),
    "lang.switch_label": Text("界面语言", "Interface language"),
    "lang.switch_to_en": Text("English", "English"),
    "lang.switch_to_zh": Text("中文", "中文"),
    "lang.current": Text("（当前）", "(current)"),
    # Log in and out
    "login.title": Text("登录", "Log in"),
    "login.username": Text("用户名", "Username"),
    "login.password": Text("密码", "Password"),
    "login.submit": Text("登录", "Log in"),
    "login.failed": Text("用户名或密码不正确。", "The username or password is not correct."),
    "login.too_many": Text(
        "密码错误次数过多，请 {seconds} 秒后再试。", "Too many wrong passwords; try again in {seconds} s."
    ),
    "login.busy": Text(
        "登录的人太多，请一秒后再试。", "Too many people are signing in at once; try again in a second."
    ),
    "login.required": Text("请先登录。", "Please log in first."),
    "login.logged_out": Text("你已退出登录。", "You have logged out."),
    "logout.submit": Text("退出登录", "Log out"),
    # Errors
    "error.title": Text("出错了", "Something went wrong"),
    "error.400": Text(
        "请求无效。页面可能已过期，请刷新后重试。", "Bad request. The page may have expired; reload it and try again."
    ),
    "error.403": Text("你没有权限查看这个页面。", "You are not allowed to see this page."),
    "error.404": Text("找不到这个页面。", "This page does not exist."),
    "error.413": Text(
        "提交的内容过大，超出了这个页面能接收的大小。请返回，缩短后再提交。",
        "What was sent is larger than this page accepts. Go back, shorten it and send it again.",
    ),
    # A GET of an address that only takes form posts (a bookmark or a typed URL of a confirm page, say).
    "error.405": Text(
        "这个地址不能直接打开：它只接收页面上的表单提交。请从页面上的链接或按钮进入。",
        "This address cannot be opened directly: it only takes forms sent from the pages. Use the "
        "links and buttons on the pages to get there.",
    ),
    "error.control": Text(
        "有一栏含有看不见的控制字符（例如从终端或网页粘贴进来的）。请删掉后重新提交。",
        "A field contains invisible control characters (pasted from a terminal or a web page, "
        "say). Remove them and send it again.",
    ),
    "error.csrf": Text(
        "表单已过期或来源不明（CSRF 校验失败）。请刷新页面后重试。",
        "The form has expired or did not come from this site (CSRF check failed). Reload and try again.",
    ),
    "error.back": Text("返回我的课程", "Back to my courses"),
    # Courses and assignments
    "courses.title": Text("我的课程", "My courses"),
    "courses.none": Text("你还没有加入任何课程。", "You are not enrolled in any course yet."),
    "courses.assignments": Text("作业", "Assignments"),
    "courses.no_assignments": Text("这门课还没有作业。", "This course has no assignments yet."),
    "assignment.due": Text("截止时间", "Due"),
    "assignment.no_due": Text("无截止时间", "No due date"),
    "assignment.opens": Text("开放时间", "Opens"),
    "assignment.closed": Text("已截止", "Closed"),
    "assignment.extended": Text("已为你延期", "extended for you"),
    "assignment.late": Text("迟交期", "Late work accepted"),
    "late.title": Text("迟交", "Late work"),
    "late.policy": Text("截止后仍接受迟交，至 {when} 关闭。", "Taken after the due date until {when}."),
    "late.per_day": Text("每迟交一天（不足一天按一天）扣 {n}%。", "{n}% off per day late (a started day counts)."),
    "late.cap": Text("迟交的得分最多计 {n}%。", "A late answer counts at most {n}%."),
    "late.mark": Text("迟交 {days} 天", "{days} d late"),
    "late.capped": Text("（最多 {n}%）", "(at most {n}%)"),
    "attempts.extra": Text("（含额外的 {n} 次）", "(including {n} extra)"),
    "assignment.not_open": Text("尚未开放", "Not open yet"),
    "assignment.progress": Text("进度", "Progress"),
    "assignment.progress_text": Text(
        "已完成 {done}/{total} 题（满分），已尝试 {attempted} 题，得分 {percent}%",
        "{done} of {total} done (full marks), {attempted} attempted, score {percent}%",
    ),
    "assignment.exercises": Text("题目", "Exercises"),
    "assignment.open": Text("打开作业", "Open assignment"),
    "assignment.policy": Text("计分方式", "Scoring"),
    "policy.best": Text("取最高分", "best attempt counts"),
    "policy.last": Text("取最后一次", "last attempt counts"),
    "exercise.col_title": Text("题目", "Exercise"),
    "exercise.col_score": Text("得分", "Score"),
    "exercise.col_attempts": Text("剩余次数", "Attempts left"),
    "exercise.col_status": Text("状态", "Status"),
    "attempts.left": Text("剩余 {left}/{allowed} 次", "{left} of {allowed} attempts left"),
    "attempts.unlimited": Text("不限次数", "Unlimited attempts"),
    "attempts.used": Text("已用 {used} 次", "{used} used"),
    "attempts.none_left": Text("提交次数已用完。", "No attempts left."),
    "status.not_started": Text("未开始", "Not started"),
    "status.full": Text("✓ 满分", "✓ Full marks"),
    "status.partial": Text("◐ 部分得分", "◐ Partly right"),
    "status.zero": Text("✗ 零分", "✗ No marks"),
    # An exercise's state: "done" is full marks, "attempted" anything short of it (grader/web/services.py).
    "state.done": Text("✓ 已完成", "✓ Done"),
    "state.attempted": Text("◐ 已尝试", "◐ Attempted"),
    "state.not_started": Text("未开始", "Not started"),
    # Exercise page
    "exercise.prompt": Text("题目", "Question"),
    "exercise.data": Text("本题数据", "Your data"),
    "exercise.answer": Text("你的答案", "Your answer"),
    "exercise.hint": Text("格式：{hint}", "Expected form: {hint}"),
    "exercise.read_as": Text("读作：{text}", "Read as: {text}"),
    "exercise.checking": Text("正在检查格式…", "Checking the format…"),
    "exercise.invalid_field": Text("无法读取：{message}", "Cannot read this: {message}"),
    "exercise.invalid_summary": Text(
        "有答案无法读取，请先修改。这不会消耗提交次数。",
        "Part of the answer cannot be read; fix it first. No attempt was used.",
    ),
    "exercise.submit": Text("提交答案", "Submit answer"),
    "exercise.submitting": Text("已提交，正在批改…", "Submitted; grading…"),
    "exercise.still_grading": Text("仍在批改，结果出来后会显示在这里。", "Still grading; the result will appear here."),
    "exercise.grading_delayed": Text(
        "批改比平时慢。答案已保存并计为一次提交，结果出来后会自动显示在这里，不必重复提交。",
        "Grading is taking longer than usual. Your answer is stored and counts as an "
        "attempt; the result will appear here by itself, so there is no need to submit "
        "it again.",
    ),
    "exercise.read_before_error": Text("出错之前读到：{text}", "read before the problem: {text}"),
    "exercise.grading_error": Text(
        "批改在服务器端失败，这次提交不计入次数；请再提交一次，或告诉老师。",
        "Grading failed on our side and this attempt does not count; submit again, or tell your teacher.",
    ),
    "exercise.network_error": Text(
        "无法连接服务器，请检查网络后重试。", "Cannot reach the server; check your connection and retry."
    ),
    "exercise.signed_out": Text(
        "你已不在登录状态（可能在别处退出了登录），这次没有提交任何内容。请重新登录后再试。",
        "You are no longer logged in (perhaps you logged out elsewhere); nothing was submitted. "
        "Log in again and retry.",
    ),
    "exercise.log_in_again": Text("重新登录", "Log in again"),
    "exercise.page_expired": Text(
        "页面已过期（可能在别的标签页重新登录过），这次没有提交任何内容。请刷新页面后重试。",
        "This page has expired (perhaps you logged in again in another tab); nothing was "
        "submitted. Reload the page and try again.",
    ),
    "exercise.result_pending": Text(
        "答案已提交，但暂时取不到批改结果。请不要重复提交，稍后查看这次提交即可。",
        "Your answer was submitted but its result could not be fetched "
        "yet. Do not submit it again; look at the submission in a moment.",
    ),
    "exercise.see_submission": Text("查看这次提交", "See this submission"),
    "exercise.pager": Text("本作业的其他题目", "Other exercises of this assignment"),
    "exercise.previous": Text("上一题", "Previous"),
    "exercise.next": Text("下一题", "Next"),
    "exercise.previous_label": Text("上一题：{title}", "Previous exercise: {title}"),
    "exercise.next_label": Text("下一题：{title}", "Next exercise: {title}"),
    "exercise.submit_refused": Text("提交被拒绝：{reason}", "Submission refused: {reason}"),
    "exercise.unavailable": Text(
        "服务暂时不可用，请稍后再提交；这次提交没有保存。",
        "The service is briefly unavailable; submit again in a moment (this one was not saved).",
    ),
    "exercise.rate_limited": Text(
        "提交太频繁，请 {seconds} 秒后再试。", "Too many submissions; try again in {seconds} s."
    ),
    "exercise.result": Text("批改结果", "Result"),
    "exercise.score": Text("得分：{percent}%", "Score: {percent}%"),
    "exercise.part_correct": Text("✓ 正确", "✓ Correct"),
    "exercise.part_wrong": Text("✗ 错误", "✗ Wrong"),
    "exercise.part_partial": Text("◐ 部分正确（{percent}%）", "◐ Partly right ({percent}%)"),
    "exercise.part_follow_through": Text(
        "↪ 按你前面的答案算（{percent}%）", "↪ Right given your earlier answer ({percent}%)"
    ),
    "exercise.follow_through": Text(
        "后续步骤按你自己前一步的结果计分（连带给分）。",
        "Credit carried through from your own earlier step (follow-through).",
    ),
    "exercise.misconception": Text("可能的误区：{tag}", "Likely misconception: {tag}"),
    # With the misconception's short name; the template adds the tag after it in smaller type.
    "exercise.misconception_named": Text("可能的误区：{name}", "Likely misconception: {name}"),
    "exercise.you_wrote": Text("你的答案读作：{text}", "Your answer was read as: {text}"),
    "exercise.answer_key": Text("参考答案", "Answer key"),
    # The key's solution step by step (the engine's named steps), and where the latest answer first leaves it.
    "exercise.worked_heading": Text("逐步解答", "Worked solution"),
    "exercise.departed_here": Text("你最近一次的答案从这一步开始偏离", "your latest answer leaves the solution here"),
    "exercise.key_after_due": Text("参考答案将在截止后显示。", "The answer key appears after the due date."),
    "exercise.key_no_due": Text(
        "本作业没有截止时间，因此不会显示参考答案。", "This assignment has no due date, so its answer key is not shown."
    ),
    "exercise.key_after_attempts": Text(
        "参考答案将在你用完本题的提交次数、并且都批改完后显示。",
        "The answer key appears once all your attempts at this exercise are used and graded.",
    ),
    "exercise.key_unlimited": Text(
        "本作业不限提交次数，因此不会显示参考答案。",
        "This assignment has unlimited attempts, so its answer key is not shown.",
    ),
    "exercise.key_elsewhere": Text(
        "这道题也在你另一份仍可提交的作业里；那份作业允许之前，这里也不显示参考答案。",
        "This exercise is also in another of your assignments that still takes answers; "
        "the key stays hidden until that one allows it.",
    ),
    "exercise.key_never": Text("本作业不公布参考答案。", "This assignment does not publish its answer key."),
    "exercise.history": Text("本题提交记录", "Submissions for this exercise"),
    "exercise.closed": Text("作业已截止，不能再提交。", "The assignment is closed; no more submissions."),
    "exercise.not_open": Text("作业尚未开放。", "The assignment is not open yet."),
    "exercise.no_js_note": Text("提交后页面会显示批改结果。", "After submitting, the page shows the result."),
    # Before an assignment opens (students; its teachers preview it as usual)
    "opens.assignment_notice": Text(
        "本作业将于 {when} 开放，届时可以打开下面的题目。",
        "This assignment opens at {when}; the exercises below can be opened then.",
    ),
    "opens.exercise_notice": Text(
        "本题所在的作业将于 {when} 开放，届时这里会显示题目、你的数据和答题表单。",
        "This exercise's assignment opens at {when}; the question, your data and the answer form appear here then.",
    ),
    "opens.exercise_notice_archived": Text(
        "本题所在的作业将于 {when} 开放，但课程已归档：届时这里只显示题目和你的数据，不能提交答案。",
        "This exercise's assignment opens at {when}, but the course is archived: "
        "the question and your data will show here then, but no answers can be "
        "submitted.",
    ),
    # Data tables
    "data.prob_table": Text(
        "条件概率表：行是上一个 token，列是候选 token",
        "Probabilities: rows are the previous token, columns the candidates",
    ),
    "data.prev_token": Text("上一个 token", "Previous token"),
    "data.token": Text("token", "Token"),
    "data.dim": Text("第 {i} 维", "dim {i}"),
    "data.row": Text("第 {i} 行", "row {i}"),
    "data.col": Text("第 {i} 列", "col {i}"),
    "data.vector": Text("向量", "Vector"),
    "data.option": Text("选项", "Option"),
    # Names of variant data fields (shown above each table)
    "datakey.target": Text("目标序列", "Target sequence"),
    "datakey.candidates": Text("候选 token", "Candidate tokens"),
    "datakey.table": Text("概率表", "Probability table"),
    "datakey.max_steps": Text("最多预测步数", "Maximum prediction steps"),
    "datakey.a": Text("a = ln 2", "a = ln 2"),
    "datakey.source_vocab": Text("源语言词向量", "Source embeddings"),
    "datakey.source_vocab_in_a": Text("源语言词向量（以 a 为单位）", "Source embeddings (in units of a)"),
    "datakey.h_0": Text("初始状态 h_0", "Initial state h_0"),
    "datakey.W_x": Text("W_x", "W_x"),
    "datakey.W_h": Text("W_h", "W_h"),
    "datakey.d_k": Text("键的维度 d_k", "Key size d_k"),
    "datakey.encoder": Text("编码器参数", "Encoder parameters"),
    "datakey.source": Text("源序列", "Source sequence"),
    "datakey.source_a": Text("源序列 A", "Source sequence A"),
    "datakey.source_b": Text("源序列 B", "Source sequence B"),
    "datakey.probe_step": Text("考察的步骤", "Probe step"),
    "datakey.q": Text("Q（查询）", "Q (queries)"),
    "datakey.k": Text("K（键）", "K (keys)"),
    "datakey.v": Text("V（值）", "V (values)"),
    "datakey.l03.additive-attention.v": Text("打分向量 v", "Scoring vector v"),
    "datakey.w_h": Text("W_h", "W_h"),
    "datakey.w_x": Text("W_x", "W_x"),
    "datakey.b": Text("偏置 b", "Bias b"),
    "datakey.h_prev": Text("上一状态 h_prev", "Previous state h_prev"),
    "datakey.x": Text("输入 x", "Input x"),
    "datakey.n": Text("序列长度 n", "Sequence length n"),
    "datakey.factor": Text("长度放大倍数", "Length factor"),
    "datakey.d_model": Text("模型维度 d_model", "Model width d_model"),
    "datakey.heads": Text("注意力头数", "Number of heads"),
    "datakey.s_prev": Text("解码器上一状态 s", "Previous decoder state s"),
    "datakey.hs": Text("编码器状态 h_j", "Encoder states h_j"),
    "datakey.w": Text("W", "W"),
    "datakey.u": Text("U", "U"),
    "datakey.words": Text("词向量 e_t", "Word vectors e_t"),
    "datakey.keys": Text("钥匙 k_t", "Keys k_t"),
    "datakey.probe": Text("读回的位置", "Position to read back"),
    "datakey.items": Text("选择题", "Multiple-choice items"),
    # Submissions
    "subs.title": Text("我的提交", "My submissions"),
    "subs.none": Text("还没有提交。", "No submissions yet."),
    "subs.when": Text("时间", "When"),
    "subs.exercise": Text("题目", "Exercise"),
    "subs.assignment": Text("作业", "Assignment"),
    "subs.score": Text("得分", "Score"),
    "subs.status": Text("状态", "Status"),
    "subs.feedback": Text("反馈", "Feedback"),
    "subs.details": Text("查看详情", "Details"),
    "subs.attempt_col": Text("第几次", "Attempt"),
    "subs.attempt": Text("第 {n} 次", "Attempt {n}"),
    "subs.not_counted": Text("未计次数", "Not counted"),
    "subs.attempt_title": Text("{title}：第 {n} 次尝试", "{title}: attempt {n}"),
    "subs.uncounted_title": Text("{title}：未计次数的提交", "{title}: a submission that used no attempt"),
    "subs.open_attempt": Text("查看第 {n} 次尝试", "Open attempt {n}"),
    "subs.open_uncounted": Text("查看这次未计次数的提交", "Open this submission (it used no attempt)"),
    "subs.answer": Text("提交的答案", "Submitted answer"),
    "subs.refresh_note": Text("批改中，本页会自动刷新。", "Grading; this page refreshes itself."),
    "substatus.queued": Text("排队中", "Queued"),
    "substatus.grading": Text("批改中", "Grading"),
    "substatus.graded": Text("已批改", "Graded"),
    "substatus.invalid": Text("无法读取（未计次数）", "Unreadable (no attempt used)"),
    "substatus.error": Text("批改出错", "Grading error"),
    # Capacity lab
    "lab.title": Text("容量实验：固定向量与注意力", "Capacity lab: one fixed vector vs attention"),
    "lab.intro": Text(
        "把 T 个随机词向量用 ±1 钥匙绑定后叠加进一个 d 维向量，再逐个读回；对比保留全部 T 个状态并用注意力读回。",
        "Bind T random word vectors with ±1 keys, add them into one d-dimensional vector and read each back; "
        "compare with keeping all T states and reading back with attention.",
    ),
    "lab.ds": Text("向量维度 d", "Vector sizes d"),
    "lab.t_min": Text("T 从", "T from"),
    "lab.t_max": Text("到（最大 64）", "to (at most 64)"),
    "lab.run": Text("在后台运行", "Run on the workers"),
    "lab.running": Text("运行中：{percent}%", "Running: {percent}%"),
    "lab.queued": Text("排队等待工作进程…", "Waiting for a worker…"),
    "lab.done": Text("完成。", "Done."),
    "lab.failed": Text("实验运行失败。", "The run failed."),
    "lab.busy": Text(
        "你已有 {n} 个实验在排队或运行。请等其中一个完成后再开始新的（已算过的参数组合随时可以查看）。",
        "You already have {n} runs waiting or running. Start another once one of them finishes "
        "(parameters someone already ran can be shown at any time).",
    ),
    "lab.pick_d": Text("请从 d = 32、64、128、256 中选择至少一个。", "Choose one or more of d = 32, 64, 128, 256."),
    "lab.no_such_run": Text("没有这次实验运行。", "There is no such lab run."),
    "lab.bad_t": Text(
        "T 的范围须是 1 到 64 之间的整数，且起点小于终点。",
        "The T range must be whole numbers from 1 to 64, the start below the end.",
    ),
    "lab.plot_title": Text("读回准确率随 T 的变化", "Read-back accuracy against T"),
    "lab.plot_desc": Text(
        "每个 d 一条实线为固定向量，虚线为 90% 阈值。",
        "One solid line per d for the fixed vector; the dashed line marks 90%.",
    ),
    "lab.axis_t": Text("序列长度 T", "Sequence length T"),
    "lab.axis_acc": Text("读回准确率", "Read-back accuracy"),
    "lab.threshold": Text("90% 阈值", "90% threshold"),
    "lab.attention": Text("注意力（全部状态）", "attention (all states)"),
    "lab.fixed": Text("固定向量 d={d}", "fixed vector d={d}"),
    "lab.first_below": Text("准确率首次低于 90% 的 T", "First T with accuracy below 90%"),
    "lab.never_below": Text("在 T ≤ {t} 内没有低于 90%", "stays at or above 90% up to T = {t}"),
    "lab.table_d": Text("d", "d"),
    "lab.table_t": Text("首个低于 90% 的 T", "First T below 90%"),
    "lab.data_table": Text("准确率数据", "Accuracy data"),
    "lab.refresh_note": Text("运行中，本页会自动刷新。", "Running; this page refreshes itself."),
}
