"""One way to run blocking I/O side by side: `bounded()`.

Provider calls, webhook POSTs and token refreshes wait on the network; a batch of them runs on
a few threads instead of one after another. Every caller goes through here, so the number of
threads is always bounded by the caller's limit (a setting), never by the size of its batch.
The calls must not use the database: a worker thread holds no connection of the caller's
transaction, and results are written by the calling thread as they come in. The calls run in
a copy of the caller's context (its request id, which their log lines carry). Nor may a call
run bounded() itself: every caller's calls share one pool of threads per process, and calls
waiting on calls could fill it.
"""

import contextvars
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from queue import Empty, SimpleQueue
from typing import Generic, TypeVar, cast

T = TypeVar("T")
R = TypeVar("R")

# The threads every caller's calls run on, made as they are first needed and then kept: a
# scheduler timer starts a batch of calls many times a second, and starting new threads for
# each batch was a visible part of its time (docs/performance.md). Each caller's own `limit` bounds
# its calls; this bounds them all in one process.
POOL_THREADS = 256
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _shared_pool() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=POOL_THREADS, thread_name_prefix="bounded")
        return _pool


def _forget_pool() -> None:
    """In a forked child (a Celery pool process): the parent's threads are not there."""
    global _pool, _pool_lock
    _pool, _pool_lock = None, threading.Lock()


os.register_at_fork(after_in_child=_forget_pool)


def bounded(
    call: Callable[[T], R],
    items: Sequence[T],
    *,
    limit: int,
    gather: float = 0.0,
    more: Callable[[], Sequence[T]] | None = None,
    ahead: int = 1,
    tick: float | None = None,
) -> Iterator[list[tuple[int, R]]]:
    """Call `call(item)` for each item, at most `limit` at once; yield the (index, result)
    pairs of the calls that ended, a group at a time (those that ended together, or within
    `gather` seconds of the first of them: fewer, larger groups for a caller that writes each
    group in one go), while the others are still running. An exception raised by a call is
    raised here, once the calls already running have ended (those not started are not).

    The calls run on up to `limit` lanes of the shared pool, each taking the next item as
    soon as its call ends: the next calls start while the caller is busy with the last
    group (the scheduler's timer writing results and claiming records for whole batches,
    during which short calls would otherwise all end and none start).

    `more`: asked, in the caller's thread, for further items whenever those not yet ended
    are no more than `ahead` rounds of the lanes (with 2: `limit` running, `limit` waiting),
    as a rule while calls are still running (a caller that keeps its calls busy: the
    scheduler's timer claims its next records a round ahead, so that lanes whose calls end
    while it writes results find the next ones waiting; its `ahead` is its configuration's,
    social/conf.py); their indexes follow the earlier ones'. Once it returns none it is not
    asked again.

    `tick`: when no call ends within that many seconds, an empty group is yielded, so that a
    caller holding results back (to write more of them at once) gets its turn."""
    queue = list(items)
    if not queue:
        return
    if more is None and max(1, min(limit, len(queue))) == 1:
        for index, item in enumerate(queue):
            yield [(index, call(item))]
        return
    lanes: _Lanes[T, R] = _Lanes(call, queue, max(1, limit))
    received = 0
    try:
        lanes.fill()
        while True:
            if more is not None and len(queue) - received <= ahead * lanes.limit:
                extra = more()
                if extra:
                    lanes.extend(extra)
                else:
                    more = None
            if received >= len(queue):  # every item is started, unless a call failed
                break
            first = lanes.next_ended(tick)
            if first is None:
                yield []  # `tick` passed with no call ended: the caller's turn
                continue
            group = [first]
            received += 1
            deadline = time.monotonic() + gather
            while received < len(queue):
                # Those ended meanwhile, and, within `gather`, those ending soon after.
                ended = lanes.next_ended(max(0.0, deadline - time.monotonic()))
                if ended is None:
                    break
                group.append(ended)
                received += 1
            failed = next((outcome for _, outcome in group if isinstance(outcome, _Failed)), None)
            if failed is not None:
                raise failed.error
            yield cast(list[tuple[int, R]], sorted(group, key=_first))  # no _Failed left
    finally:
        lanes.stop()  # once it returns, no item is started any more
        while received < lanes.started:  # the calls running end
            lanes.next_ended(None)
            received += 1


class _Failed:
    """A call's exception, as its lane hands it over."""

    __slots__ = ("error",)

    def __init__(self, error: BaseException) -> None:
        self.error = error


class _Lanes(Generic[T, R]):
    """bounded()'s calls: up to `limit` tasks of the shared pool, each running the queue's
    next item whenever its call ends, until none is left (or `stop()`)."""

    def __init__(self, call: Callable[[T], R], queue: list[T], limit: int) -> None:
        self.call, self.queue, self.limit = call, queue, limit
        self.lock = threading.Lock()
        self.ended: SimpleQueue[tuple[int, object]] = SimpleQueue()
        self.started = 0  # items taken by a lane (their results come through `ended`)
        self.active = 0  # lanes running or about to
        self.stopped = False

    def fill(self) -> None:
        """Start lanes for the items waiting, up to the limit."""
        with self.lock:
            added = max(0, min(self.limit - self.active, len(self.queue) - self.started))
            self.active += added
        pool = _shared_pool()
        for _ in range(added):
            # The caller's context goes with its calls (the request id their log lines carry);
            # a copy each, as one context cannot be entered by two threads at once.
            pool.submit(contextvars.copy_context().run, self._lane)

    def extend(self, items: Sequence[T]) -> None:
        with self.lock:
            self.queue.extend(items)
        self.fill()

    def stop(self) -> None:
        with self.lock:
            self.stopped = True

    def next_ended(self, timeout: float | None) -> tuple[int, object] | None:
        try:
            return self.ended.get(timeout=timeout)
        except Empty:
            return None

    def _lane(self) -> None:
        while True:
            with self.lock:
                if self.stopped or self.started >= len(self.queue):
                    self.active -= 1
                    return
                index = self.started
                self.started += 1
            try:
                result: object = self.call(self.queue[index])
            except BaseException as error:  # handed to the caller, who raises it
                result = _Failed(error)
                self.stop()  # no call starts after a failure
            self.ended.put((index, result))


def bounded_map(call: Callable[[T], R], items: Sequence[T], *, limit: int) -> list[R]:
    """`bounded()` for callers that need every result, in the items' order."""
    results: dict[int, R] = {}
    for ended in bounded(call, items, limit=limit):
        results.update(ended)
    return [results[index] for index in range(len(items))]


def _first(pair: tuple[int, object]) -> int:
    return pair[0]
