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
from typing import Any

from django.conf import settings
from redis.exceptions import RedisError

from core.redis import get_redis

logger = logging.getLogger(__name__)

POLL_SECONDS = (0.005, 0.025)  # between two tries while waiting for a slot (uniform jitter)

# KEYS[1]: the holders; ARGV: now (ms), the holds' end (ms), the limit, a token prefix, how
# many wanted. Takes as many as are free, up to that many (members prefix:1, prefix:2, ...).
_TAKE = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local taken = math.min(tonumber(ARGV[3]) - redis.call('ZCARD', KEYS[1]), tonumber(ARGV[5]))
for i = 1, taken do
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4] .. ':' .. i)
end
if taken > 0 then
  redis.call('PEXPIREAT', KEYS[1], ARGV[2])
end
return math.max(taken, 0)
"""

# How many slots a process keeps for its next calls unless the caller says (`keep`). A busy
# process takes from Redis, in one round trip, every slot it may keep beyond the one asked
# for, and keeps slots its calls gave back for its next ones (see _RedisSlots): a burst's
# calls to one platform then cost a Redis round trip only when a wave of them starts on an
# idle process, and none once the process holds what its calls need.
SPARE_SLOTS = 4


def _key(name: str) -> str:
    return f"{settings.RATE_LIMIT_KEY_PREFIX}:slots:{name}"


@contextmanager
def slot(
    name: str, *, limit: int, wait: float, hold_seconds: float, keep: int = SPARE_SLOTS
) -> Iterator[bool]:
    """Hold one of `name`'s `limit` slots inside the block; yields whether one was obtained
    within `wait` seconds (False: the block runs without one, and should not do the work).
    `keep`: how many of them this process may hold in all while it has calls under the name
    in flight (theirs and those kept for its next calls): a caller running N calls at once
    passes N."""
    if limit <= 0:
        yield True
        return
    store = _store()
    deadline = time.monotonic() + wait
    while (token := store.take(name, limit=limit, hold_seconds=hold_seconds, keep=keep)) is None:
        if time.monotonic() >= deadline:
            break
        time.sleep(random.uniform(*POLL_SECONDS))  # noqa: S311 (jitter, not security)
    try:
        yield token is not None
    finally:
        if token is not None:
            store.give_back(name, token)


class _RedisSlots:
    """Each store's `take` makes one try: a token, "" when granted uncounted (the store is down),
    or None when every slot is held; `slot()` waits between tries.

    While a process has calls in flight under a name, a slot it gives back is kept for its next
    call (while the process holds no more than the caller's `keep` in all, each only while its
    hold has more than half its time left), and a take from Redis while other calls are in
    flight (or being given their slots) takes at once every slot the process may still keep
    (those its other threads are taking counted); when its last call ends, every kept one goes
    back in one command. A burst's thousands of calls to one platform thus go to Redis only to
    take the slots their process needs and to renew them, not twice per call, and the limit
    still holds: a kept slot stays counted in Redis until it is given back or its hold ends.
    (With 4 kept at most, calls that ended together gave most of theirs back and the next ones
    took them again: a Redis round trip for most calls of a burst; with at most 4 more taken at
    once, a wave of calls starting on an idle process took a round trip for every few.)"""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.in_use: dict[str, int] = {}  # calls in flight, by name
        self.spare: dict[str, list[str]] = {}  # kept tokens, by name
        self.ends: dict[str, float] = {}  # each held token's hold end (monotonic)
        self.keep: dict[str, int] = {}  # slots held at most while busy, by name (the callers')
        self.coming: dict[str, int] = {}  # slots being taken from Redis now, by name
        self.script: Any = None

    def take(
        self, name: str, *, limit: int, hold_seconds: float, keep: int = SPARE_SLOTS
    ) -> str | None:
        now = time.monotonic()
        stale: list[str] = []
        with self.lock:
            spare = self.spare.setdefault(name, [])
            while spare:
                token = spare.pop()
                if self.ends.get(token, 0.0) - now > hold_seconds / 2:
                    self.in_use[name] = self.in_use.get(name, 0) + 1
                    return token
                stale.append(token)
            busy = self.in_use.get(name, 0)
            self.keep[name] = max(1, keep)
            # What it may keep beyond this one, counting the slots other threads of this
            # process are taking right now.
            coming = self.coming.get(name, 0)
            room = self.keep[name] - busy - coming - len(spare) - 1
            wanted = 1 + max(0, room) if busy or coming else 1
            self.coming[name] = coming + wanted
        self._release(name, stale)
        try:
            return self._take(name, limit=limit, hold_seconds=hold_seconds, wanted=wanted)
        finally:
            with self.lock:
                self.coming[name] -= wanted

    def _take(self, name: str, *, limit: int, hold_seconds: float, wanted: int) -> str | None:
        now = time.monotonic()
        prefix = uuid.uuid4().hex
        now_ms = int(time.time() * 1000)
        try:
            if self.script is None:
                self.script = get_redis().register_script(_TAKE)
            taken = int(
                self.script(
                    keys=[_key(name)],
                    args=[now_ms, now_ms + int(hold_seconds * 1000), limit, prefix, wanted],
                    client=get_redis(),
                )
            )
        except RedisError:
            logger.warning("Slots store unavailable: %s granted without counting", name)
            return ""
        if not taken:
            return None
        tokens = [f"{prefix}:{i}" for i in range(1, taken + 1)]
        with self.lock:
            self.in_use[name] = self.in_use.get(name, 0) + 1
            self.ends.update(dict.fromkeys(tokens, now + hold_seconds))
            self.spare.setdefault(name, []).extend(tokens[1:])
        return tokens[0]

    def give_back(self, name: str, token: str) -> None:
        if not token:
            return
        with self.lock:
            self.in_use[name] -= 1
            spare = self.spare.setdefault(name, [])
            if self.in_use[name] > 0 and self.in_use[name] + len(spare) < self.keep.get(name, 1):
                spare.append(token)  # for this process's next call under the name
                return
            returned = [token]
            if not self.in_use[name]:  # the last call ended: every kept one goes back too
                returned += spare
                spare.clear()
        self._release(name, returned)

    def _release(self, name: str, tokens: list[str]) -> None:
        if not tokens:
            return
        with self.lock:
            for token in tokens:
                self.ends.pop(token, None)
        try:
            get_redis().zrem(_key(name), *tokens)
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

    def take(
        self, name: str, *, limit: int, hold_seconds: float, keep: int = SPARE_SLOTS
    ) -> str | None:
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

    def take(
        self, name: str, *, limit: int, hold_seconds: float, keep: int = SPARE_SLOTS
    ) -> str | None:
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
