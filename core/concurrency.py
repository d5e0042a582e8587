"""One way to run blocking I/O side by side: `bounded()`.

Provider calls, webhook POSTs and token refreshes wait on the network; a batch of them runs on
a few threads instead of one after another. Every caller goes through here, so the number of
threads is always bounded by the caller's limit (a setting), never by the size of its batch.
The calls must not use the database: a worker thread holds no connection of the caller's
transaction, and results are written by the calling thread as they come in. Nor may a call
run bounded() itself: every caller's calls share one pool of threads per process, and calls
waiting on calls could fill it.
"""

import os
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ALL_COMPLETED, FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

# The threads every caller's calls run on, made as they are first needed and then kept: a
# scheduler timer starts a batch of calls many times a second, and starting new threads for
# each batch took a tenth of its time (bench/scheduler.py). Each caller's own `limit` bounds
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
    tick: float | None = None,
) -> Iterator[list[tuple[int, R]]]:
    """Call `call(item)` for each item, at most `limit` at once; yield the (index, result)
    pairs of the calls that ended, a group at a time (those that ended together, or within
    `gather` seconds of the first of them: fewer, larger groups for a caller that writes each
    group in one go), while the others are still running (the next ones start before a group
    is yielded). An exception raised by a call is raised here, once the calls already running
    have ended (those not started are not).

    `more`: asked, in the caller's thread, for further items whenever every item so far has
    been started while calls are still running (a caller that keeps its calls busy: the
    scheduler's timer claims its next records while the last ones are in flight); their
    indexes follow the earlier ones'. Once it returns none it is not asked again.

    `tick`: when no call ends within that many seconds, an empty group is yielded, so that a
    caller holding results back (to write more of them at once) gets its turn."""
    queue = list(items)
    if not queue:
        return
    if more is None and max(1, min(limit, len(queue))) == 1:
        for index, item in enumerate(queue):
            yield [(index, call(item))]
        return
    pool = _shared_pool()
    running: dict[Future[R], int] = {}
    started = 0

    def fill() -> set[Future[R]]:
        """Start calls up to the limit; the futures started."""
        nonlocal started
        new: set[Future[R]] = set()
        while started < len(queue) and len(running) < max(1, limit):
            future = pool.submit(call, queue[started])
            running[future] = started
            new.add(future)
            started += 1
        return new

    pending = fill()
    try:
        while pending:
            if more is not None and started == len(queue):
                extra = more()
                if extra:
                    queue.extend(extra)
                    pending |= fill()
                else:
                    more = None
            done, pending = wait(pending, timeout=tick, return_when=FIRST_COMPLETED)
            if not done:
                yield []  # `tick` passed with no call ended: the caller's turn
                continue
            if gather > 0 and pending:
                more_done, pending = wait(pending, timeout=gather, return_when=ALL_COMPLETED)
                done |= more_done
            ended = sorted(((running.pop(future), future.result()) for future in done), key=_first)
            pending |= fill()
            yield ended
    finally:
        for future in pending:
            future.cancel()
        wait(pending)


def bounded_map(call: Callable[[T], R], items: Sequence[T], *, limit: int) -> list[R]:
    """`bounded()` for callers that need every result, in the items' order."""
    results: dict[int, R] = {}
    for ended in bounded(call, items, limit=limit):
        results.update(ended)
    return [results[index] for index in range(len(items))]


def _first(pair: tuple[int, object]) -> int:
    return pair[0]
