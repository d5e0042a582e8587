"""Slots shared by every process (core/slots.py): never more holders than the limit, on the
embedded lock files and on Redis; a dead holder's slot comes back."""

import multiprocessing
import threading
import time
from typing import Any

import pytest

from core import slots

HOLD = 0.3


def _hold_one(queue: Any, name: str, limit: int, settings_values: dict[str, str]) -> None:
    from django.conf import settings

    for key, value in settings_values.items():
        setattr(settings, key, value)
    with slots.slot(name, limit=limit, wait=10, hold_seconds=30) as held:
        started = time.monotonic()
        time.sleep(HOLD)
        queue.put((held, started, time.monotonic()))


def most_at_once(spans: list[tuple[float, float]]) -> int:
    moments = sorted([(start, 1) for start, _ in spans] + [(end, -1) for _, end in spans])
    current = peak = 0
    for _, step in moments:
        current += step
        peak = max(peak, current)
    return peak


def run_processes(count: int, name: str, limit: int, values: dict[str, str]) -> list[Any]:
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    workers = [context.Process(target=_hold_one, args=(queue, name, limit, values))
               for _ in range(count)]  # fmt: skip
    for worker in workers:
        worker.start()
    results = [queue.get(timeout=30) for _ in workers]
    for worker in workers:
        worker.join(10)
    return results


def test_processes_on_one_machine_share_the_lock_files(tmp_path, settings):
    values = {"REDIS_URL": "", "RATE_LIMIT_FILE_DIR": str(tmp_path)}
    results = run_processes(6, "provider:devto", 2, values)
    assert all(held for held, _, _ in results)
    assert most_at_once([(start, end) for _, start, end in results]) == 2


@pytest.mark.redis
def test_processes_anywhere_share_the_redis_set(redis_url, settings):
    values = {"REDIS_URL": redis_url, "RATE_LIMIT_KEY_PREFIX": f"test:{time.time_ns()}"}
    results = run_processes(6, "provider:devto", 2, values)
    assert all(held for held, _, _ in results)
    assert most_at_once([(start, end) for _, start, end in results]) == 2


def test_a_slot_not_free_in_time_is_refused_and_a_dead_holders_comes_back(tmp_path, settings):
    settings.REDIS_URL, settings.RATE_LIMIT_FILE_DIR = "", str(tmp_path)
    context = multiprocessing.get_context("fork")
    ready = context.Event()

    def hold_and_die() -> None:
        with slots.slot("provider:x", limit=1, wait=1, hold_seconds=30):
            ready.set()
            time.sleep(30)

    holder = context.Process(target=hold_and_die)
    holder.start()
    assert ready.wait(10)
    with slots.slot("provider:x", limit=1, wait=0.2, hold_seconds=30) as held:
        assert held is False
    holder.kill()  # the kernel frees its lock
    holder.join(10)
    with slots.slot("provider:x", limit=1, wait=1, hold_seconds=30) as held:
        assert held is True


def test_threads_of_one_process_never_share_a_lock_file(tmp_path, settings):
    settings.REDIS_URL, settings.RATE_LIMIT_FILE_DIR = "", str(tmp_path)
    with (
        slots.slot("p", limit=2, wait=0, hold_seconds=5) as first,
        slots.slot("p", limit=2, wait=0, hold_seconds=5) as second,
        slots.slot("p", limit=2, wait=0, hold_seconds=5) as third,
    ):
        assert (first, second, third) == (True, True, False)
    with slots.slot("p", limit=2, wait=0, hold_seconds=5) as again:
        assert again is True


