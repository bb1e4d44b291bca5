"""Where rate-limit counts live: the configured URI, else the broker's Redis, else process memory."""

from __future__ import annotations

from grader import create_app
from grader.extensions import get_db
from grader.ratelimit import SubmissionLimiter, parsed_limit, storage_uri
from tests.api.support import build_school
from tests.conftest import clean_database
from tests.factories import unique
from tests.support import Backend, own_redis_url


def test_explicit_storage_wins() -> None:
    config = {"RATELIMIT_STORAGE_URI": "redis://r:6379/2", "CELERY_BROKER_URL": "redis://b:6379/0"}
    assert storage_uri(config) == "redis://r:6379/2"


def test_redis_broker_is_shared_by_default_and_embedded_setups_use_memory() -> None:
    assert storage_uri({"CELERY_BROKER_URL": "redis://b:6379/0"}) == "redis://b:6379/0"
    assert storage_uri({"CELERY_BROKER_URL": "filesystem://"}) == "memory://"


def test_an_unreachable_redis_counts_in_memory_instead_of_failing(backend: Backend) -> None:
    app = create_app(backend.config(RATELIMIT_STORAGE_URI="redis://127.0.0.1:1/0", SUBMISSION_RATE_LIMIT="2/minute"))
    try:
        school = build_school(app)
        client, headers = app.test_client(), {"Authorization": f"Bearer {school.tokens['alice']}"}
        body = {
            "exercise_id": "ch13.shift-pairs",
            "answer": {"pairs": "BOS→a", "bos_scored": "no", "eos_scored": "no", "scored_count": "1"},
            "assignment_id": school.practice_assignment,
        }
        statuses = [client.post("/api/v1/submissions", json=body, headers=headers).status_code for _ in range(3)]
        assert statuses == [202, 202, 429]  # no 500 while Redis is down, and the limit still holds
    finally:
        clean_database(app)
        get_db(app).dispose()


def test_the_limiter_counts_per_key_and_forgets_on_reset() -> None:
    limiter, limit = SubmissionLimiter("memory://"), parsed_limit("2/minute")
    assert [limiter.hit(limit, "user:1")[0] for _ in range(3)] == [True, True, False]
    allowed, retry_after = limiter.hit(limit, "user:1")
    assert not allowed and 1 <= retry_after <= 60
    assert limiter.hit(limit, "user:2") == (True, 0)
    limiter.reset()
    assert limiter.hit(limit, "user:1") == (True, 0)


def test_deployments_sharing_one_redis_count_separately() -> None:
    shared = own_redis_url()  # this test session's own Redis database
    first, second = SubmissionLimiter(shared, namespace=unique("a")), SubmissionLimiter(shared, namespace=unique("b"))
    limit = parsed_limit("1/minute")
    try:
        assert first.hit(limit, "user:1")[0] and not first.hit(limit, "user:1")[0]
        assert second.hit(limit, "user:1")[0]  # the same user id in another deployment has its own count
        assert not SubmissionLimiter(shared, namespace=first.namespace).hit(limit, "user:1")[0]  # other processes agree
    finally:
        first.reset()
