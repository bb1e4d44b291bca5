"""Configuration: production refuses unsafe settings; every documented variable is read; Celery reliability."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader import create_app
from grader.celery_app import celery_settings
from grader.config import DEFAULT_SECRET, EMBEDDED_BROKER_URL, ENV_VARS, INT_SETTINGS, ConfigError, load_config

PRODUCTION = {
    "GRADER_ENV": "production",
    "SECRET_KEY": "s" * 40,
    "DATABASE_URL": "postgresql+psycopg://db/x",
    "CELERY_BROKER_URL": "redis://broker:6379/0",
}


@pytest.mark.parametrize("secret", [None, "", DEFAULT_SECRET, "short"])
def test_production_refuses_a_missing_default_or_short_secret(secret: str | None) -> None:
    env = (
        {**PRODUCTION, "SECRET_KEY": secret}
        if secret is not None
        else {k: v for k, v in PRODUCTION.items() if k != "SECRET_KEY"}
    )
    with pytest.raises(ConfigError):
        load_config(environ={k: v for k, v in env.items() if v is not None})
    with pytest.raises(ConfigError):
        create_app(env)


@pytest.mark.parametrize("missing", ["DATABASE_URL", "CELERY_BROKER_URL"])
def test_production_needs_a_database_and_a_broker(missing: str) -> None:
    with pytest.raises(ConfigError):
        load_config(environ={k: v for k, v in PRODUCTION.items() if k != missing})


def test_production_refuses_the_test_delay_hook() -> None:
    with pytest.raises(ConfigError):
        load_config(environ={**PRODUCTION, "GRADER_TEST_GRADE_DELAY": "5"})


def test_development_secret_is_generated_once_and_kept(data_dir: Path) -> None:
    first = load_config(environ={"GRADER_DATA_DIR": str(data_dir)})
    second = load_config(environ={"GRADER_DATA_DIR": str(data_dir)})
    assert first["SECRET_KEY"] == second["SECRET_KEY"] != DEFAULT_SECRET
    assert len(first["SECRET_KEY"]) >= 32
    assert first["DATABASE_URL"] == f"sqlite:///{data_dir / 'grader.sqlite'}"
    assert first["CELERY_BROKER_URL"] == EMBEDDED_BROKER_URL


def test_every_documented_variable_is_read() -> None:
    env = {
        **PRODUCTION,
        "GRADER_ENV": "testing",
        "VARIANT_SECRET": "v" * 40,
        "GRADER_DATA_DIR": "/srv/grader",
        "GRADER_QUEUE": "q1",
        "GRADER_TEST_GRADE_DELAY": "0.5",
        "RATELIMIT_STORAGE_URI": "redis://127.0.0.1:6379/5",
        "SUBMISSION_RATE_LIMIT": "7/minute",
        "PREVIEW_RATE_LIMIT": "9/minute",
        "GRADER_FRAME_ANCESTORS": "https://moodle.example.edu",
        "GRADER_CHANGE_FEED_SETTLE_SECONDS": "42.5",
        "GRADER_LEASE_RENEW_SECONDS": "2.5",
        "GRADER_LTI_HTTP_TIMEOUT": "3.5",
        "GRADER_LTI_JWKS_COOL_DOWN": "0",
        "GRADER_LTI_ROSTER_SYNC_HOURS": "12",
        "GRADER_LTI_BACKOFF_SCALE": "0.5",
        "GRADER_LTI_DISPATCH_AGAIN_SECONDS": "4.5",
        "GRADER_WORKER_BEAT_SECONDS": "1.5",
    }
    env.update({name: str(default + 7000) for name, default in INT_SETTINGS.items()})
    config = load_config(environ=env)
    for name in ENV_VARS:
        assert config[name] == type(config[name])(env[name]), name


def test_overrides_win_over_the_environment_and_extra_keys_are_kept() -> None:
    config = load_config({"GRADER_QUEUE": "mine", "API_FLAG": 1}, environ={**PRODUCTION, "GRADER_QUEUE": "env"})
    assert config["GRADER_QUEUE"] == "mine" and config["API_FLAG"] == 1


def test_visibility_timeout_must_exceed_task_time_limits() -> None:
    with pytest.raises(ConfigError):
        load_config(environ={**PRODUCTION, "GRADER_VISIBILITY_TIMEOUT": "100", "GRADER_LAB_TIME_LIMIT": "600"})


def test_celery_is_configured_for_late_acks_and_redis_visibility() -> None:
    settings = celery_settings(load_config(environ=PRODUCTION))
    assert settings["task_acks_late"] and settings["task_reject_on_worker_lost"]
    assert settings["worker_prefetch_multiplier"] == 1
    limits = [annotation["time_limit"] for annotation in settings["task_annotations"].values()]
    assert settings["broker_transport_options"]["visibility_timeout"] > max(limits)
