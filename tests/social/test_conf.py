"""The scheduler's configuration (social/conf.py): one frozen object built from the settings,
following them when they change; the environment's names and defaults unchanged."""

import ast
import dataclasses
import re

import pytest
from django.test import override_settings

from social.conf import SchedulerConfig, scheduler_config
from tests.servers import ROOT

# The environment's contract (.env.example, docs/social.md's table): names and defaults.
ENVIRONMENT = {
    "SCHEDULER_INTERVAL_SECONDS": 10.0,
    "SCHEDULER_TIMER": True,
    "SCHEDULER_TICK_SECONDS": 0.5,
    "SCHEDULER_PROVIDER_CONCURRENCY": 256,
    "SCHEDULER_PROVIDER_WAIT_SECONDS": 10.0,
    "SCHEDULER_RETRY_BASE_SECONDS": 60,
    "SCHEDULER_BATCH_SIZE": 500,
    "SCHEDULER_CONCURRENCY": 64,
    "SCHEDULER_LEASE_SECONDS": 300,
}


def test_the_environment_feeds_the_same_nine_settings_with_the_same_defaults():
    text = (ROOT / "config" / "settings" / "base.py").read_text()
    read = dict(re.findall(r'env\.\w+\("(SCHEDULER_\w+)", default=([^)]+)\)', text))

    assert {name: ast.literal_eval(default) for name, default in read.items()} == ENVIRONMENT
    fed = {f"SCHEDULER_{field.name.upper()}" for field in dataclasses.fields(SchedulerConfig)
           if field.default is dataclasses.MISSING}  # fmt: skip
    assert fed == set(ENVIRONMENT)  # each of them is a field without a default of its own


def test_the_configuration_is_the_settings(settings):
    config = scheduler_config()

    for name in ENVIRONMENT:
        assert getattr(config, name.removeprefix("SCHEDULER_").lower()) == getattr(settings, name)
    assert (config.max_attempts, config.settle_batch, config.ahead_rounds) == (3, 100, 2)
    assert config.timer_batch == min(settings.SCHEDULER_BATCH_SIZE, 2 * config.concurrency)


def test_an_overridden_setting_is_read_at_once_and_given_back_after(settings):
    before = scheduler_config()

    settings.SCHEDULER_LEASE_SECONDS = 7  # pytest-django's fixture: undone after the test
    with override_settings(
        SCHEDULER_CONCURRENCY=3,
        SCHEDULER_TIMER=False,
        SCHEDULER_TICK_SECONDS="0.25",  # as an environment-style string: typed
        SCHEDULER_SETTLE_BATCH=10,  # one without an environment variable
    ):
        inside = scheduler_config()
    after = scheduler_config()

    assert (inside.lease_seconds, inside.concurrency, inside.timer) == (7, 3, False)
    assert (inside.tick_seconds, inside.settle_batch, inside.timer_batch) == (0.25, 10, 6)
    assert after == dataclasses.replace(before, lease_seconds=7)
    assert after == SchedulerConfig.from_settings()


def test_the_configuration_is_frozen_and_typed(settings):
    with pytest.raises(dataclasses.FrozenInstanceError):
        scheduler_config().batch_size = 1  # type: ignore[misc]

    settings.SCHEDULER_TIMER = "false"  # a string would read as true: refused, not guessed
    with pytest.raises(TypeError, match="SCHEDULER_TIMER"):
        scheduler_config()
