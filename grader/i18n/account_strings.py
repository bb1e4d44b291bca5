"""The strings of roster accounts and one-time sign-in links, for teacher and student pages, in Chinese and English."""

from __future__ import annotations

from exercises.i18n import Text

ACCOUNT_UI: dict[str, Text] = {
    "roster.name": Text("姓名", "Name"),
    "roster.row_creates": Text("新建账号并添加", "new account, to enrol"),
    "roster.creates_note": Text(
        "其中 {n} 名学生还没有账号：确认后会新建账号，之后请下载他们的登录链接。",
        "{n} of them have no account yet: confirming creates their accounts; then download their sign-in links.",
    ),
    "roster.created": Text("已新建 {n} 个账号。", "Created {n} account(s)."),
    "roster.err_bad_username": Text(
        "用户名不能含空格或控制字符，最长 64 个字符",
        "a username cannot hold spaces or control characters, and has at most 64 characters",
    ),
    "roster.err_bad_name": Text(
        "姓名过长（最多 128 个字符）或含控制字符",
        "the name is too long (at most 128 characters) or holds control characters",
    ),
    "roster.err_not_table": Text(
        "无法读取文件：它不是表格。请上传 .xlsx 或 CSV 文件。",
        "Cannot read the file: it is not a table. Upload an .xlsx or CSV file.",
    ),
    "link.section": Text("登录链接", "Sign-in links"),
    "link.waiting": Text(
        "{n} 名学生还没有设置密码。下载的 CSV 含每人的一次性登录链接（14 天内有效，只能用一次），可用于邮件合并；"
        "再次下载会生成新链接，之前的链接随即失效。",
        "{n} student(s) have not chosen a password yet. The CSV holds a one-time sign-in link for "
        "each (valid for 14 days, usable once), for a mail merge; downloading again makes new links "
        "and the earlier ones stop working.",
    ),
    "link.download": Text("下载登录链接（CSV）", "Download sign-in links (CSV)"),
    "link.new": Text("新的登录链接", "New sign-in link"),
    "link.new_title": Text("{name} 的新登录链接", "A new sign-in link for {name}"),
    "link.new_intro": Text(
        "把这个链接发给 {username}。学生打开后设置新密码；链接在 {expires} 前有效，只能用一次，之前的链接已失效。",
        "Send this link to {username}. Opening it, the student chooses a new password; it works "
        "once, until {expires}, and their earlier links no longer work.",
    ),
    "link.the_link": Text("登录链接", "Sign-in link"),
    "link.shown_once": Text(
        "这个链接只显示这一次；服务器只保存它的摘要。",
        "The link is shown only this once; the server keeps only a hash of it.",
    ),
    "link.back": Text("返回学生名单", "Back to the roster"),
    "link.welcome_title": Text("设置密码", "Choose your password"),
    "link.welcome_intro": Text(
        "{name}，欢迎！你的用户名是 {username}。请设置密码，以后用它登录。",
        "Welcome, {name}! Your username is {username}. Choose a password to sign in with from now on.",
    ),
    "link.password": Text("新密码", "New password"),
    "link.password_hint": Text("至少 {n} 个字符。", "At least {n} characters."),
    "link.again": Text("再输入一次", "The same password again"),
    "link.set_password": Text("设置密码并登录", "Set password and sign in"),
    "link.dead": Text(
        "这个登录链接已过期或已被使用。请向老师要一个新链接。",
        "This sign-in link has expired or was already used. Ask your teacher for a new one.",
    ),
    "link.err_empty": Text("请输入密码。", "Enter a password."),
    "link.err_short": Text(
        "密码太短：至少需要 {n} 个字符。", "The password is too short: use at least {n} characters."
    ),
    "link.err_long": Text("密码太长（最多 256 个字符）。", "The password is too long (at most 256 characters)."),
    "link.err_mismatch": Text("两次输入的密码不一致。", "The two passwords differ."),
    "admin.nav": Text("用户管理", "Users"),
    "admin.title": Text("用户管理", "Users"),
    "admin.search": Text("按用户名或姓名查找", "Find by username or name"),
    "admin.find": Text("查找", "Find"),
    "admin.role": Text("角色", "Role"),
    "admin.state": Text("账号状态", "Account"),
    "admin.role_student": Text("学生", "student"),
    "admin.role_teacher": Text("教师", "teacher"),
    "admin.role_admin": Text("管理员", "administrator"),
    "admin.save_role": Text("保存角色", "Save role"),
    "admin.deactivate": Text("停用账号", "Deactivate"),
    "admin.activate": Text("重新启用", "Activate again"),
    "admin.inactive": Text("已停用", "deactivated"),
    "admin.none": Text("没有找到用户。", "No user found."),
    "admin.more": Text(
        "只显示前 {n} 个结果，请输入更具体的查找内容。", "Only the first {n} are shown: search more precisely."
    ),
    "admin.role_changed": Text("{name} 现在的角色是{role}。", "{name} is now a {role}."),
    "admin.deactivated": Text(
        "已停用 {name}：其登录会话、API 令牌和登录链接已全部失效。",
        "Deactivated {name}: their sessions, API tokens and sign-in links have ended.",
    ),
    "admin.activated": Text("已重新启用 {name}。", "{name} can sign in again."),
    "admin.err_no_user": Text("没有这个用户。", "There is no such user."),
    "admin.err_self": Text(
        "不能修改自己的角色或停用自己的账号。", "You cannot change your own role or deactivate yourself."
    ),
    "admin.err_role": Text("请选择学生、教师或管理员。", "Choose student, teacher or administrator."),
}
