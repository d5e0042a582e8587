"""Slots: at most `limit` holders of one named resource at once, across every process of the
deployment (the calls in flight to one platform from every worker on every machine).

- With Redis (REDIS_URL): a sorted set per name, its members the holders, scored by when their
  hold expires; one script takes a slot atomically after dropping expired holders, so a
  process that died holding one frees it when its hold (`hold_seconds`) runs out.
- Without Redis (the embedded deployment, one machine): `limit` lock files per name in the
  deployment's shared folder (RATE_LIMIT_FILE_DIR), taken with flock; the kernel frees a dead
  process's locks at once. A process opens each file once and never hands the same file to
  two of its threads (flock is per open file, so two threads on one file would both "hold" it).
- In-process only (no Redis, no shared folder: the test settings): a semaphore.

When the store is down a slot is granted (fail open, logged), as the rate limits do: a Redis
outage must not stop publishing. Waiting polls every few milliseconds with jitter; callers
bound the wait and decide what an unobtained slot means.
"""

import fcntl
import logging
import os
import random
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings
from redis.exceptions import RedisError

from core.redis import get_redis

logger = logging.getLogger(__name__)

POLL_SECONDS = (0.005, 0.025)  # between two tries while waiting for a slot (uniform jitter)

# KEYS[1]: the holders; ARGV: now (ms), the hold's end (ms), the limit, the holder's token.
_TAKE = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[3]) then
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
  redis.call('PEXPIREAT', KEYS[1], ARGV[2])
  return 1
end
return 0
"""


def _key(name: str) -> str:
    return f"{settings.RATE_LIMIT_KEY_PREFIX}:slots:{name}"


@contextmanager
def slot(name: str, *, limit: int, wait: float, hold_seconds: float) -> Iterator[bool]:
    """Hold one of `name`'s `limit` slots inside the block; yields whether one was obtained
    within `wait` seconds (False: the block runs without one, and should not do the work)."""
    if limit <= 0:
        yield True
        return
    store = _store()
    deadline = time.monotonic() + wait
    while (token := store.take(name, limit=limit, hold_seconds=hold_seconds)) is None:
        if time.monotonic() >= deadline:
            break
        time.sleep(random.uniform(*POLL_SECONDS))  # noqa: S311 (jitter, not security)
    try:
        yield token is not None
    finally:
        if token is not None:
            store.give_back(name, token)


class _RedisSlots:
    """Each store's `take` makes one try: a token, "" when granted uncounted (the store is
    down), or None when every slot is held; `slot()` waits between tries."""

    def take(self, name: str, *, limit: int, hold_seconds: float) -> str | None:
        token = uuid.uuid4().hex
        now_ms = int(time.time() * 1000)
        try:
            taken = get_redis().eval(
                _TAKE, 1, _key(name), now_ms, now_ms + int(hold_seconds * 1000), limit, token
            )
        except RedisError:
            logger.warning("Slots store unavailable: %s granted without counting", name)
            return ""
        return token if taken else None

    def give_back(self, name: str, token: str) -> None:
        if not token:
            return
        try:
            get_redis().zrem(_key(name), token)
        except RedisError:
            logger.warning("Slots store unavailable: %s is freed when its hold ends", name)


class _FileSlots:
    def __init__(self, folder: str) -> None:
        self.folder = Path(folder) / "slots"
        self.lock = threading.Lock()  # only while a name's files are opened
        # name -> per slot: its open lock file, and the lock that keeps it to one thread here.
        self.files: dict[str, list[tuple[int, threading.Lock]]] = {}

    def _files(self, name: str, limit: int) -> list[tuple[int, threading.Lock]]:
        files = self.files.get(name, [])
        if len(files) >= limit:
            return files
        with self.lock:
            files = self.files.setdefault(name, [])
            folder = self.folder / name
            folder.mkdir(parents=True, exist_ok=True)
            for index in range(len(files), limit):
                descriptor = os.open(folder / f"{index}.lock", os.O_RDWR | os.O_CREAT, 0o600)
                files.append((descriptor, threading.Lock()))
            return files

    def take(self, name: str, *, limit: int, hold_seconds: float) -> str | None:
        try:
            files = self._files(name, limit)
        except OSError:
            logger.warning("Slots folder unavailable: %s granted without counting", name)
            return ""
        for index in random.sample(range(limit), limit):
            descriptor, mine = files[index]
            if not mine.acquire(blocking=False):
                continue  # another thread of this process holds it
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                mine.release()  # another process holds it
                continue
            return str(index)
        return None

    def give_back(self, name: str, token: str) -> None:
        if not token:
            return
        descriptor, mine = self.files[name][int(token)]
        fcntl.flock(descriptor, fcntl.LOCK_UN)
        mine.release()


class _LocalSlots:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.held: dict[str, int] = {}

    def take(self, name: str, *, limit: int, hold_seconds: float) -> str | None:
        with self.lock:
            if self.held.get(name, 0) >= limit:
                return None
            self.held[name] = self.held.get(name, 0) + 1
            return "local"

    def give_back(self, name: str, token: str) -> None:
        with self.lock:
            self.held[name] -= 1


_stores: dict[str, "_RedisSlots | _FileSlots | _LocalSlots"] = {}
_stores_lock = threading.Lock()
# A forked worker process starts with no store of its own: open lock files inherited from its
# parent would be the parent's (flock belongs to the open file, shared across a fork).
os.register_at_fork(after_in_child=_stores.clear)


def _store() -> "_RedisSlots | _FileSlots | _LocalSlots":
    """The store for the current settings (tests change them), made once per process each."""
    where = (
        "redis"
        if settings.REDIS_URL
        else f"file:{settings.RATE_LIMIT_FILE_DIR}"
        if settings.RATE_LIMIT_FILE_DIR
        else "local"
    )
    with _stores_lock:
        if where not in _stores:
            _stores[where] = (
                _RedisSlots()
                if where == "redis"
                else _FileSlots(settings.RATE_LIMIT_FILE_DIR)
                if where.startswith("file:")
                else _LocalSlots()
            )
        return _stores[where]
