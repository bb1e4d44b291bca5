"""All models; importing this package registers every table on ``Base.metadata``."""
from grader.models.base import Base, iso_timestamp, utcnow
from grader.models.courses import AnswerKeyPolicy, Assignment, Course, Enrolment, EnrolmentRole, ScorePolicy
from grader.models.jobs import LeasedJob
from grader.models.labs import LabRun, LabStatus
from grader.models.regrade import ACTIVE_REGRADE_STATUSES, RegradeChange, RegradeJob, RegradeStatus
from grader.models.submissions import (
    FINAL_STATUSES,
    AppendOnlyError,
    GradeLogEntry,
    Submission,
    SubmissionStatus,
)
from grader.models.users import ApiToken, Role, User
from grader.models.variant_assignments import VariantAssignment

__all__ = [
    "AnswerKeyPolicy",
    "ApiToken",
    "AppendOnlyError",
    "Assignment",
    "Base",
    "Course",
    "Enrolment",
    "EnrolmentRole",
    "FINAL_STATUSES",
    "GradeLogEntry",
    "LabRun",
    "LabStatus",
    "LeasedJob",
    "ACTIVE_REGRADE_STATUSES",
    "RegradeChange",
    "RegradeJob",
    "RegradeStatus",
    "Role",
    "ScorePolicy",
    "Submission",
    "SubmissionStatus",
    "User",
    "VariantAssignment",
    "iso_timestamp",
    "utcnow",
]
