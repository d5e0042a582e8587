"""Live feed bench: thousands of open streams on the real server, the delivery latency of one
user's events while they stay open, the server's memory, and health beside them.

Usage: DATABASE_URL=postgres://USER@HOST:PORT/DB REDIS_URL=redis://HOST:PORT/N
           python -m bench.livefeed [--streams N] [--users N] [--events N] [--workers W]

On a throwaway database of DATABASE_URL's PostgreSQL server (dropped at the end), with Redis
publish/subscribe as in production, it serves the API with config.serve (--workers
processes), then:

1. health p50/p99 from one client with no stream open;
2. opens --streams streams (--users users, a few streams each, Bearer tokens) from one asyncio
   client in this process, a few hundred at a time, and reports the server's memory (RSS of
   its processes) before and after;
3. --events times: a notification for one user, created here (another process than the
   server's, as the worker would), timed from the moment it is written to the moment each of
   that user's streams has its event: p50/p99;
4. health again with every stream open, and how many streams are still open.

Exits non-zero when a stream fails to open or an event is not delivered; never on a missed
target.
"""

import argparse
import asyncio
import os
import sys
import time
from collections.abc import Sequence
from typing import Any

from bench import harness
from bench.harness import HOST, BenchError, Summary, run, timed, verdict

NAME = "livefeed"
DATABASE_PREFIX = "fgp_bench_livefeed_"
TARGET_P99_MS = 100.0
OPEN_AT_ONCE = 200  # streams being opened together


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = harness.parser(NAME, __doc__, streams=2000, users=500, events=100, workers=2,
                            health_requests=1000)  # fmt: skip
    return parser.parse_args(argv)


def rss_mb(root: int) -> float:
    """Resident memory of a process and its children, in MB (from /proc)."""
    total = 0
    pids = [root]
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    if int(stat.read().rsplit(")", 1)[1].split()[1]) == root:
                        pids.append(int(entry))
            except (OSError, ValueError, IndexError):
                continue
    for pid in pids:
        try:
            with open(f"/proc/{pid}/status") as status:
                for line in status:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


class Streams:
    """The client side: open streams, each read by a task that notes when event ids arrive."""

    def __init__(self) -> None:
        self.arrivals: dict[int, list[float]] = {}  # event id -> arrival times
        self.open = 0
        self.tasks: list[asyncio.Task[None]] = []
        self.writers: list[asyncio.StreamWriter] = []

    async def connect(self, port: int, token: str) -> None:
        reader, writer = await asyncio.open_connection(HOST, port)
        writer.write(
            f"GET /api/events/stream HTTP/1.1\r\nHost: {HOST}\r\n"
            f"Authorization: Bearer {token}\r\nAccept: text/event-stream\r\n\r\n".encode()
        )
        await writer.drain()
        status = await asyncio.wait_for(reader.readline(), timeout=30)
        if b" 200 " not in status:
            raise BenchError(f"a stream did not open: {status!r}")
        while (await asyncio.wait_for(reader.readline(), timeout=30)) not in (b"\r\n", b""):
            pass
        self.writers.append(writer)
        self.open += 1
        self.tasks.append(asyncio.get_running_loop().create_task(self._read(reader)))

    async def _read(self, reader: asyncio.StreamReader) -> None:
        try:
            while line := await reader.readline():
                if line.startswith(b"id: "):
                    self.arrivals.setdefault(int(line[4:]), []).append(time.perf_counter())
        finally:
            self.open -= 1

    def close(self) -> None:
        for writer in self.writers:
            writer.close()
        for task in self.tasks:
            task.cancel()


def notify_timed(user: Any, index: int) -> tuple[int, float]:
    """A notification for `user`, written here; (its live event's id, when it was written)."""
    from django.db import connection

    from notifications.models import LiveEvent
    from notifications.services.center import notify

    began = time.perf_counter()
    notify(user=user, type="system_alert", title=f"Bench {index}", message="Live feed bench")
    event_id = LiveEvent.objects.filter(user=user).order_by("-id").values_list("id", flat=True)[0]
    connection.close()  # this thread's; the next call may run on another
    return int(event_id), began


async def measure_async(args: argparse.Namespace, port: int, tokens: list[str], target: Any,
                        server: Any) -> int:  # fmt: skip
    streams = Streams()
    before = rss_mb(server.pid)
    with timed(f"open {args.streams:,} streams"):
        for start in range(0, args.streams, OPEN_AT_ONCE):
            batch = range(start, min(args.streams, start + OPEN_AT_ONCE))
            await asyncio.gather(*(streams.connect(port, tokens[i % len(tokens)]) for i in batch))
    await asyncio.sleep(2)  # every listener subscribed, every stream settled
    after = rss_mb(server.pid)
    per_user = -(-args.streams // len(tokens))  # the target's streams: i % users == 0
    latencies: list[float] = []
    missing = 0
    for index in range(args.events):
        event_id, began = await asyncio.to_thread(notify_timed, target, index)
        deadline = time.perf_counter() + 5
        while len(streams.arrivals.get(event_id, [])) < per_user:
            if time.perf_counter() > deadline:
                missing += 1
                break
            await asyncio.sleep(0.001)
        else:
            latencies.append(max(streams.arrivals[event_id]) - began)
        await asyncio.sleep(0.02)
    loaded = await asyncio.to_thread(run, port, "/api/health", args.health_requests, 1)
    still_open = streams.open
    streams.close()

    delivery = Summary.of(latencies, scale=1000)
    print()
    print(f"streams: {args.streams:,} open over {len(tokens)} users ({per_user} each), "
          f"server {args.workers} processes, Redis publish/subscribe")  # fmt: skip
    print(f"  server memory (RSS, all processes): {before:.0f} MB before, {after:.0f} MB with "
          f"the streams open ({(after - before) * 1024 / max(1, args.streams):.1f} KB a "
          f"stream)")  # fmt: skip
    print(f"  delivery, written -> on every stream of the user: {len(latencies)}/{args.events}"
          f" events, p50 {delivery.p50:.1f} ms, p99 {delivery.p99:.1f} ms (goal p99 < "
          f"{TARGET_P99_MS:g} ms: {verdict(delivery.p99 < TARGET_P99_MS)})")  # fmt: skip
    print(f"  health with the streams open: p50 {loaded.percentile_ms(50):.2f} ms, p99 "
          f"{loaded.percentile_ms(99):.2f} ms; streams still open: {still_open:,}")  # fmt: skip
    return 1 if missing or still_open < args.streams else 0


def measure(bench: harness.Bench) -> int:
    args = bench.args
    bench.django_setup()
    from accounts.services.sessions import session_issue

    with timed(f"{args.users} users and their tokens"):
        users = harness.users_create("live", args.users)
        tokens = [session_issue(user=user).token for user in users]
    with bench.serving(args.workers) as server:
        run(server.port, "/api/health", 200, 1)  # warm-up
        idle = run(server.port, "/api/health", args.health_requests, 1)
        print(f"  health with no stream open: p50 {idle.percentile_ms(50):.2f} ms, p99 "
              f"{idle.percentile_ms(99):.2f} ms")  # fmt: skip
        return asyncio.run(measure_async(args, server.port, tokens, users[0], server.process))


def main(argv: Sequence[str] | None = None) -> int:
    return harness.main(
        NAME, parse_args, measure, argv, needs=["REDIS_URL"], database_prefix=DATABASE_PREFIX
    )


if __name__ == "__main__":
    sys.exit(main())
