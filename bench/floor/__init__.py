"""The floor for bench/bench_service.py: the least code that does insert row → send task → worker updates row → read.

Same servers (PostgreSQL, Redis), same process model (gunicorn gthread, Celery prefork) as the grader, but no
auth, no validation, no engine, no lease: it measures what the plumbing alone costs on this machine.
Settings come from the environment: FLOOR_DATABASE_URL (libpq URL), FLOOR_BROKER_URL, FLOOR_QUEUE,
FLOOR_POLL_SECONDS (sleep between reads while a GET waits).
"""
