"""The stand-ins' two servers (tests/social/standins.py): the asyncio loop that serves the
scheduler bench's Dev.to (bench/platform.py) answers the adapter as the threaded server the
tests use does, and waits its latency without holding the calls after it."""

import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from core import outbound
from social.networks import NETWORKS
from social.providers.base import Attempt, Content, Credentials
from tests.social.standins import RECEIVED_PATH, DevtoStandIn, serve

CONTENT = Content(text="It shipped.", title="Launch day")


@pytest.mark.parametrize("loop", [False, True], ids=["threads", "loop"])
def test_devto_answers_the_adapter_alike_on_both_servers(settings, loop):
    adapter = NETWORKS["devto"].adapter
    ada, bob = Credentials("1", "bench-ada"), Credentials("2", "bench-bob")
    standin = DevtoStandIn(key_prefix="bench-")
    with serve(standin, loop=loop):
        settings.DEVTO_API_URL = f"{standin.url}/api"

        published = adapter.publish(ada, CONTENT, Attempt(key="r1"))
        assert adapter.lookup(ada, CONTENT, Attempt(key="r1")) == published
        assert adapter.lookup(bob, CONTENT, Attempt(key="r2")) is None  # each key its own list
        with pytest.raises(outbound.AuthenticationError):
            adapter.publish(Credentials("3", "devto-key-of-no-bench"), CONTENT, Attempt(key="r3"))
        standin.fail = "busy"
        with pytest.raises(outbound.TransientError):
            adapter.publish(ada, CONTENT, Attempt(key="r4"))
        received = requests.get(f"{standin.url}{RECEIVED_PATH}", timeout=5).json()

    [create, *_] = standin.received("POST", "/api/articles")
    assert create.body["article"]["title"] == "Launch day"
    assert create.headers["api-key"] == "bench-ada"
    assert [call["method"] for call in received] == ["POST", "GET", "GET", "POST", "POST"]
    assert standin.in_flight == 0


def test_the_loop_waits_each_calls_latency_side_by_side():
    standin = DevtoStandIn(latency=0.3)
    with serve(standin, loop=True), ThreadPoolExecutor(20) as pool:
        began = time.monotonic()
        answers = list(
            pool.map(
                lambda _: requests.get(f"{standin.url}/api/users/me", timeout=5).status_code,
                range(20),
            )
        )
        took = time.monotonic() - began

    assert answers == [401] * 20  # no key: refused, after the latency all the same
    assert 0.3 <= took < 2.0  # twenty answers of 0.3 s, not one after another (6 s)