@pytest.mark.redis
def test_a_busy_process_keeps_a_few_slots_between_its_calls_and_gives_them_all_back(
    redis_url, settings
):
    """A burst's calls reuse the slots the process already holds (a Redis round trip every few
    calls), never hold more than the limit, and the last call gives every kept one back."""
    import redis

    settings.REDIS_URL = redis_url
    settings.RATE_LIMIT_KEY_PREFIX = f"test:{time.time_ns()}"
    key = f"{settings.RATE_LIMIT_KEY_PREFIX}:slots:provider:burst"
    client = redis.Redis.from_url(redis_url)
    tokens: set[str] = set()
    with slots.slot("provider:burst", limit=3, wait=1, hold_seconds=30) as first:
        assert first
        for _ in range(20):
            with slots.slot("provider:burst", limit=3, wait=1, hold_seconds=30) as held:
                assert held
                assert client.zcard(key) <= 3
                tokens |= {str(member) for member in client.zrange(key, 0, -1)}
        # Two slots taken from Redis at once served the twenty calls.
        assert len(tokens) == 3
        # Another process still finds what this one does not keep.
        assert client.zcard(key) <= 1 + slots.SPARE_SLOTS
    assert client.zcard(key) == 0


@pytest.mark.redis
def test_a_process_running_n_calls_keeps_up_to_n_slots_and_reuses_them(redis_url, settings):
    """Calls that end together keep their slots for the next ones (`keep`): a burst's calls
    reuse a few dozen slots instead of taking each from Redis again."""
    import redis

    settings.REDIS_URL = redis_url
    settings.RATE_LIMIT_KEY_PREFIX = f"test:{time.time_ns()}"
    key = f"{settings.RATE_LIMIT_KEY_PREFIX}:slots:provider:wave"
    client = redis.Redis.from_url(redis_url)
    store = slots._store()
    used: list[str] = []
    give_back = store.give_back

    def recorded(name: str, token: str) -> None:
        used.append(token)
        give_back(name, token)

    store.give_back = recorded  # type: ignore[method-assign]
    calls, keep, start = 8, 8, threading.Barrier(8)  # keep: the calls, and the long one
    held_most = 0

    def caller() -> None:
        nonlocal held_most
        for _ in range(25):
            start.wait()  # the calls start and end in waves, as a burst's do
            with slots.slot("provider:wave", limit=20, wait=5, hold_seconds=30,
                            keep=keep + 1) as held:  # fmt: skip
                assert held
                held_most = max(held_most, client.zcard(key))
                time.sleep(0.002)

    try:
        # A call that runs throughout: the process is never idle, as during a burst.
        with slots.slot("provider:wave", limit=20, wait=5, hold_seconds=30, keep=keep + 1):
            threads = [threading.Thread(target=caller) for _ in range(calls)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
    finally:
        store.give_back = give_back  # type: ignore[method-assign]
    assert len(used) == calls * 25 + 1
    # Taken once, then reused (the first wave's calls each take one, a few more at once): not
    # a slot from Redis for most calls, as when at most SPARE_SLOTS were kept.
    assert len(set(used)) <= 2 * (keep + 1)
    assert held_most <= 2 * (keep + 1)
    assert client.zcard(key) == 0  # all given back when the last call ended


@pytest.mark.redis
def test_a_busy_process_takes_every_slot_it_may_keep_in_one_go(redis_url, settings):
    """A wave of calls on a process with calls in flight: one Redis round trip brings the slots
    its `keep` allows (not a few at a time), and the last call gives them all back."""
    import redis

    settings.REDIS_URL = redis_url
    settings.RATE_LIMIT_KEY_PREFIX = f"test:{time.time_ns()}"
    key = f"{settings.RATE_LIMIT_KEY_PREFIX}:slots:provider:wave"
    client = redis.Redis.from_url(redis_url)
    store = slots._store()
    assert isinstance(store, slots._RedisSlots)
    tries: list[int] = []
    take = store._take

    def counted(name: str, **options: Any) -> str | None:
        tries.append(options["wanted"])
        return take(name, **options)

    store._take = counted  # type: ignore[method-assign]
    try:
        with slots.slot("provider:wave", limit=50, wait=1, hold_seconds=30, keep=10):
            assert client.zcard(key) == 1  # an idle process takes the one it needs
            for _ in range(9):
                with slots.slot("provider:wave", limit=50, wait=1, hold_seconds=30, keep=10):
                    assert client.zcard(key) == 10
    finally:
        store._take = take  # type: ignore[method-assign]
    assert tries == [1, 9]  # two round trips for ten calls
    assert client.zcard(key) == 0
