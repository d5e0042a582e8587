"""The embedded broker (config/broker.py): with concurrent writers and readers in separate
processes, every message is read exactly once, whole; processes starting together on a fresh
folder all bind their queues, none fails and no binding is lost."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.servers import ROOT

PRODUCER = """
import sys
from kombu import Connection
folder, name, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
options = {"data_folder_in": folder, "data_folder_out": folder,
           "processed_folder": folder + "-claimed", "control_folder": folder + "-control",
           "store_processed": False}
with Connection(transport="config.broker:Transport", transport_options=options) as conn:
    queue = conn.SimpleQueue("race")
    for n in range(count):
        queue.put({"id": f"{name}-{n}", "body": "x" * 2000})
"""

CONSUMER = """
import json, sys, time
from kombu import Connection
folder, seconds = sys.argv[1], float(sys.argv[2])
options = {"data_folder_in": folder, "data_folder_out": folder,
           "processed_folder": folder + "-claimed", "control_folder": folder + "-control",
           "store_processed": False, "polling_interval": 0.01}
seen = []
with Connection(transport="config.broker:Transport", transport_options=options) as conn:
    queue = conn.SimpleQueue("race")
    deadline = time.monotonic() + seconds
    idle_since = None
    while time.monotonic() < deadline:
        try:
            message = queue.get(block=True, timeout=0.2)
        except queue.Empty:
            idle_since = idle_since or time.monotonic()
            if time.monotonic() - idle_since > 3:
                break
            continue
        idle_since = None
        payload = message.payload
        assert payload["body"] == "x" * 2000, payload
        seen.append(payload["id"])
        message.ack()
print(json.dumps(seen))
"""


@pytest.mark.server
def test_concurrent_writers_and_readers_lose_and_repeat_nothing(tmp_path: Path):
    folder = str(tmp_path / "queue")
    Path(folder).mkdir()
    env = {"PYTHONPATH": str(ROOT)}
    run = [sys.executable, "-c"]
    consumers = [
        subprocess.Popen(
            [*run, CONSUMER, folder, "60"],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            env={**env, "PATH": "/usr/bin:/bin"},
        )
        for _ in range(2)
    ]
    producers = [
        subprocess.Popen(
            [*run, PRODUCER, folder, f"p{n}", "400"], cwd=ROOT, env={**env, "PATH": "/usr/bin:/bin"}
        )
        for n in range(4)
    ]
    for producer in producers:
        assert producer.wait(timeout=120) == 0
    seen: list[str] = []
    for consumer in consumers:
        out, _ = consumer.communicate(timeout=120)
        assert consumer.returncode == 0
        seen.extend(json.loads(out))
    assert len(seen) == len(set(seen)) == 1600
    assert set(seen) == {f"p{p}-{n}" for p in range(4) for n in range(400)}


BINDER = """
import sys, time
from kombu import Connection, Exchange, Queue
from config.broker import bindings_declared
folder, start = sys.argv[1], float(sys.argv[2])
options = {"data_folder_in": folder, "data_folder_out": folder,
           "processed_folder": folder + "-claimed", "control_folder": folder + "-control"}
queues = [Queue(f"q{n}", Exchange("celery", type="direct"), routing_key=f"q{n}")
          for n in range(3)]
with Connection(transport="config.broker:Transport", transport_options=options) as conn:
    while time.time() < start:  # every process binds at the same moment
        pass
    bindings_declared(conn, queues)
"""


@pytest.mark.server
def test_processes_starting_together_bind_without_failing_or_losing_a_binding(tmp_path: Path):
    import time

    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    for attempt in range(3):  # a fresh folder each time: the race is at the file's creation
        folder = tmp_path / f"queue{attempt}"
        folder.mkdir()
        start = str(time.time() + 2.0)
        binders = [
            subprocess.Popen(
                [sys.executable, "-c", BINDER, str(folder), start],
                cwd=ROOT,
                env=env,
                stderr=subprocess.PIPE,
            )
            for _ in range(8)
        ]
        for binder in binders:
            _, errors = binder.communicate(timeout=120)
            assert binder.returncode == 0, errors.decode()
        table = json.loads((tmp_path / f"queue{attempt}-control" / "celery.exchange").read_text())
        assert sorted(row[2] for row in table) == ["q0", "q1", "q2"]
