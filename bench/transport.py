"""Transport bench: the CPU one outbound call costs the calling process (core/outbound.py).

Usage: python -m bench.transport [--calls N] [--threads 1,8] [--rounds R] [--compare FILE]

Needs no database or server of the project. A minimal HTTP/1.1 keep-alive server in a process
of its own (one asyncio loop) answers every POST with a small JSON 200 at once; this process
makes --calls calls through one `outbound.Client`, as a provider's adapter does (a JSON create
with an API key header, the answer's JSON read), from each number of threads in --threads, and
reports the process's CPU a call (time.process_time: every thread, the watchdog's included;
of it in the kernel, and the context switches a call, from getrusage),
the call threads' own (time.thread_time in each; the rest is the process's other threads, the
deadline watchdog's) and the wall time. --compare FILE loads another
implementation of core/outbound.py from FILE (an older commit's, kept outside the repository)
and runs the two in turn, round after round (--rounds), so both meet the same machine; the
figures are the median of the rounds. Exits non-zero on a failed call.
"""

import argparse
import asyncio
import importlib.util
import multiprocessing
import os
import resource
import statistics
import sys
import threading
import time
from collections.abc import Sequence
from types import ModuleType
from typing import Any

from bench import harness
from bench.harness import SETTINGS_MODULE, BenchError

NAME = "transport"
SELF = resource.RUSAGE_SELF
WARMUP_CALLS = 50  # a thread's first calls (its connection made) are not counted
# Each call's whole budget. Shorter than a provider's (20 s) so that, as in a worker busy for
# longer than that, the deadlines of earlier calls fall due while later ones run.
CALL_TIMEOUT_SECONDS = 1.0
ANSWER = b'{"id": 1234567, "url": "https://dev.to/bench/a-post-1234567", "published": true}'
HEAD = (
    b"HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-8\r\n"
    b"Cache-Control: no-store\r\nContent-Length: " + str(len(ANSWER)).encode() + b"\r\n\r\n"
)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = harness.parser(
        NAME, __doc__, calls=(5000, "calls per thread count and round"),
        rounds=(3, "rounds (each implementation in turn)"),
    )  # fmt: skip
    parser.add_argument("--threads", default="1,8", help="thread counts, comma-separated")
    parser.add_argument("--compare", default="", help="another core/outbound.py to run in turn")
    args = parser.parse_args(argv)
    args.threads = [int(n) for n in args.threads.split(",")]
    return args


# --- The server ---------------------------------------------------------------------------------


class _Answering(asyncio.Protocol):
    """Answers each whole request (head, then Content-Length bytes) with ANSWER, kept alive."""

    def connection_made(self, transport: Any) -> None:
        self.transport = transport
        self.buffer = b""

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while True:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            length = 0
            for line in self.buffer[:end].split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            if len(self.buffer) < end + 4 + length:
                return
            self.buffer = self.buffer[end + 4 + length :]
            self.transport.write(HEAD + ANSWER)


def _serve(pipe: Any) -> None:
    async def run() -> None:
        server = await asyncio.get_running_loop().create_server(_Answering, "127.0.0.1", 0)
        pipe.send(server.sockets[0].getsockname()[1])
        await server.serve_forever()

    asyncio.run(run())


# --- The calls ----------------------------------------------------------------------------------


