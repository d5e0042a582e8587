"""Latency bench: GET /api/health against a bare Django view, both on the real server.

Usage: python -m bench.health [--requests N] [--concurrency C] [--workers W]

Uses a throwaway SQLite file unless DATABASE_URL is set, and Redis only if REDIS_URL is set.
Exits non-zero on errors (a non-200 answer, a server that does not start), never on a missed
latency target.
"""

import argparse
import json
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

from bench import harness
from bench.harness import REPO_ROOT, SETTINGS_MODULE, BenchError, RunResult, run

NAME = "health"
HEALTH_URL = "/api/health"
BARE_URL = "/bench/bare"
WARMUP_REQUESTS = 200
SUBPROCESS_TIMEOUT_SECONDS = 300.0

TARGET_HEALTH_P50_MS = 5.0
TARGET_HEALTH_TO_BARE_P50 = 1.5
TARGET_HEALTH_TO_BARE_RPS = 0.67

# Prints the settings the server will really run with (a .env file may add to the environment).
SETTINGS_PROBE = """
import json
import django
from django.conf import settings

django.setup()
print(json.dumps({
    "engine": settings.DATABASES["default"]["ENGINE"],
    "cache": settings.CACHES["default"]["BACKEND"],
    "redis": bool(settings.REDIS_URL),
}))
"""


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = harness.parser(NAME, __doc__, requests=(2000, "per URL"),
                            concurrency=(4, "client threads"),
                            workers=(2, "server processes"))  # fmt: skip
    args = parser.parse_args(argv)
    if args.requests < 2:
        parser.error("--requests must be at least 2 (percentiles need two samples)")
    if args.concurrency < 1 or args.workers < 1:
        parser.error("--concurrency and --workers must be at least 1")
    if args.concurrency > args.requests:
        parser.error("--concurrency must not exceed --requests")
    return args


def python(env: dict[str, str], what: str, *args: str) -> str:
    """Runs Python from the repository root in `env`; its output (`what` failed: an error)."""
    completed = subprocess.run(
        [sys.executable, *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=SUBPROCESS_TIMEOUT_SECONDS,
        check=False,
    )
    if completed.returncode != 0:
        raise BenchError(f"{what} failed:\n{completed.stderr}")
    return completed.stdout


def report(results: list[RunResult], settings: dict[str, Any], args: argparse.Namespace) -> None:
    redis = "yes (cache and rate limit)" if settings["redis"] else "no (local-memory cache)"
    print(f"database engine: {settings['engine']}")
    print(f"redis used:      {redis}")
    print(f"server:          config.serve, {args.workers} processes")
    print(f"client:          {args.concurrency} threads, each on one kept-alive connection")
    print()
    print(
        f"{'URL':<14}{'requests':>9}{'rps':>9}{'p50 ms':>9}{'p90 ms':>9}{'p99 ms':>9}{'conns':>7}"
    )
    for result in results:
        print(
            f"{result.url:<14}{result.requests:>9}{result.rps:>9.0f}"
            f"{result.percentile_ms(50):>9.2f}{result.percentile_ms(90):>9.2f}"
            f"{result.percentile_ms(99):>9.2f}{result.connections:>7}"
        )
    health, bare = results
    p50_ratio = health.percentile_ms(50) / bare.percentile_ms(50)
    p99_ratio = health.percentile_ms(99) / bare.percentile_ms(99)
    print()
    print(
        f"health/bare: p50 {p50_ratio:.2f}x, p99 {p99_ratio:.2f}x, rps {health.rps / bare.rps:.2f}x"
    )
    health_p50 = health.percentile_ms(50)
    absolute = "met" if health_p50 < TARGET_HEALTH_P50_MS else "MISSED"
    relative = "met" if p50_ratio <= TARGET_HEALTH_TO_BARE_P50 else "MISSED"
    print(f"target health p50 < {TARGET_HEALTH_P50_MS:g} ms: {absolute} ({health_p50:.2f} ms)")
    print(
        f"target health p50 within {TARGET_HEALTH_TO_BARE_P50:g}x of bare p50: "
        f"{relative} ({p50_ratio:.2f}x)"
    )
    rps_ratio = health.rps / bare.rps
    throughput = "met" if rps_ratio >= TARGET_HEALTH_TO_BARE_RPS else "MISSED"
    print(
        f"target health throughput >= {TARGET_HEALTH_TO_BARE_RPS:g}x of bare: "
        f"{throughput} ({rps_ratio:.2f}x)"
    )


def measure(bench: harness.Bench) -> int:
    args = bench.args
    env = harness.server_env()
    if not env.get("DATABASE_URL"):  # the bench brings its own SQLite database
        env["DATABASE_URL"] = f"sqlite:///{bench.tmp / 'bench.sqlite3'}"
        python(env, "manage.py migrate", "manage.py", "migrate", "--noinput", "-v", "0")
    probe = python(env, f"loading {SETTINGS_MODULE}", "-c", SETTINGS_PROBE)
    settings: dict[str, Any] = json.loads(probe.strip().splitlines()[-1])
    with bench.serving(args.workers, env) as server:
        for url in (HEALTH_URL, BARE_URL):
            run(server.port, url, max(WARMUP_REQUESTS, args.concurrency), args.concurrency)
        results = [
            run(server.port, url, args.requests, args.concurrency) for url in (HEALTH_URL, BARE_URL)
        ]
    report(results, settings, args)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return harness.main(NAME, parse_args, measure, argv)


if __name__ == "__main__":
    sys.exit(main())
