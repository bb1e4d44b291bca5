"""The OpenAPI description of what an LMS reads to keep its gradebook in sync: roster, gradebook, grade changes."""

from __future__ import annotations

from grader.api.openapi_common import READ, JSONObject, answer, operation

FEED_DESCRIPTION = (
    "Every change of a submission's score (first grading, regrade) from the append-only grade log, oldest first "
    "after after_id: what GET /api/v1/submissions?after_id= cannot show, since a regraded submission keeps its id. "
    "An entry says which student, assignment and exercise it touched; re-read that gradebook row (or the "
    "student's progress) for the counted result. Staff see the entries of the courses they teach (admins: all), "
    "students only those of their own submissions, as in the submission listing. A course or assignment filter "
    "for a course the caller is not a member of is a 404 naming the parameter.\n\n"
    "Completeness: an entry is listed only once it is settle_seconds old (GRADER_CHANGE_FEED_SETTLE_SECONDS; by "
    "default the worker lease GRADER_LEASE_SECONDS plus 30 s, i.e. 120 s), and a page stops at the first entry the "
    "server can see that is younger. Ids are taken at INSERT but entries appear at COMMIT, and a regrade commits up "
    "to 200 entries at once, so a lower id can appear after a higher one. The server relies on every transaction "
    "that writes grade-log entries committing within the settle interval of stamping them (a grading's write "
    "commits at once; a regrade batch takes about a second, and one that overruns the lease is taken over and its "
    "commit refused) and on its hosts' clocks agreeing within the margin; then, once an entry is listed, every "
    "entry with a lower id is listed too (in this page or an earlier one). A client that keeps next_after_id and "
    "asks again from it misses none and sees each once; an entry shows settle_seconds after it was written.\n\n"
    "What the feed does not carry: a change of an assignment's settings (a new score policy or exercise list changes "
    "counted totals without any entry; watch the assignment's updated_at and re-read its gradebook when it moves) "
    "and roster changes (a student removed from the course; re-read the roster)."
)

SYNC_OPERATIONS: tuple[JSONObject, ...] = (
    operation(
        "course_students",
        "A course's enrolled students by user id, for its teachers and admins (to map an LMS's "
        "users to ours). Non-members: 404; its students, and teachers acting with a student-role token: 403.",
        answer("RosterPage", "A page of students"),
        READ,
    ),
    operation(
        "assignment_grades",
        "The assignment's gradebook for its course's teachers and admins: every enrolled "
        "student (by user id, paged) with the counted score and attempts per exercise and the assignment total. "
        "Non-members: 404 (as for progress); its students: 403, since every row is some student's (their own is "
        "GET .../progress). The statements per page do not grow with the students.",
        answer("GradebookPage", "A page of rows"),
        READ,
    ),
    operation(
        "grade_changes",
        "Grade changes (first gradings and regrades) after a cursor, oldest first, once settled.",
        answer("ChangePage", "A page of changes"),
        (400, 401, 404),
        description=FEED_DESCRIPTION,
    ),
)
