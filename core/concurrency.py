"""One way to run blocking I/O side by side: `bounded()`.

Provider calls, webhook POSTs and token refreshes wait on the network; a batch of them runs on
a few threads instead of one after another. Every caller goes through here, so the number of
threads is always bounded by the caller's limit (a setting), never by the size of its batch.
The calls must not use the database: a worker thread holds no connection of the caller's
transaction, and results are written by the calling thread as they come in.
"""

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ALL_COMPLETED, FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


def bounded(
    call: Callable[[T], R], items: Sequence[T], *, limit: int, gather: float = 0.0
) -> Iterator[list[tuple[int, R]]]:
    """Call `call(item)` for each item, at most `limit` at once; yield the (index, result)
    pairs of the calls that ended, a group at a time (those that ended together, or within
    `gather` seconds of the first of them: fewer, larger groups for a caller that writes each
    group in one go), while the others are still running. An exception raised by a call is
    raised here."""
    if not items:
        return
    workers = max(1, min(limit, len(items)))
    if workers == 1:
        for index, item in enumerate(items):
            yield [(index, call(item))]
        return
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="bounded") as pool:
        running: dict[Future[R], int] = {
            pool.submit(call, item): index for index, item in enumerate(items)
        }
        pending = set(running)
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            if gather > 0 and pending:
                more, pending = wait(pending, timeout=gather, return_when=ALL_COMPLETED)
                done |= more
            yield sorted(((running[future], future.result()) for future in done), key=_first)


def bounded_map(call: Callable[[T], R], items: Sequence[T], *, limit: int) -> list[R]:
    """`bounded()` for callers that need every result, in the items' order."""
    results: dict[int, R] = {}
    for ended in bounded(call, items, limit=limit):
        results.update(ended)
    return [results[index] for index in range(len(items))]


def _first(pair: tuple[int, object]) -> int:
    return pair[0]
