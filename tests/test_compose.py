"""docker-compose.yml and the Dockerfile agree with the code: commands import and parse, env names are read."""

from __future__ import annotations

import importlib
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml
from gunicorn.workers.gthread import ThreadWorker

from grader.cli import build_parser
from grader.config import ENV_VARS, ConfigError, load_config

ROOT = Path(__file__).resolve().parent.parent
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SERVICES: dict[str, Any] = COMPOSE["services"]
GRADER_SERVICES = ("migrate", "web", "worker", "sweeper")
FAKE_SECRET = "x" * 40


def service_env(name: str) -> dict[str, str]:
    """A service's environment with ${VAR:?...} filled in as an operator would."""
    env = {key: str(value) for key, value in SERVICES[name]["environment"].items()}
    return {key: FAKE_SECRET if value.startswith("${SECRET_KEY") else value for key, value in env.items()}


def test_stack_has_every_role_with_a_health_check() -> None:
    assert {"postgres", "rabbitmq", "redis", "web", "worker", "sweeper", "proxy"} <= set(SERVICES)
    for name in ("postgres", "rabbitmq", "redis", "web", "worker", "sweeper", "proxy"):
        assert SERVICES[name]["healthcheck"]["test"], name


def test_long_running_services_restart_and_the_migration_runs_once() -> None:
    """A worker or sweeper that exits would stop grading or re-sending until someone noticed; the migration is a
    one-shot job that must not loop."""
    for name in ("postgres", "rabbitmq", "redis", "web", "worker", "sweeper", "proxy"):
        assert SERVICES[name].get("restart") == "unless-stopped", name
    assert SERVICES["migrate"].get("restart") == "no"


def test_no_fixed_container_names_or_host_ports_so_web_and_workers_scale() -> None:
    # `docker compose up --scale web=N --scale worker=N`: a fixed name or host port would clash at the second replica.
    assert all("container_name" not in service for service in SERVICES.values())
    assert "ports" not in SERVICES["worker"] and "ports" not in SERVICES["web"]
    assert SERVICES["web"]["expose"] == ["8000"]


def test_the_proxy_is_the_one_entry_and_spreads_over_every_web_replica() -> None:
    proxy = SERVICES["proxy"]
    assert proxy["ports"] == ["8000:8000"]
    source, target = proxy["volumes"][0].split(":")[:2]
    config = (ROOT / source).read_text()
    assert target == "/etc/nginx/nginx.conf"
    # Docker's DNS gives one address per replica; a variable in proxy_pass makes nginx resolve it again (valid=).
    assert re.search(r"resolver 127\.0\.0\.11 valid=\d+s", config)
    assert "set $web http://web:8000;" in config and "proxy_pass $web;" in config
    assert "X-Forwarded-For" in config and service_env("web")["GRADER_TRUSTED_PROXIES"] == "1"


def test_dependencies_exist_and_wait_for_health() -> None:
    for name, service in SERVICES.items():
        for dependency, rule in service.get("depends_on", {}).items():
            assert dependency in SERVICES, f"{name} depends on unknown {dependency}"
            if rule["condition"] == "service_healthy":
                assert "healthcheck" in SERVICES[dependency]


@pytest.mark.parametrize("name", GRADER_SERVICES)
def test_environment_names_are_ones_the_config_reads(name: str) -> None:
    env = service_env(name)
    assert set(env) <= set(ENV_VARS)
    config = load_config(environ=env)  # production rules: refuses a missing secret, database or broker
    assert config["GRADER_ENV"] == "production"
    assert config["DATABASE_URL"].startswith("postgresql+psycopg://") and "@postgres:" in config["DATABASE_URL"]
    assert config["CELERY_BROKER_URL"].startswith("amqp://") and "@rabbitmq:5672" in config["CELERY_BROKER_URL"]
    assert config["RATELIMIT_STORAGE_URI"].startswith("redis://redis:")


def test_production_refuses_the_compose_env_without_a_secret() -> None:
    env = service_env("web")
    del env["SECRET_KEY"]
    with pytest.raises(ConfigError):
        load_config(environ=env)


def test_web_command_names_the_app_factory() -> None:
    command = SERVICES["web"]["command"]
    assert command[0] == "gunicorn"
    module_name, factory = re.fullmatch(r"([\w.]+):(\w+)\(\)", command[-1]).groups()
    assert callable(getattr(importlib.import_module(module_name), factory))
    assert "0.0.0.0:8000" in command
    # ?wait= holds a request for up to 10 s: sync workers would let two waiting clients block the site.
    # Our subclass of gthread: requests gunicorn refuses itself are answered in the API's error envelope.
    worker_class = command[command.index("--worker-class") + 1]
    assert worker_class == "grader.gunicorn_worker.ThreadWorker" and int(command[command.index("--threads") + 1]) > 1
    module_name, class_name = worker_class.rsplit(".", 1)
    assert issubclass(getattr(importlib.import_module(module_name), class_name), ThreadWorker)


def test_worker_command_loads_the_celery_app_with_the_compose_environment() -> None:
    command = SERVICES["worker"]["command"]
    assert command[:4] == ["celery", "-A", "grader.worker", "worker"]
    probe = (
        "import json, grader.worker as w; w.celery.loader.import_default_modules(); c = w.celery; "
        "ours = [c.tasks[n] for n in ('grader.grade_submission', 'grader.run_lab')]; "
        "print(json.dumps([type(c).__name__, c.conf.broker_url, c.conf.task_default_queue_type,"
        " [[t.acks_late, t.reject_on_worker_lost, t.soft_time_limit, t.time_limit] for t in ours]]))"
    )
    env = {"PATH": "/usr/bin:/bin", **service_env("worker")}
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True, cwd=ROOT)
    kind, broker, queue_type, tasks = json.loads(out.stdout)
    assert kind == "Celery" and broker == env["CELERY_BROKER_URL"]
    assert queue_type == "quorum"  # RabbitMQ: durable, replicated queues
    for acks_late, reject_on_worker_lost, soft_limit, hard_limit in tasks:
        assert acks_late and reject_on_worker_lost
        assert 0 < soft_limit < hard_limit


@pytest.mark.parametrize("name", ["migrate", "sweeper"])
def test_grader_commands_parse(name: str) -> None:
    command = SERVICES[name]["command"]
    assert command[0] == "grader"
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["grader"] == "grader.cli:main"
    assert build_parser().parse_args(command[1:]).handler


def test_sweeper_health_check_is_a_grader_command() -> None:
    test = SERVICES["sweeper"]["healthcheck"]["test"]
    assert test[:2] == ["CMD", "grader"]
    build_parser().parse_args(test[2:])


def test_dockerfile_copies_what_the_commands_need() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    for needed in ("grader", "exercises", "migrations", "pyproject.toml"):
        assert re.search(rf"^COPY .*\b{needed}\b", dockerfile, re.MULTILINE), needed
    assert "EXPOSE 8000" in dockerfile and "grader:create_app()" in dockerfile
