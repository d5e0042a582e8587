"""The scheduler's tuning, in one typed and frozen `SchedulerConfig` (docs/social.md,
"Configuration"); every module of the scheduler reads `scheduler_config()`, none a setting or a
constant of its own.

Each field is the Django setting `SCHEDULER_<FIELD>`:

- the first nine are read from the environment in `config/settings/base.py`, under the same
  names (`.env.example`, docs/social.md's table; their names and defaults are a contract);
- the others have no environment variable: their value is the default below, chosen by
  measurement (docs/performance.md); a settings module (or a test) may set the setting to
  change one.

`scheduler_config()` is built once from the settings and built again when a `SCHEDULER_*`
setting changes (Django's `setting_changed`: `override_settings`, pytest-django's `settings`).
It sits below social's four sub-domains (pyproject.toml's layers) because connections, below
publishing, run their calls side by side at the scheduler's `concurrency` too.
"""

import dataclasses
import functools
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver

PREFIX = "SCHEDULER_"


@dataclass(frozen=True, slots=True)
class SchedulerConfig:
    # From the environment (config/settings/base.py).
    interval_seconds: float  # beat's periodic run, the safety net (0: off, cron calls the API)
    timer: bool  # the timer in every worker process attempts each record at its time
    tick_seconds: float  # the longest the timer sleeps before looking again
    batch_size: int  # records one periodic run claims
    concurrency: int  # provider calls in flight per process (connections' side-by-side calls too)
    lease_seconds: int  # a claimed record not settled by then is reclaimed
    retry_base_seconds: int  # the first retry's delay; it doubles with each attempt
    provider_concurrency: int  # calls in flight to one platform from every process (0: no limit)
    provider_wait_seconds: float  # the wait for such a slot before the record is deferred

    # Tuned here (a Django setting of the same name overrides one; no environment variable).
    max_attempts: int = 3  # attempts per record (social.md section 5)
    defer_seconds: float = 1.0  # a record without a platform slot waits 1-2 times this (jitter)
    settle_batch: int = 100  # results written in one transaction at most
    # Results are written together: once this many have ended, or the oldest of them has waited
    # settle_within_seconds, or no call is left running. A burst's results then settle in
    # transactions of 64 (a dozen statements each, whatever their size), not of the few that
    # ended in the same moment: fewer statements a record (docs/performance.md), and each
    # statement keeps the timer waiting while the call threads share its interpreter.
    settle_at_least: int = 64
    settle_within_seconds: float = 0.2
    settle_gather_seconds: float = 0.01  # calls that end this close together are one group
    settle_tick_seconds: float = 0.05  # how often results held back are looked at
    # The timer claims its next records once those not ended fit this many rounds of its
    # calls (core.concurrency.bounded's `ahead`): with one, a burst's calls often ran dry while
    # the timer wrote a batch of results (docs/performance.md).
    ahead_rounds: int = 2
    timer_min_sleep_seconds: float = 0.02  # never spin: a record another process holds goes soon
    timer_error_pause_seconds: float = 1.0  # after a failed pass (the database restarting, say)
    # The timer's first look waits this long: a Celery pool process starts its timer from the
    # signal that also has Celery's Django fixup close the database pool inherited from the
    # parent; a timer that took a connection from that pool first found it closed ("the pool is
    # closed"), or waited 10 s for a connection the parent's pool threads, absent after the
    # fork, never gave.
    timer_startup_delay_seconds: float = 1.0
    timer_reap_every_seconds: float = 5.0  # each timer looks for expired leases this often

    @property
    def timer_batch(self) -> int:
        """Records one timer claims at a time: enough to keep its provider calls busy, few
        enough that the records due at one moment are shared among every worker process."""
        return max(1, min(self.batch_size, 2 * self.concurrency))

    @classmethod
    def from_settings(cls, source: Any = settings) -> "SchedulerConfig":
        """The configuration `source`'s settings make; a setting the environment does not feed
        keeps the field's default unless `source` sets it."""
        values: dict[str, Any] = {}
        for field in dataclasses.fields(cls):
            name = PREFIX + field.name.upper()
            if field.default is dataclasses.MISSING:
                value = getattr(source, name)  # in config/settings/base.py: always there
            else:
                value = getattr(source, name, field.default)
            values[field.name] = _typed(field.type, value, name)
        return cls(**values)


def _typed(kind: Any, value: Any, name: str) -> Any:
    if kind is bool:
        if not isinstance(value, bool):
            raise TypeError(f"{name} must be True or False, not {value!r}")
        return value
    return kind(value)  # int or float: 3600 or "0.5" in a test's override are fine


@functools.cache
def scheduler_config() -> SchedulerConfig:
    """The scheduler's configuration for the current settings."""
    return SchedulerConfig.from_settings()


@receiver(setting_changed)
def _settings_changed(*, setting: str, **kwargs: Any) -> None:
    if setting.startswith(PREFIX):
        scheduler_config.cache_clear()
