"""LTI pages' strings: why a launch was refused (read by the LMS administrator), the new-window offer, the
view-only page of an anonymous launch."""

from __future__ import annotations

from exercises.i18n import Text

LTI_UI: dict[str, Text] = {
    "lti.refused.title": Text("LTI 启动被拒绝", "LTI launch refused"),
    "lti.refused.for_admin": Text(
        "请把这条信息转给 LMS 管理员。", "Please pass this message on to the LMS administrator."
    ),
    "lti.refused.unknown_platform": Text(
        "这个平台（issuer 与 client_id）没有在本工具登记。",
        "This platform (issuer and client_id) is not registered with this tool.",
    ),
    "lti.refused.bad_login": Text(
        "登录请求缺少 iss、login_hint 或 target_link_uri。",
        "The login request lacks iss, login_hint or target_link_uri.",
    ),
    "lti.refused.foreign_target": Text(
        "target_link_uri 不是本工具的地址。", "target_link_uri is not an address of this tool."
    ),
    "lti.refused.no_state": Text("启动请求没有 state。", "The launch carries no state."),
    "lti.refused.no_state_cookie": Text(
        "浏览器没有送回本次登录的 state cookie（可能阻止了嵌入页面的 cookie）。",
        "The browser did not send back this login's state cookie (it may block cookies in embedded pages).",
    ),
    "lti.refused.state_unknown": Text(
        "state 未知、已过期或已被使用过（重放）。", "The state is unknown, expired or already used (a replay)."
    ),
    "lti.refused.malformed": Text("id_token 不是有效的 JWT。", "The id_token is not a valid JWT."),
    "lti.refused.bad_algorithm": Text("id_token 必须用 RS256 签名。", "The id_token must be signed with RS256."),
    "lti.refused.no_kid": Text("id_token 的头部没有 kid。", "The id_token header has no kid."),
    "lti.refused.unknown_kid": Text(
        "平台的公钥集（JWKS）里没有这个 kid。", "The platform's key set (JWKS) has no key with this kid."
    ),
    "lti.refused.jwks_unavailable": Text(
        "无法读取平台的公钥集（JWKS）。", "The platform's key set (JWKS) could not be fetched."
    ),
    "lti.refused.bad_signature": Text("id_token 的签名不对。", "The id_token's signature is wrong."),
    "lti.refused.wrong_issuer": Text("iss 与登记的平台不符。", "iss does not match the registered platform."),
    "lti.refused.wrong_audience": Text("aud 里没有本工具的 client_id。", "aud does not contain this tool's client_id."),
    "lti.refused.no_azp": Text("aud 有多个值，但没有 azp。", "aud has several values but there is no azp."),
    "lti.refused.wrong_azp": Text("azp 不是本工具的 client_id。", "azp is not this tool's client_id."),
    "lti.refused.expired": Text(
        "id_token 已过期（exp）；请检查 LMS 服务器的时钟。",
        "The id_token has expired (exp); check the LMS server's clock.",
    ),
    "lti.refused.no_exp": Text("id_token 没有 exp。", "The id_token has no exp."),
    "lti.refused.not_yet_valid": Text(
        "id_token 的签发时间（iat）在未来；请检查 LMS 服务器的时钟。",
        "The id_token's issue time (iat) is in the future; check the LMS server's clock.",
    ),
    "lti.refused.too_old": Text("id_token 签发得太久以前（iat）。", "The id_token was issued too long ago (iat)."),
    "lti.refused.missing_claim": Text(
        "id_token 缺少必需的声明（iat、iss、aud 或 nonce）。",
        "The id_token lacks a required claim (iat, iss, aud or nonce).",
    ),
    "lti.refused.nonce_mismatch": Text("nonce 不是本次登录发出的那个。", "The nonce is not the one this login issued."),
    "lti.refused.unknown_deployment": Text("deployment_id 没有登记。", "The deployment_id is not registered."),
    "lti.refused.wrong_version": Text("LTI 版本必须是 1.3.0。", "The LTI version must be 1.3.0."),
    "lti.refused.unknown_message_type": Text("不支持这种 message_type。", "This message_type is not supported."),
    "lti.refused.no_roles": Text("启动没有 roles 声明。", "The launch has no roles claim."),
    "lti.refused.bad_user_id": Text(
        "启动的用户标识（sub）必须是 1 到 255 个字符的文本。",
        "The launch's user id (sub) must be text of 1 to 255 characters.",
    ),
    "lti.refused.claim_too_long": Text(
        "启动中有一项声明超出本工具保存的长度：课程和资源链接的 id 最多 255 个字符，服务地址最多 1000 个字符。",
        "A claim of the launch is longer than this tool keeps: context and resource-link ids at most 255 "
        "characters, service URLs at most 1000.",
    ),
    "lti.refused.no_resource_link": Text(
        "资源链接启动没有 resource_link.id。", "The resource-link launch has no resource_link.id."
    ),
    "lti.refused.not_set_up": Text(
        "这门 LMS 课程或这个链接还没有在本工具里设置好。请等教师先打开它一次。",
        "This LMS course or link is not set up in this tool yet. Ask the instructor to open it once first.",
    ),
    "lti.refused.unknown_assignment": Text(
        "自定义参数 assignment_id 指向的作业不存在或不属于这门课程。",
        "The custom parameter assignment_id names no assignment of this course.",
    ),
    "lti.new_window.title": Text("请在新窗口中继续", "Continue in a new window"),
    "lti.new_window.text": Text(
        "浏览器阻止了嵌入页面中的 cookie，所以无法在这里登录。请在新窗口中打开。",
        "The browser blocks cookies in embedded pages, so signing in here is not possible. "
        "Open it in a new window instead.",
    ),
    "lti.new_window.open": Text("在新窗口中打开", "Open in a new window"),
    "lti.anonymous.title": Text("仅供查看", "View only"),
    "lti.anonymous.text": Text(
        "这次启动没有带用户身份（匿名），可以查看作业，但不能提交。",
        "This launch carries no user (anonymous): you can look at the assignment but not submit.",
    ),
    "lti.passback.title": Text("成绩回传到 LMS", "Grades sent to the LMS"),
    "lti.passback.intro": Text(
        "每位学生每个作业的最新成绩变化：已发送（何时）、等待发送，或需要处理（原因）。",
        "The newest score change of each student and assignment: sent (when), pending, or needs attention (why).",
    ),
    "lti.passback.none": Text("还没有需要回传的成绩。", "No grades to send yet."),
    "lti.passback.student": Text("学生", "Student"),
    "lti.passback.assignment": Text("作业", "Assignment"),
    "lti.passback.lms_course": Text("LMS 课程", "LMS course"),
    "lti.passback.state": Text("状态", "Status"),
    "lti.passback.sent": Text("已发送（{when}）", "Sent ({when})"),
    "lti.passback.pending": Text("等待发送（已尝试 {attempts} 次）", "Pending ({attempts} tries so far)"),
    "lti.passback.failed": Text("需要处理：LMS 拒绝了这个成绩", "Needs attention: the LMS refused this score"),
    "lti.passback.resend": Text("重新发送", "Resend"),
    "lti.passback.resent": Text("已重新排队发送。", "Queued to be sent again."),
    "lti.refused.staff_only": Text(
        "只有教师可以为 LMS 选择作业。", "Only instructors can pick an assignment for the LMS."
    ),
    "lti.pick.title": Text("选择要放进 LMS 的作业", "Pick the assignment to place in the LMS"),
    "lti.pick.choose": Text("请选择一个作业。", "Choose an assignment."),
    "lti.pick.none": Text(
        "这门课程还没有作业。请先在教学管理中创建一个。",
        "This course has no assignments yet. Create one in Teaching first.",
    ),
    "lti.pick.submit": Text("放进 LMS", "Place in the LMS"),
    "lti.pick.return": Text("返回 LMS", "Return to the LMS"),
    "lti.pick.return_text": Text(
        "作业已选好。按下按钮把它交给 LMS。", "The assignment is picked. Press the button to hand it to the LMS."
    ),
    "lti.roster.sync": Text("从 LMS 同步名单", "Sync the roster from the LMS"),
    "lti.roster.done": Text(
        "{title}：新加入 {enrolled} 人，角色变化 {updated} 人，结束 {ended} 人的选课。",
        "{title}: {enrolled} enrolled, {updated} changed role, {ended} enrolments ended.",
    ),
    "lti.roster.failed": Text("{title}：无法读取名单（{why}）。", "{title}: the roster could not be read ({why})."),
    "lti.setup.title": Text("LTI 1.3 设置", "LTI 1.3 set-up"),
    "lti.setup.intro": Text(
        "把下面的值填进 LMS；步骤见 docs/lti.md。命令 grader lti show 输出同样的内容。",
        "Paste these values into the LMS; docs/lti.md gives the steps. `grader lti show` prints the same.",
    ),
    "lti.setup.canvas": Text("Canvas 开发者密钥（粘贴 JSON）", "Canvas developer key (Paste JSON)"),
    "lti.setup.platforms": Text("已登记的平台", "Registered platforms"),
    "lti.setup.no_platforms": Text(
        "还没有登记平台：在下面登记，或用 grader lti add-platform。",
        "No platform registered yet: register one below, or with `grader lti add-platform`.",
    ),
    "lti.bind.title": Text("这门 LMS 课程对应哪门课？", "Which course is this LMS course?"),
    "lti.bind.intro": Text(
        "这是 LMS 课程「{title}」第一次打开本工具。请选择您在这里教的一门课与它对应，或为它新建一门课。"
        "以后它的学生、作业链接和成绩都归这门课。",
        "This is the first launch of the tool from the LMS course “{title}”. Pick one of the courses you teach here "
        "for it, or make a new course for it. Its students, assignment links and grades will belong to that course.",
    ),
    "lti.bind.legend": Text("对应的课程", "The course"),
    "lti.bind.new": Text("新建一门课：{title}", "A new course: {title}"),
    "lti.bind.submit": Text("确定", "Bind"),
    "lti.bind.choose": Text(
        "请选择您教的一门课，或选择新建。", "Choose one of the courses you teach, or a new course."
    ),
    "lti.pick.new": Text("新建作业", "New assignment"),
    "lti.pick.new_hint": Text(
        "在这门课里新建一个作业并放进 LMS。其他设置（时间、次数、计分）用默认值，以后可在教学管理中修改。",
        "Create an assignment in this course and place it in the LMS. Its other settings (window, attempts, "
        "scoring) start at their defaults and can be changed in Teaching later.",
    ),
    "lti.pick.new_submit": Text("新建并放进 LMS", "Create and place in the LMS"),
    "lti.admin.deployments": Text("部署 ID", "Deployment ids"),
    "lti.admin.accepts_new": Text("（新的部署 ID 在首次启动时记录）", "(new deployment ids recorded on first launch)"),
    "lti.admin.remove": Text("删除", "Remove"),
    "lti.admin.add_title": Text("登记平台", "Register a platform"),
    "lti.admin.add_hint": Text(
        "填入 LMS 给出的值。已登记的 issuer 与 client_id 会被更新，部署 ID 会被加上。",
        "Enter the values the LMS gives. An issuer and client_id already registered are updated, and the "
        "deployment ids added.",
    ),
    "lti.admin.issuer": Text("平台 ID（issuer）", "Platform id (issuer)"),
    "lti.admin.client_id": Text("客户端 ID", "Client id"),
    "lti.admin.auth_login_url": Text("认证（OIDC）地址", "Authentication request URL"),
    "lti.admin.auth_token_url": Text("访问令牌地址", "Access token URL"),
    "lti.admin.jwks_url": Text("公钥集地址", "Public keyset URL"),
    "lti.admin.deployment_ids": Text("部署 ID（每行一个，可留空）", "Deployment ids (one a line; may be left empty)"),
    "lti.admin.accept_new": Text(
        "在首次启动时记录新的部署 ID（Canvas：每次在课程中安装都有新的 ID）",
        "Record new deployment ids on first launch (Canvas: each install in a course has a new one)",
    ),
    "lti.admin.add": Text("登记", "Register"),
    "lti.admin.registered": Text(
        "已登记平台 {issuer}（client_id {client_id}）。", "Registered platform {issuer} (client id {client_id})."
    ),
    "lti.admin.removed": Text("已删除平台 {issuer}。", "Removed platform {issuer}."),
    "lti.admin.link_title": Text("把本地账号关联到 LMS 用户", "Link a local account to an LMS user"),
    "lti.admin.link_hint": Text(
        "关联后，这个 LMS 用户从 LMS 启动时会登录到这个已有账号（而不是新建一个）。LMS 用户 ID 是启动中的 sub。",
        "Once linked, this LMS user's launches sign in to the existing account (instead of creating one). The LMS "
        "user id is the launch's sub.",
    ),
    "lti.admin.platform": Text("平台", "Platform"),
    "lti.admin.sub": Text("LMS 用户 ID（sub）", "LMS user id (sub)"),
    "lti.admin.username": Text("本地用户名", "Local username"),
    "lti.admin.link": Text("关联", "Link"),
    "lti.admin.linked": Text(
        "账号 {username} 已关联到 {issuer} 的用户 {sub}。", "Account {username} is linked to {sub} of {issuer}."
    ),
    "lti.admin.err_issuer": Text("issuer 必填，最多 255 个字符。", "issuer is required (at most 255 characters)."),
    "lti.admin.err_client_id": Text(
        "client_id 必填，最多 255 个字符。", "client_id is required (at most 255 characters)."
    ),
    "lti.admin.err_auth_login_url": Text(
        "认证地址必须是完整的 http(s) 地址（最多 1000 个字符）。",
        "The authentication request URL must be an absolute http(s) URL (at most 1000 characters).",
    ),
    "lti.admin.err_auth_token_url": Text(
        "访问令牌地址必须是完整的 http(s) 地址（最多 1000 个字符）。",
        "The access token URL must be an absolute http(s) URL (at most 1000 characters).",
    ),
    "lti.admin.err_jwks_url": Text(
        "公钥集地址必须是完整的 http(s) 地址（最多 1000 个字符）。",
        "The public keyset URL must be an absolute http(s) URL (at most 1000 characters).",
    ),
    "lti.admin.err_deployment_ids": Text("部署 ID 最多 255 个字符。", "A deployment id has at most 255 characters."),
    "lti.admin.err_platform_id": Text("请选择一个已登记的平台。", "Choose a registered platform."),
    "lti.admin.err_sub": Text(
        "LMS 用户 ID 必填，最多 255 个字符。", "The LMS user id is required (at most 255 characters)."
    ),
    "lti.admin.err_username": Text("没有这个用户名的账号。", "There is no account with this username."),
    "lti.admin.err_sub_taken": Text(
        "这个 LMS 用户已经关联到另一个账号。", "This LMS user is already linked to another account."
    ),
    "lti.admin.err_user_linked": Text(
        "这个账号已经关联到这个 LMS 的另一个用户。", "This account is already linked to another user of this LMS."
    ),
    "lti.roster.title": Text("LMS 名单", "LMS rosters"),
    "lti.roster.intro": Text(
        "名单每晚自动从 LMS 读取一次，也可以现在同步。在 LMS 中不再活跃、被删除或不在名单上的学生标为已离开，"
        "不能再提交；他们的作业记录保留。",
        "The roster is read from the LMS every night, or now with the button. Students the LMS lists as inactive "
        "or deleted, or no longer lists, are marked as having left and can no longer submit; their work is kept.",
    ),
    "lti.roster.synced": Text("最近一次同步：{when}", "Last synced: {when}"),
    "lti.roster.never": Text("还没有同步过。", "Not synced yet."),
    "lti.roster.error": Text("上次同步失败：", "The last sync failed:"),
    "lti.roster.how": Text("离开方式", "How"),
    "lti.roster.left_at": Text("发现离开的时间", "Found to have left"),
    "lti.roster.status_inactive": Text("LMS 中不再活跃", "Inactive in the LMS"),
    "lti.roster.status_deleted": Text("已从 LMS 课程删除", "Deleted from the LMS course"),
    "lti.roster.status_gone": Text("不在 LMS 名单上", "No longer on the LMS roster"),
    "lti.link.title": Text("这个 LMS 链接打开哪个作业？", "Which assignment does this LMS link open?"),
    "lti.link.intro": Text(
        "这个链接是在 LMS 中直接建的，还没有对应的作业。选一个作业（或新建一个），学生点这个链接就会打开它。",
        "This link was made in the LMS directly and opens no assignment yet. Pick one (or create one): students "
        "following the link will land on it.",
    ),
    "lti.link.submit": Text("让链接打开这个作业", "Open this assignment from the link"),
    "lti.link.new_submit": Text("新建并让链接打开它", "Create it and open it from the link"),
}