def _load(path: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location("compared_outbound", path)
    if spec is None or spec.loader is None:
        raise BenchError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(client: Any, url: str, threads: int, calls: int) -> dict[str, float]:
    """`calls` calls over `threads` threads: CPU a call (process, call threads), wall time."""
    per_thread = calls // threads
    thread_cpu: list[float] = []
    failures: list[BaseException] = []
    start = threading.Barrier(threads + 1)
    done = threading.Barrier(threads + 1)
    body = {"article": {"title": "A post", "body_markdown": "Some text " * 20, "published": True}}
    headers = {"api-key": "bench-devto-key", "Accept": "application/vnd.forem.api-v1+json"}

    def call() -> None:
        answer = client.request(
            "POST", url, json=body, headers=headers, timeout=CALL_TIMEOUT_SECONDS
        )
        if answer.json()["id"] != 1234567:
            raise BenchError("a wrong answer")

    def worker() -> None:
        try:
            for _ in range(WARMUP_CALLS):
                call()
        except BaseException as error:
            failures.append(error)
        start.wait()
        began = time.thread_time()
        try:
            for _ in range(per_thread):
                call()
        except BaseException as error:
            failures.append(error)
        thread_cpu.append(time.thread_time() - began)
        done.wait()

    pool = [threading.Thread(target=worker, daemon=True) for _ in range(threads)]
    for thread in pool:
        thread.start()
    start.wait()
    cpu, wall, usage = time.process_time(), time.perf_counter(), resource.getrusage(SELF)
    done.wait()
    cpu, wall, after = (
        time.process_time() - cpu,
        time.perf_counter() - wall,
        resource.getrusage(SELF),
    )
    for thread in pool:
        thread.join()
    if failures:
        raise BenchError(f"{len(failures)} threads failed: {failures[0]!r}")
    made = per_thread * threads
    return {
        "process": cpu / made * 1e6,
        "threads": sum(thread_cpu) / made * 1e6,
        "wall": wall / made * 1e6,
        "system": (after.ru_stime - usage.ru_stime) / made * 1e6,
        "switches": (after.ru_nvcsw + after.ru_nivcsw - usage.ru_nvcsw - usage.ru_nivcsw) / made,
    }


def measure(bench: harness.Bench) -> int:
    os.environ.update({"DJANGO_SETTINGS_MODULE": SETTINGS_MODULE,
                       "DATABASE_URL": f"sqlite:///{bench.tmp / 'unused.sqlite3'}"})  # fmt: skip
    import django

    django.setup()
    from core import outbound

    args = bench.args
    parent, child = multiprocessing.Pipe()
    server = multiprocessing.get_context("spawn").Process(target=_serve, args=(child,), daemon=True)
    server.start()
    try:
        url = f"http://127.0.0.1:{parent.recv()}/api/articles"
        implementations = {"core/outbound.py": outbound}
        if args.compare:
            implementations[f"compared ({args.compare})"] = _load(args.compare)
        figures: dict[tuple[str, int], list[dict[str, float]]] = {}
        for _ in range(args.rounds):
            for label, module in implementations.items():
                for threads in args.threads:
                    # A new client each time, as each worker process has its own.
                    client = module.Client("bench", read_timeout=20.0)
                    figures.setdefault((label, threads), []).append(
                        _run(client, url, threads, args.calls)
                    )
        print(
            f"{args.calls} POSTs (small JSON both ways) a run; median of {args.rounds} runs, "
            "and the CPU of the best run (the one the machine's other work disturbed least)"
        )
        print(f"{'implementation':<32}{'threads':>8}{'CPU µs/call':>13}{'best':>8}"
              f"{'of it system':>14}{'call threads':>14}{'others':>8}{'switches/call':>15}"
              f"{'wall µs/call':>14}")  # fmt: skip
        for (label, threads), runs in figures.items():
            process, system, own, switches, wall = (
                statistics.median(run[key] for run in runs)
                for key in ("process", "system", "threads", "switches", "wall")
            )
            best = min(run["process"] for run in runs)
            print(f"{label[:32]:<32}{threads:>8}{process:>13.1f}{best:>8.1f}{system:>14.1f}"
                  f"{own:>14.1f}{process - own:>8.1f}{switches:>15.2f}{wall:>14.1f}")  # fmt: skip
        if args.compare:
            for threads in args.threads:
                ours, theirs = (
                    statistics.median(run["process"] for run in figures[(label, threads)])
                    for label in implementations
                )
                print(f"{threads} threads: core/outbound.py / compared = {ours / theirs:.2f} "
                      "(medians)")  # fmt: skip
    finally:
        server.terminate()
        server.join()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return harness.main(NAME, parse_args, measure, argv)


if __name__ == "__main__":
    sys.exit(main())
