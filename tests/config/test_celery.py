"""Celery: JSON only, time limits, and a beat schedule whose every task exists."""

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
