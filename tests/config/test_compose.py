"""The documented `docker compose up` starts: the compose file's own environment (with the two
secrets the README says to give) passes the production settings the image loads, and the
stack's services are wired as docs/operations.md says. No Docker engine needed: the files are
read as Docker reads them."""

import re
import subprocess
import sys
from typing import Any

import pytest
import yaml

from config.celery_app import app as celery_app
from tests.servers import ROOT

# What README.md ("Production") tells an operator to give; everything else is the file's own.
GIVEN = {
    "SECRET_KEY": "Zq7-vN2kR9xLm4Tb8WcYp1Hs6Jd3Fg0Ua5Ee_Ko",
    "FIELD_ENCRYPTION_KEY": "hZ3oJ0QvE8w3b1n9V1mM4Q2kq8qQ9m1YvJbq3T0m7eA=",
}
APP_SERVICES = ("migrate", "web", "worker", "beat")
_VARIABLE = re.compile(r"\$\{(?P<name>\w+)(?:(?P<op>:?[-?])(?P<arg>[^}]*))?\}|\$\$")


def interpolated(value: str, given: dict[str, str]) -> str:
    """Compose's interpolation: ${NAME}, ${NAME:-default}, ${NAME-default}, ${NAME:?error},
    and $$ for a literal $."""

    def one(match: re.Match[str]) -> str:
        if match.group(0) == "$$":
            return "$"
        name, op, arg = match.group("name", "op", "arg")
        found = given.get(name)
        empty = found is None or (found == "" and op is not None and op.startswith(":"))
        if op is not None and op.endswith("?") and empty:
            raise AssertionError(f"compose refuses to start without {name}: {arg}")
        if op is not None and op.endswith("-") and empty:
            return arg
        return found or ""

    return _VARIABLE.sub(one, value)


def compose() -> dict[str, Any]:
    with (ROOT / "docker-compose.yml").open() as file:
        loaded: dict[str, Any] = yaml.safe_load(file)  # anchors and `<<` merged as Docker does
    return loaded


def image_env() -> dict[str, str]:
    """The ENV lines of the Dockerfile's final stage: the image's environment."""
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    final = text.rsplit("\nFROM ", 1)[1]
    env: dict[str, str] = {}
    for line in final.splitlines():
        if line.startswith("ENV "):
            env.update(pair.split("=", 1) for pair in line[4:].split())  # type: ignore[misc]
    return env


def service_env(name: str) -> dict[str, str]:
    environment = compose()["services"][name]["environment"]
    return {
        key: interpolated(str(value if value is not None else ""), GIVEN)
        for key, value in environment.items()
    }


@pytest.mark.server
@pytest.mark.parametrize("service", APP_SERVICES)
def test_the_documented_compose_environment_passes_the_production_settings(service):
    env = {**image_env(), **service_env(service), "PATH": "/usr/bin:/bin"}
    assert env["DJANGO_SETTINGS_MODULE"] == "config.settings.production"
    done = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def test_beat_starts_after_the_migration():
    depends = compose()["services"]["beat"]["depends_on"]
    assert depends["migrate"] == {"condition": "service_completed_successfully"}


def test_redis_keeps_its_data_and_never_evicts_queued_tasks():
    redis = compose()["services"]["redis"]
    assert any(volume.endswith(":/data") for volume in redis["volumes"])
    command = redis["command"]
    assert command[command.index("--maxmemory-policy") + 1] == "noeviction"
    assert redis["volumes"][0].split(":")[0] in compose()["volumes"]


def seconds(duration: str) -> float:
    units = {"h": 3600, "m": 60, "s": 1}
    return sum(int(n) * units[unit] for n, unit in re.findall(r"(\d+)([hms])", duration))


def test_a_stopped_worker_finishes_its_tasks_before_it_is_killed():
    # Celery's warm shutdown lets the tasks in flight end; each ends within the hard time
    # limit. Killed sooner, its claimed records would wait out their lease.
    from django.conf import settings

    grace = seconds(compose()["services"]["worker"]["stop_grace_period"])
    assert grace > celery_app.conf.task_time_limit
    assert grace > settings.SCHEDULER_LEASE_SECONDS


def test_the_image_leaves_out_ci_scripts():
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert ".ci" in ignored
