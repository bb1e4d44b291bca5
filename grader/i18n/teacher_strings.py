"""The teacher pages' strings in Chinese and English (part of the one catalogue, grader.i18n)."""

from __future__ import annotations

from exercises.i18n import Text

TEACHER_UI: dict[str, Text] = {
    "teach.nav": Text("教师面板", "Teaching"),
    "teach.nav.courses": Text("我教的课程", "Courses I teach"),
    "nav.roster": Text("学生名单", "Roster"),
    "nav.dashboard": Text("课程概览", "Course dashboard"),
    "home.title": Text("我教的课程", "Courses I teach"),
    "nav.tokens": Text("API 令牌", "API tokens"),
    "tokens.title": Text("我的 API 令牌", "My API tokens"),
    "tokens.intro": Text(
        "令牌让 LMS（Moodle、Canvas）或脚本以你的身份调用 API：请求头写 Authorization: Bearer <令牌>。"
        "不再使用或可能泄露的令牌请立即吊销。",
        "A token lets an LMS (Moodle, Canvas) or a script call the API as you: send Authorization: "
        "Bearer <token>. Revoke any token you no longer use or that may have leaked.",
    ),
    "tokens.new_once": Text(
        "新令牌如下。它只显示这一次，请现在复制保存。",
        "Your new token is below. It is shown only this once: copy it now.",
    ),
    "tokens.list": Text("令牌（只保存其哈希，不保存令牌本身）", "Tokens (only their hashes are stored)"),
    "tokens.none": Text("你还没有令牌。", "You have no tokens yet."),
    "tokens.name": Text("名称", "Name"),
    "tokens.name_hint": Text("用来认出它，例如 moodle-2026", "to recognise it, e.g. moodle-2026"),
    "tokens.role": Text("身份", "Acts as"),
    "tokens.role_teacher": Text("教师", "teacher"),
    "tokens.role_student": Text("学生", "student"),
    "tokens.role_admin": Text("管理员", "admin"),
    "tokens.created": Text("创建于", "Created"),
    "tokens.last_used": Text("最近使用", "Last used"),
    "tokens.state": Text("状态", "State"),
    "tokens.revoke": Text("吊销", "Revoke"),
    "tokens.revoked_at": Text("已于 {when} 吊销", "revoked {when}"),
    "tokens.revoke_heading": Text("吊销令牌“{name}”？", "Revoke the token “{name}”?"),
    "tokens.revoke_question": Text(
        "使用这个令牌的 LMS 或脚本会立即无法调用 API。吊销后不能恢复，只能新建一个令牌。",
        "Any LMS or script using this token stops working at once. A revoked token cannot "
        "be restored; you would have to create a new one.",
    ),
    "tokens.revoke_yes": Text("确认吊销", "Yes, revoke it"),
    "tokens.revoked": Text(
        "令牌已吊销，从下一次请求起失效。", "Token revoked; it stops working from the next request."
    ),
    "tokens.create": Text("新建令牌", "Create a token"),
    "tokens.expires": Text("到期", "Expires"),
    "tokens.never": Text("不到期", "never"),
    "tokens.expired": Text("已过期", "expired"),
    "tokens.lifetime": Text("有效期", "Valid for"),
    "tokens.days": Text("{days} 天", "{days} days"),
    "tokens.until_revoked": Text("直到吊销", "until revoked"),
    "tokens.bad_form": Text(
        "请填写名称（最多 128 字）并选择身份和有效期。",
        "Give a name (at most 128 characters) and choose a role and a lifetime.",
    ),
    "home.none": Text("你还没有任教的课程。", "You do not teach any course yet."),
    "course.create": Text("新建课程", "Create a course"),
    "course.code": Text("课程代码", "Course code"),
    "course.code_hint": Text(
        "2–64 个字母、数字、点、横线或下划线", "2–64 letters, digits, dots, dashes or underscores"
    ),
    "course.title": Text("课程名称", "Course title"),
    "course.created": Text("课程已创建。", "Course created."),
    "course.bad_code": Text(
        "课程代码须为 2–64 个字母、数字、点、横线或下划线。",
        "The course code must be 2–64 letters, digits, dots, dashes or underscores.",
    ),
    "course.code_taken": Text("这个课程代码已被使用。", "This course code is already taken."),
    "course.bad_title": Text("请填写课程名称（最多 200 字）。", "Give the course a title (at most 200 characters)."),
    "course.time_zone": Text("时区", "Time zone"),
    "course.time_zone_hint": Text(
        "IANA 时区名，例如 Asia/Shanghai（北京时间）；作业的开放和截止时间按这个时区填写和显示。",
        "An IANA zone name such as Asia/Shanghai (Beijing time); assignments' opening and "
        "due times are entered and shown in this zone.",
    ),
    "course.bad_time_zone": Text(
        "未知的时区：请从列表中选择，或填写 IANA 时区名，例如 Asia/Shanghai。",
        "Unknown time zone: choose one from the list or type an IANA name such as Asia/Shanghai.",
    ),
    "course.archived_list": Text("已归档", "Archived"),
    "course.archived_badge": Text("已归档", "archived"),
    "course.settings": Text("课程设置", "Course settings"),
    "course.settings_title": Text("课程设置：{title}", "Course settings: {title}"),
    "course.settings_zone_note": Text(
        "更改时区不会移动已有的开放和截止时间（它们是确定的时刻），只改变它们的填写和显示方式："
        "例如 UTC 的 15:59 在 Asia/Shanghai 显示为 23:59。",
        "Changing the zone does not move existing opening and due times (they are fixed "
        "moments); only how they are entered and shown changes: 15:59 UTC, for example, "
        "shows as 23:59 in Asia/Shanghai.",
    ),
    "course.settings_save": Text("保存设置", "Save settings"),
    "course.settings_saved": Text("课程设置已保存。", "Course settings saved."),
    "course.session_title": Text("登录时长", "Sign-in length"),
    "course.session_hours": Text("登录后最多保持（小时）", "Signed in for at most (hours)"),
    "course.session_hint": Text(
        "课程的每位成员（学生和教师）在登录这么多小时后会被要求重新登录，无论期间是否在使用；适合机房的公用电脑和考试。"
        "留空则只按网站的设置：{site} 小时不使用后退出。最多 {most} 小时；成员同时在几门设置了时长的课程中时，按最短的计算。"
        "更改对已经登录的成员从他们的下一次请求起生效。",
        "Every member of the course (students and teachers) must sign in again this many hours after signing in, "
        "whether or not they were active meanwhile: for shared lab computers and exams. Leave it empty for the "
        "site's rule only: signed out after {site} hours unused. At most {most} hours; a member of several courses "
        "with a length gets the shortest. A change applies to members already signed in from their next request.",
    ),
    "course.session_now": Text(
        "现在：成员登录 {hours} 小时后须重新登录。", "Now: members sign in again {hours} hours after signing in."
    ),
    "course.session_none": Text(
        "现在：不限时长，只按网站的设置（{site} 小时不使用后退出）。",
        "Now: no length set; only the site's rule applies (signed out after {site} hours unused).",
    ),
    "course.bad_session_hours": Text(
        "登录时长须为 1 到 {most} 之间的整数小时，或留空。",
        "The sign-in length must be a whole number of hours from 1 to {most}, or empty.",
    ),
    "course.zone_now": Text("时区：{zone}（当前 {offset}）", "Time zone: {zone} (now {offset})"),
    "archive.title": Text("归档", "Archive"),
    "archive.explain": Text(
        "归档后课程对学生只读：他们仍能查看成绩和提交，但不能再提交答案。教师的统计、导出和重新批改照常可用。"
        "可以随时取消归档。",
        "An archived course is read-only for its students: they still see their results and "
        "submissions but cannot submit. Dashboards, exports and regrades keep working. You can "
        "unarchive it at any time.",
    ),
    "archive.button": Text("归档课程", "Archive the course"),
    "archive.heading": Text("归档“{title}”？", "Archive “{title}”?"),
    "archive.question": Text(
        "“{title}”的学生将不能再提交任何作业（即使还没到截止时间），但仍能查看自己的成绩和提交。之后可以取消归档。",
        "Students of “{title}” will no longer be able to submit to any of its assignments (even "
        "before their due dates), but can still see their results and submissions. You can "
        "unarchive it later.",
    ),
    "archive.yes": Text("确认归档", "Yes, archive it"),
    "archive.done": Text("课程已归档：学生不能再提交。", "Course archived: students can no longer submit."),
    "archive.banner": Text(
        "本课程已于 {when} 归档：学生只能查看，不能提交。",
        "This course was archived on {when}: students can look but not submit.",
    ),
    "unarchive.button": Text("取消归档", "Unarchive the course"),
    "unarchive.heading": Text("取消归档“{title}”？", "Unarchive “{title}”?"),
    "unarchive.question": Text(
        "学生将能再次向开放中的作业提交答案（仍受开放时间、截止时间和次数限制）。",
        "Students will be able to submit again to assignments that are open (their opening "
        "times, due dates and attempt limits still apply).",
    ),
    "unarchive.yes": Text("确认取消归档", "Yes, unarchive it"),
    "unarchive.done": Text("课程已取消归档。", "Course unarchived."),
    "course.students": Text("{n} 名学生", "{n} students"),
    "course.students_one": Text("{n} 名学生", "{n} student"),
    "dash.title": Text("课程概览：{title}", "Course dashboard: {title}"),
    "dash.assignments": Text("作业", "Assignments"),
    "dash.no_assignments": Text("还没有作业。", "No assignments yet."),
    "dash.new_assignment": Text("新建作业", "New assignment"),
    "dash.open": Text("查看作业统计", "Open the assignment dashboard"),
    "dash.edit": Text("编辑设置", "Edit settings"),
    "stat.attempted": Text("作答人数", "Students attempted"),
    "stat.mean": Text("平均分", "Mean score"),
    "stat.first_try": Text("首次即全对", "Right on the first try"),
    "stat.histogram": Text("得分分布", "Score distribution"),
    "stat.histogram_desc": Text(
        "每个柱子上的数字是该分数段的学生人数。", "The number on each bar is how many students scored in that range."
    ),
    "stat.axis_students": Text("学生人数", "Students"),
    "stat.none": Text("—", "—"),
    "ex.title": Text("作业统计：{title}", "Assignment dashboard: {title}"),
    "ex.per_exercise": Text("各题统计", "Per exercise"),
    "ex.exercise": Text("题目", "Exercise"),
    "ex.misconceptions": Text("误区分布", "Misconceptions"),
    "ex.misconceptions_desc": Text(
        "错误答案与哪种错误做法的结果吻合：计数、占错误答案的比例和几个例子。",
        "Which wrong procedure the wrong answers match: count, share of wrong answers, a few examples.",
    ),
    "ex.wrong_answers": Text("错误答案：{n} 份", "Wrong answers: {n}"),
    "ex.wrong": Text("错误答案", "Wrong answers"),
    "ex.no_wrong": Text("还没有错误答案。", "No wrong answers yet."),
    "ex.untagged": Text(
        "其余 {n} 份错误答案不符合任何已知误区。", "The other {n} wrong answers match no known misconception."
    ),
    "ex.untagged_one": Text(
        "其余 {n} 份错误答案不符合任何已知误区。", "The other wrong answer matches no known misconception."
    ),
    "ex.tag": Text("误区（标签）", "Misconception (tag)"),
    "ex.count": Text("份数", "Count"),
    "ex.students": Text("人数", "Students"),
    "ex.share": Text("占错误答案", "Share of wrong"),
    "ex.examples": Text("例子", "Examples"),
    "students.title": Text("学生", "Students"),
    "students.name": Text("学生", "Student"),
    "students.progress": Text("进度", "Progress"),
    "students.progress_text": Text(
        "作答 {attempted}/{total} 题，全对 {full} 题，得分 {percent}%",
        "{attempted} of {total} attempted, {full} full marks, score {percent}%",
    ),
    "students.last_activity": Text("最近一次评分的提交", "Latest graded attempt"),
    "students.never": Text("尚无提交", "No submissions yet"),
    "students.view": Text("查看提交", "View submissions"),
    "students.counted_note": Text(
        "这里的分数是计入成绩的分数：已按迟交规则扣分，并采用教师的改分，与成绩册一致。",
        "Scores here are counted scores: late penalties and teachers' overrides applied, as in the gradebook.",
    ),
    "students.search_label": Text("按姓名或用户名查找学生", "Find students by name or username"),
    "students.search_button": Text("查找", "Search"),
    "students.none_match": Text("没有符合的学生。", "No student matches."),
    "students.none": Text("还没有学生。", "No students yet."),
    "students.pages": Text("学生列表分页", "Pages of students"),
    "students.showing": Text("第 {first}–{last} 名，共 {total} 名学生", "Students {first}–{last} of {total}"),
    "students.previous": Text("上一页", "Previous page"),
    "students.next": Text("下一页", "Next page"),
    "student.title": Text("{name} 的提交", "Submissions of {name}"),
    "student.none": Text("这名学生在本课程中还没有提交。", "This student has no submissions in this course."),
    "student.when": Text("提交时间", "Submitted"),
    "student.engine": Text("引擎版本 {version}", "engine {version}"),
    "student.variant": Text("这名学生的题目与答案", "this student's variant and key"),
    "export.title": Text("导出（CSV）", "Export (CSV)"),
    "export.grades": Text("成绩表", "Grades"),
    "export.submissions": Text("全部提交", "All submissions"),
    "export.misconceptions": Text("误区统计", "Misconception table"),
    "roster.title": Text("学生名单：{title}", "Roster: {title}"),
    "roster.enrol_one": Text("添加一名学生", "Enrol one student"),
    "roster.username": Text("用户名", "Username"),
    "roster.enrol": Text("添加", "Enrol"),
    "roster.enrolled": Text("已添加 {n} 名学生。", "Enrolled {n} student(s)."),
    "roster.enrolled_one": Text("已将 {name} 加入课程。", "Enrolled {name}."),
    "roster.one_empty": Text("请填写用户名。", "Enter a username."),
    "roster.one_unknown": Text("没有用户名为 {name} 的用户。", "There is no user named {name}."),
    "roster.one_teacher": Text(
        "{name} 是本课程的教师，不能作为学生加入。", "{name} teaches this course and cannot be enrolled as a student."
    ),
    "roster.one_enrolled": Text("{name} 已在课程中。", "{name} is already enrolled."),
    "roster.one_refused": Text("无法添加 {name}：{reason}。", "Cannot enrol {name}: {reason}."),
    "roster.upload": Text("上传名单批量添加（CSV 或 Excel）", "Enrol from a roster file (CSV or Excel)"),
    "roster.upload_hint": Text(
        "CSV（UTF-8 或 GBK，逗号、分号或制表符分隔）或 .xlsx 文件，如 Moodle、Canvas 或教务系统导出的名单。"
        "用户名取表头为 username、用户名或学号的那一列，没有这样的表头时取第一列；姓名取表头为姓名或 "
        "Name 的那一列；空行会被跳过。还没有账号的学生会按文件中的姓名新建账号。",
        "A CSV (UTF-8 or GBK; commas, semicolons or tabs) or .xlsx file, as Moodle, Canvas or "
        "教务系统 export it. The usernames are read from the column headed username, login or "
        "学号, or from the first column when no header names one; the names from the column "
        "headed Name or 姓名; blank lines are skipped. Students without an account get one, "
        "with the name in the file.",
    ),
    "roster.file": Text("名单文件", "Roster file"),
    "roster.preview": Text("预览", "Preview"),
    "roster.preview_title": Text("导入预览", "Import preview"),
    "roster.row": Text("行", "Row"),
    "roster.status": Text("检查结果", "Check"),
    "roster.row_ok": Text("可以添加", "ready to enrol"),
    "roster.confirm": Text("确认添加 {n} 名学生", "Enrol {n} student(s)"),
    "roster.nothing_to_add": Text("没有可以添加的行。", "No row can be enrolled."),
    "roster.remove": Text("移出课程", "Remove"),
    "roster.remove_heading": Text("将 {name} 移出课程？", "Remove {name} from the course?"),
    "roster.remove_question": Text(
        "{name}（{username}）将不再是“{course}”的学生，也不再计入课程统计。其提交记录会保留，之后可以重新添加。",
        "{name} ({username}) will no longer be a student of “{course}” nor be counted on its "
        "dashboards. Their submissions are kept, and you can enrol them again later.",
    ),
    "roster.remove_yes": Text("确认移出", "Yes, remove"),
    "confirm.cancel": Text("取消", "Cancel"),
    "roster.removed": Text("已将 {name} 移出课程。", "Removed {name} from the course."),
    "roster.current": Text("当前学生", "Enrolled students"),
    "roster.teachers": Text("教师", "Teachers"),
    "roster.err_empty": Text("用户名为空", "empty username"),
    "roster.err_unknown": Text("没有这个用户", "no such user"),
    "roster.err_duplicate": Text("文件中重复出现", "appears earlier in the file"),
    "roster.err_enrolled": Text("已在课程中", "already enrolled"),
    "roster.err_busy": Text(
        "另一个请求正在修改名单，请重试", "the roster was being changed by another request; try again"
    ),
    "roster.err_teacher": Text("是本课程的教师", "teaches this course"),
    "roster.err_file": Text(
        "无法读取文件：请上传 .xlsx 文件，或 UTF-8、UTF-16 或 GBK（GB18030）编码的 CSV 文本文件。",
        "Cannot read the file: upload an .xlsx file, or a CSV text file in UTF-8, UTF-16 or GBK (GB18030).",
    ),
    "roster.err_too_large": Text(
        "文件过大（最多 {size}）。请只保留用户名一列，或分成几个文件上传。",
        "The file is too large (at most {size}). Keep only the username column, or split it into several files.",
    ),
    "error.too_large": Text("提交的内容过大（最多 {size}）。", "What was sent is too large (at most {size})."),
    "too_large.back": Text("返回", "Go back"),
    "roster.err_no_rows": Text(
        "文件里没有用户名：请选择一个每行一个用户名的 CSV 文件。",
        "The file holds no usernames: choose a CSV file with one username per line.",
    ),
    "roster.err_too_many": Text("文件行数过多（最多 {n} 行）。", "Too many rows (at most {n})."),
}
