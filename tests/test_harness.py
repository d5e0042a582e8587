"""The one harness (tests/harness.py): its webhook receiver, and stopping what a command
started with it."""

import json
import os
import sys
import time
import urllib.error
import urllib.request

import pytest

from tests.harness import Receiver, spawn, stop


def post(url: str, body: dict[str, str]) -> int:
    data = json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method="POST")  # noqa: S310 (loopback)
    try:
        with urllib.request.urlopen(request, timeout=5) as response:  # noqa: S310
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


def test_the_receiver_keeps_what_it_accepted_and_nothing_while_offline():
    receiver = Receiver()
    try:
        assert post(receiver.url, {"event": "post.published"}) == 200
        receiver.offline = True
        assert post(receiver.url, {"event": "post.failed"}) == 503
        assert receiver.events() == ["post.published"]
        assert receiver.wait(lambda payload: payload["event"] == "post.failed", 0.2) is None
    finally:
        receiver.close()


@pytest.mark.server
def test_stopping_a_command_stops_what_it_started(tmp_path):
    pid_file = tmp_path / "child.pid"
    child = f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(60)"
    command = spawn(["sh", "-c", f'"{sys.executable}" -c "{child}" & wait'], dict(os.environ))
    deadline = time.monotonic() + 10
    while not pid_file.exists() or not pid_file.read_text():
        assert time.monotonic() < deadline, "the command's child did not start"
        time.sleep(0.05)

    stop(command, 5, whole_group=True)

    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while running(pid):
        assert time.monotonic() < deadline, "the command's child outlived it"
        time.sleep(0.05)


def running(pid: int) -> bool:
    """Whether `pid` runs (a zombie, dead but not yet reaped by its new parent, does not)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
