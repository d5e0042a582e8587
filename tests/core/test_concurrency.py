"""bounded(): every call once, at most `limit` at once, results in groups as they end."""

import threading
import time

import pytest

from core.concurrency import bounded, bounded_map


def test_results_come_in_groups_of_those_that_ended_together_or_within_gather():
    delays = [0.0, 0.01, 0.5]

    def call(delay: float) -> float:
        time.sleep(delay)
        return delay

    groups = list(bounded(call, delays, limit=3, gather=0.2))
    # The first two ended within 0.2 s of each other: one group; the slow one alone.
    assert groups == [[(0, 0.0), (1, 0.01)], [(2, 0.5)]]


def test_never_more_than_limit_at_once_and_every_result_in_order():
    lock, running, peak = threading.Lock(), [0], [0]

    def call(item: int) -> int:
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        time.sleep(0.01)
        with lock:
            running[0] -= 1
        return item * 2

    assert bounded_map(call, list(range(20)), limit=4) == [i * 2 for i in range(20)]
    assert peak[0] <= 4


def test_threads_are_kept_between_batches():
    """A timer starts many small batches a second: their calls run on threads kept from one
    batch to the next, not on new ones each time."""
    before = set(threading.enumerate())
    used: set[threading.Thread] = set()

    def call(item: int) -> int:
        used.add(threading.current_thread())
        time.sleep(0.001)
        return item

    for _ in range(20):
        assert bounded_map(call, list(range(4)), limit=4) == [0, 1, 2, 3]
    # 80 with new threads for each batch. A kept thread may not count as idle yet when the
    # next batch starts (it is, a moment after its call ends), so a few are added now and then.
    assert len(used - before) <= 20


def test_a_failing_call_is_raised_and_the_calls_not_started_are_not_made():
    made: list[int] = []

    def call(item: int) -> int:
        made.append(item)
        if item == 0:
            raise ValueError("refused")
        time.sleep(0.05)
        return item

    with pytest.raises(ValueError, match="refused"):
        list(bounded(call, list(range(10)), limit=2))
    time.sleep(0.1)
    assert len(made) < 10


def test_more_items_are_asked_for_while_the_last_calls_run():
    """A caller that keeps its calls busy (the scheduler's timer claiming its next records):
    asked once every item so far has started, its items' indexes follow, and once it gives
    none it is not asked again."""
    batches = [[10, 11], [12], []]
    results: dict[int, int] = {}
    ended_when_asked: list[int] = []

    def call(item: int) -> int:
        time.sleep(0.05)
        return item

    def more() -> list[int]:
        ended_when_asked.append(len(results))
        return batches[len(ended_when_asked) - 1]

    for ended in bounded(call, [0, 1], limit=2, more=more):
        results.update(ended)
    assert results == {0: 0, 1: 1, 2: 10, 3: 11, 4: 12}
    assert len(ended_when_asked) == 3  # the third gave none: never asked a fourth time
    assert ended_when_asked[0] == 0  # asked while the first calls were still in flight


def test_a_tick_without_an_ended_call_yields_an_empty_group():
    """A caller holding results back gets its turn while a slow call runs."""

    def call(delay: float) -> float:
        time.sleep(delay)
        return delay

    groups = list(bounded(call, [0.0, 0.35], limit=2, tick=0.1))
    assert groups[0] == [(0, 0.0)]
    assert groups[-1] == [(1, 0.35)]
    assert [] in groups[1:-1]  # a tick passed with the slow call still running


def test_the_next_calls_start_while_the_caller_is_busy_with_a_group():
    """The timer writes a batch of results while its calls run: a call that ends makes way for
    the next item at once, not when the caller comes back for the next group."""
    started: dict[int, float] = {}

    def call(item: int) -> int:
        started[item] = time.monotonic()
        time.sleep(0.02)
        return item

    back: float | None = None
    results: dict[int, int] = {}
    for ended in bounded(call, list(range(6)), limit=2):
        results.update(ended)
        if back is None:
            time.sleep(0.3)  # the caller busy with its first group
            back = time.monotonic()
    assert results == {i: i for i in range(6)}
    assert back is not None
    assert all(started[item] < back for item in range(6))
