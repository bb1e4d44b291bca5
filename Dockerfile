# One image for every role: web (gunicorn), worker (celery) and sweeper (grader sweeper).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1

RUN useradd --create-home --uid 10001 grader
WORKDIR /app

COPY pyproject.toml README.md ./
COPY exercises ./exercises
COPY grader ./grader
COPY migrations ./migrations
COPY alembic.ini ./
RUN pip install -e .

USER grader
EXPOSE 8000
# The default command is the web app; docker-compose.yml overrides it for the worker and the sweeper.
CMD ["gunicorn", "--bind", "0.0.0.0:8000", "--workers", "2", "--worker-class", "grader.gunicorn_worker.ThreadWorker", "--threads", "8", "--worker-connections", "2000", "grader:create_app()"]
