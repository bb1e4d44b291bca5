"""Running a course's membership, for every transport: creating courses, reading roster files, enrolling students
(creating the accounts that do not exist yet) and removing them. The teacher pages and the API only map results."""
