"""What the student pages (grader.web) and the teacher pages (grader.teacher) share: page helpers, the CSRF guard,
variant data as tables, exercise titles and labels."""
