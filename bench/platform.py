"""The scheduler bench's platform: the test suite's Dev.to stand-in (tests/social/standins.py),
in a process of its own, as a real platform is, answering the platform side of a burst of
10,000 creates.

The stand-in is the one the tests use, with two of its parameters: `loop=True` serves every
connection on one asyncio loop instead of a thread each (the threaded server cost more CPU
per create than the scheduler that made it, so the bench measured its platform as much as our
code: docs/performance.md), and `key_prefix` makes each API key starting with KEY_PREFIX a
Dev.to user of its own, whose list holds its own articles only, as on the real platform (what
the adapter's lookup after a lost answer reads). A create's arrival is its call's
`received_at`.
"""

from typing import Any

from tests.social.standins import DevtoStandIn, serve

KEY_PREFIX = "bench-devto-"


def devto_process(latency: float, pipe: Any) -> None:
    """The platform, answering each call after `latency` seconds; its address goes out on
    `pipe` first, then it answers the bench's questions on it: "creates" -> [(text,
    received_at)] of every create so far."""
    platform = DevtoStandIn(name="devto", latency=latency, key_prefix=KEY_PREFIX)
    with serve(platform, loop=True):
        pipe.send(platform.url)
        while True:
            if pipe.recv() == "creates":
                pipe.send(creates(platform))


def creates(platform: DevtoStandIn) -> list[tuple[str, float]]:
    """Every create call so far (the bench's are all valid), as (body_markdown, received_at)."""
    with platform.lock:
        calls = list(platform.calls)
    return [
        (str((call.body.get("article") or {}).get("body_markdown", "")), call.received_at)
        for call in calls
        if (call.method, call.path) == ("POST", "/api/articles")
    ]
