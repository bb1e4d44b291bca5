"""Grading service: submissions, leases on database rows, the grading pipeline, the sweeper and lab runs."""
