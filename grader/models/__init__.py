"""All models; importing this package registers every table on ``Base.metadata``."""

from grader.models.base import Base, iso_timestamp, utcnow
from grader.models.course_staff import CourseStaff, StaffRole
from grader.models.courses import (
    AnswerKeyPolicy,
    Assignment,
    Course,
    Enrolment,
    EnrolmentRole,
    FollowThroughCredit,
    ScorePolicy,
)
from grader.models.extensions import Extension
from grader.models.jobs import LeasedJob
from grader.models.labs import LabRun, LabStatus
from grader.models.lti import (
    KeyState,
    LtiAccessToken,
    LtiContext,
    LtiDeployment,
    LtiIdentity,
    LtiKey,
    LtiLaunchState,
    LtiLineItem,
    LtiMember,
    LtiPlatform,
    LtiResourceLink,
    LtiScoreOutbox,
    MemberStatus,
    OutboxStatus,
)
from grader.models.misconception_counts import AnswerTag, MisconceptionCount, MisconceptionTagCount
from grader.models.overrides import OverrideLogEntry, ScoreOverride
from grader.models.progress import ProgressRow
from grader.models.progress_totals import AssignmentProgress
from grader.models.regrade import ACTIVE_REGRADE_STATUSES, RegradeChange, RegradeJob, RegradeStatus
from grader.models.score_stats import FIGURE_COLUMNS, AssignmentScoreStats, ExerciseScoreStats
from grader.models.sign_in_links import SignInLink
from grader.models.submission_counts import SHARDS, SubmissionCount
from grader.models.submissions import (
    FINAL_STATUSES,
    AppendOnlyError,
    GradeLogEntry,
    Submission,
    SubmissionStatus,
)
from grader.models.users import ApiToken, Role, User
from grader.models.variant_assignments import VariantAssignment
from grader.models.workers import WorkerBeat

__all__ = [
    "ACTIVE_REGRADE_STATUSES",
    "FIGURE_COLUMNS",
    "FINAL_STATUSES",
    "SHARDS",
    "AnswerKeyPolicy",
    "AnswerTag",
    "ApiToken",
    "AppendOnlyError",
    "Assignment",
    "AssignmentProgress",
    "AssignmentScoreStats",
    "Base",
    "Course",
    "CourseStaff",
    "Enrolment",
    "EnrolmentRole",
    "ExerciseScoreStats",
    "Extension",
    "FollowThroughCredit",
    "GradeLogEntry",
    "KeyState",
    "LabRun",
    "LabStatus",
    "LeasedJob",
    "LtiAccessToken",
    "LtiContext",
    "LtiDeployment",
    "LtiIdentity",
    "LtiKey",
    "LtiLaunchState",
    "LtiLineItem",
    "LtiMember",
    "LtiPlatform",
    "LtiResourceLink",
    "LtiScoreOutbox",
    "MemberStatus",
    "MisconceptionCount",
    "MisconceptionTagCount",
    "OutboxStatus",
    "OverrideLogEntry",
    "ProgressRow",
    "RegradeChange",
    "RegradeJob",
    "RegradeStatus",
    "Role",
    "ScoreOverride",
    "ScorePolicy",
    "SignInLink",
    "StaffRole",
    "Submission",
    "SubmissionCount",
    "SubmissionStatus",
    "User",
    "VariantAssignment",
    "WorkerBeat",
    "iso_timestamp",
    "utcnow",
]
