"""Celery: JSON only, time limits, and a beat schedule whose every task exists."""

import os
from types import SimpleNamespace
from typing import Any

import pytest

from config.celery_app import app


def test_json_only_and_time_limits():
    assert app.conf.task_serializer == "json"
    assert app.conf.accept_content == ["json"]
    assert app.conf.task_time_limit == 300
    assert app.conf.task_soft_time_limit == 240
    assert app.conf.task_acks_late is False


def test_every_scheduled_task_is_registered():
    app.loader.import_default_modules()
    for entry in app.conf.beat_schedule.values():
        assert entry["task"] in app.tasks, entry["task"]


def test_without_redis_the_broker_needs_no_server(settings):
    from config.settings import base

    if not base.REDIS_URL:
        assert base.CELERY_BROKER_URL == "filesystem://localhost/"
        assert str(base.CELERY_BROKER_TRANSPORT_OPTIONS["data_folder_in"]).endswith("queue")
        # Even the broadcast folder stays under the ignored var/, not in the checkout's root.
        control = base.CELERY_BROKER_TRANSPORT_OPTIONS["control_folder"]
        assert str(control) == str(base.BASE_DIR / "var" / "celery" / "control")
    else:
        assert base.CELERY_BROKER_URL == base.REDIS_URL


def test_the_scheduler_runs_from_beat_at_its_interval(settings):
    entry = app.conf.beat_schedule["social-scheduler-run"]
    assert entry["task"] == "social.tasks.scheduler_run_task"
    assert entry["schedule"] == float(settings.SCHEDULER_INTERVAL_SECONDS)


def test_a_worker_keeps_its_connection_pool_across_tasks():
    """Celery's Django fixup would close every connection (and psycopg's whole pool) around
    each task; here it never reaches its closing, and each task hands its connection back the
    way a request does (close_old_connections around it)."""
    from celery import signals
    from celery.fixups.django import DjangoWorkerFixup  # type: ignore[attr-defined]

    from config.celery_app import _connections_handed_back

    fixup = DjangoWorkerFixup(app)
    assert fixup.db_reuse_max is not None
    assert fixup.db_reuse_max >= 2**31
    receivers = [ref() for _, ref in signals.task_postrun.receivers]
    assert _connections_handed_back in receivers
    assert _connections_handed_back in [ref() for _, ref in signals.task_prerun.receivers]


def test_webhook_deliveries_have_a_queue_of_their_own_and_the_workers_read_it():
    """Calls to hosts users chose never wait in, nor hold up, the queue every other task uses;
    `make run` and the compose stack each start a worker that reads it."""
    from pathlib import Path

    from notifications.tasks import webhook_deliver_task, webhook_sweep_task

    def queue_of(task: Any) -> str:
        return str(app.amqp.router.route({}, task.name)["queue"].name)

    assert queue_of(webhook_deliver_task) == "webhooks"
    assert queue_of(webhook_sweep_task) == "celery"  # database work only: the default queue
    root = Path(__file__).resolve().parents[2]
    assert "-Q webhooks" in (root / "scripts" / "run.sh").read_text()
    assert '"-Q", "webhooks"' in (root / "docker-compose.yml").read_text()


@pytest.mark.parametrize(("queues", "kind"), [({"webhooks"}, "webhooks"), ({"celery"}, "worker"),
                                              ({"celery", "webhooks"}, "worker")])  # fmt: skip
def test_the_two_workers_of_a_host_keep_their_numbers_apart(
    settings, tmp_path, monkeypatch, queues, kind
):
    """Each worker empties its kind's metrics folder when it starts: the deliveries' own
    worker has a folder of its own, or starting one would wipe the other's numbers."""
    from celery.app.amqp import Queues
    from kombu import Queue

    from config.celery_app import _metrics_of_workers
    from core import metrics

    settings.METRICS_TOKEN, settings.METRICS_DIR = "token", str(tmp_path)
    monkeypatch.setenv(metrics.ENV, str(tmp_path / "before"))  # put back after the test
    other = tmp_path / ("worker" if kind == "webhooks" else "webhooks")
    other.mkdir()
    (other / "counter_1.db").write_bytes(b"")
    selected = Queues([Queue("celery"), Queue("webhooks")])
    selected.select(queues)
    _metrics_of_workers(sender=SimpleNamespace(app=SimpleNamespace(amqp=SimpleNamespace(
        queues=selected))))  # fmt: skip
    assert os.environ[metrics.ENV] == str(tmp_path / kind)
    assert (other / "counter_1.db").exists()
