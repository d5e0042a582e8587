"""core.metrics: the numbers of several processes added up as prometheus_client's own
collector adds them (the fast merge /metrics serves), a process's files where that collector
reads them from Django's start, and every recording function a no-op when off."""

import multiprocessing
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead
from prometheus_client.parser import text_string_to_metric_families

from core import metrics


def samples(text: str) -> list[tuple[str, tuple[tuple[str, str], ...], float]]:
    return sorted(
        (sample.name, tuple(sorted(sample.labels.items())), sample.value)
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    )


def record(folder: str, scale: float) -> None:
    """One process's numbers, of every kind of family, some labels with characters to escape."""
    os.environ[metrics.ENV] = folder
    metrics._decided, metrics._families = False, None
    metrics.http_request(route='/api/odd"route\\x', method="GET", status=200, seconds=0.02 * scale)
    metrics.http_request(route="/api/health", method="BREW", status=405, seconds=3.0)
    metrics.provider_call(provider="mastodon", operation="POST", outcome="ok", seconds=0.4)
    metrics.scheduler_claimed([("bluesky", 0.3 * scale), ("bluesky", 1000.0)])
    metrics.scheduler_attempted([("bluesky", "Published"), ("bluesky", "Scheduled")])
    metrics.webhook_delivered(["succeeded", "retry"])
    metrics.livefeed_stream(opened=True)


@pytest.mark.parametrize("processes", [1, 3])
def test_the_fast_merge_adds_up_as_the_client_does(settings, tmp_path, processes):
    settings.METRICS_DIR = str(tmp_path)
    folder = tmp_path / "worker"
    folder.mkdir()
    context = multiprocessing.get_context("fork")
    for index in range(processes):
        child = context.Process(target=record, args=(str(folder), index + 1))
        child.start()
        child.join(30)
        assert child.exitcode == 0
        mark_process_dead(child.pid, str(folder))  # type: ignore[no-untyped-call]
    registry = CollectorRegistry(auto_describe=False)
    MultiProcessCollector(registry, path=str(folder))  # type: ignore[no-untyped-call]
    expected = samples(generate_latest(registry).decode())
    assert samples(metrics.merged_text()) == expected
    assert samples(metrics.merged_text()) == expected  # again, from the remembered layout
    # Those processes have ended: their open streams are no more.
    assert [s for s in expected if s[0] == "fgp_livefeed_open_streams"] == []
    assert ("fgp_http_requests_total", (("method", "other"), ("route", "/api/health"),
            ("status", "405")), float(processes)) in expected  # fmt: skip


def test_off_records_nothing_and_imports_nothing(settings, monkeypatch, tmp_path):
    monkeypatch.setattr(metrics, "_decided", False)
    monkeypatch.setattr(metrics, "_families", None)
    settings.METRICS_TOKEN = ""
    settings.METRICS_DIR = str(tmp_path)
    metrics.http_request(route="/api/health", method="GET", status=200, seconds=0.001)
    metrics.process_prepared("web")
    assert metrics.families() is None
    assert list(tmp_path.iterdir()) == []


FRESH_PROCESS = """
import os

import django

django.setup()
from prometheus_client import Counter

Counter("fgp_probe", "A counter made after Django's start.", registry=None).inc()
folder = os.environ["PROMETHEUS_MULTIPROC_DIR"]
print(folder, sorted(name.split("_")[0] for name in os.listdir(folder)))
"""


@pytest.mark.server
def test_a_process_records_into_the_files_from_djangos_start():
    # No entry point prepared it (manage.py): its series go to the `other` kind's folder, in
    # files the library's collector reads, whatever imports prometheus_client after the start.
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test"}
    env.pop(metrics.ENV, None)
    done = subprocess.run([sys.executable, "-c", FRESH_PROCESS], env=env, capture_output=True,
                          text=True, timeout=120, check=False,
                          cwd=Path(__file__).resolve().parents[2])  # fmt: skip
    assert done.returncode == 0, done.stderr
    folder, files = done.stdout.split(" ", 1)
    shutil.rmtree(Path(folder).parent)  # the test settings' folder of that process
    assert Path(folder).name == "other"
    assert files.strip() == "['counter']"
