"""Latency bench: GET /api/health against a bare Django view, and the cost of metrics: health
and the notifications' first page on a server recording metrics beside one that does not,
side by side in one run, and the time of a /metrics scrape with every family populated.

Usage: python -m bench.health [--requests N] [--concurrency C] [--workers W] [--rounds R]
           [--notifications N] [--scrapes S] [--noise]

Uses a throwaway SQLite file unless DATABASE_URL is set; with DATABASE_URL (PostgreSQL) it
creates a throwaway database there and drops it at the end. Redis only if REDIS_URL is set.
Two servers run at once (config.serve, bench.settings, the same database): one with
METRICS_TOKEN set (metrics recorded), one without; the rounds alternate between them, so that
both meet the same machine. Before the scrapes, processes standing in for workers and web
processes record a sample of every family under every label a busy deployment has (every
route template, platform, outcome, tool). Exits non-zero on errors (a non-200 answer, a
server that does not start), never on a missed latency target.
"""

import argparse
import collections
import json
import multiprocessing
import os
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from bench import harness
from bench.harness import ROOT, SETTINGS_MODULE, BenchError, RunResult, run, verdict

NAME = "health"
DATABASE_PREFIX = "fgp_bench_health_"
HEALTH_URL = "/api/health"
BARE_URL = "/bench/bare"
PAGE_URL = "/api/notifications?page=1&limit=20"
METRICS_URL = "/metrics"
METRICS_TOKEN = "bench-metrics-token-0123456789"  # noqa: S105 (a throwaway server's)
WARMUP_REQUESTS = 200
SUBPROCESS_TIMEOUT_SECONDS = 300.0
RECORDING_PROCESSES = 4  # stand-ins for 2 worker processes and 2 web processes

TARGET_HEALTH_P50_MS = 5.0
TARGET_HEALTH_TO_BARE_P50 = 1.5
TARGET_HEALTH_TO_BARE_RPS = 0.67
TARGET_METRICS_ON_TO_OFF_P50 = 1.05  # metrics on: p50 within +5 % of off
TARGET_SCRAPE_P50_MS = 50.0

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
    parser = harness.parser(NAME, __doc__, requests=(2000, "per URL and server"),
                            concurrency=(4, "client threads"),
                            workers=(2, "server processes"),
                            rounds=(4, "alternations between the servers"),
                            notifications=(200, "the bench user's notifications"),
                            scrapes=(50, "GETs of /metrics"))  # fmt: skip
    parser.add_argument(
        "--noise",
        action="store_true",
        help="both servers without metrics: the machine's noise floor (A/A)",
    )
    args = parser.parse_args(argv)
    if args.requests < 2 * args.rounds:
        parser.error("--requests must be at least twice --rounds (percentiles need samples)")
    if min(args.concurrency, args.workers, args.rounds, args.scrapes) < 1:
        parser.error("--concurrency, --workers, --rounds and --scrapes must be at least 1")
    if args.concurrency > args.requests // args.rounds:
        parser.error("--concurrency must not exceed a round's requests")
    return args


def python(env: dict[str, str], what: str, *args: str) -> str:
    """Runs Python from the repository root in `env`; its output (`what` failed: an error)."""
    completed = subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=SUBPROCESS_TIMEOUT_SECONDS,
        check=False,
    )
    if completed.returncode != 0:
        raise BenchError(f"{what} failed:\n{completed.stderr}")
    return completed.stdout


@contextmanager
def database(bench: harness.Bench) -> Iterator[str]:
    """A throwaway PostgreSQL database on DATABASE_URL's server, else a SQLite file."""
    if os.environ.get("DATABASE_URL"):
        with harness.throwaway_database(DATABASE_PREFIX) as url:
            yield url
    else:
        yield f"sqlite:///{bench.tmp / 'bench.sqlite3'}"


def fill(count: int) -> str:
    """The bench user and `count` notifications, in this process (migrated); their token."""
    from accounts.services.sessions import session_issue
    from notifications.services.center import notify

    (user,) = harness.users_create("bench-health", 1)
    for index in range(count):
        notify(user=user, type="system_alert", title=f"Title {index}", message=f"Message {index}")
    return str(session_issue(user=user).token)


def merge(results: list[RunResult]) -> RunResult:
    """Several rounds of one URL on one server as one result."""
    return RunResult(
        url=results[0].url,
        latencies=[latency for result in results for latency in result.latencies],
        statuses=sum((result.statuses for result in results), collections.Counter()),
        elapsed=sum(result.elapsed for result in results),
        connections=sum(result.connections for result in results),
    )


def route_templates() -> list[str]:
    """Every route template of the project, as the metrics name them."""
    from django.urls import URLPattern, URLResolver, get_resolver

    def walk(patterns: list[Any], prefix: str) -> Iterator[str]:
        for pattern in patterns:
            route = prefix + str(pattern.pattern)
            if isinstance(pattern, URLResolver):
                yield from walk(list(pattern.url_patterns), route)
            elif isinstance(pattern, URLPattern):
                yield "/" + route.removeprefix("^").removesuffix("$")

    return sorted(set(walk(get_resolver().url_patterns, "")))


def populate(folder: str, routes: list[str]) -> None:
    """One recording process: a sample of every family under every label it can carry."""
    from django.conf import settings

    from core import metrics

    os.environ[metrics.ENV] = folder
    settings.METRICS_TOKEN = METRICS_TOKEN  # this process records, as the servers' do
    metrics._decided, metrics._families = False, None
    from social.networks import NETWORKS

    platforms = list(NETWORKS)
    clients = [*platforms, "meta", "meta-oauth", "ai-provider", "webhooks", "media"]
    for route in routes:
        for method, status in (("GET", 200), ("GET", 404), ("POST", 200), ("POST", 400)):
            metrics.http_request(route=route, method=method, status=status, seconds=0.004)
    outcomes = ("ok", "timeout", "unavailable", "unauthorized", "rejected", "refused")
    for client in clients:
        for operation in ("GET", "POST", "DELETE"):
            for outcome in outcomes:
                metrics.provider_call(provider=client, operation=operation, outcome=outcome,
                                      seconds=0.3)  # fmt: skip
    statuses = ("Published", "Scheduled", "Failed", "Unconfirmed", "Lost")
    metrics.scheduler_claimed((platform, 0.4) for platform in platforms)
    metrics.scheduler_attempted((p, status) for p in platforms for status in statuses)
    metrics.publish_ended(
        (p, outcome) for p in platforms for outcome in ("published", "failed", "unconfirmed")
    )
    metrics.webhook_delivered(["succeeded", "retry", "failed"])
    from aitools.tools import TOOLS

    for tool in TOOLS:
        for outcome in ("succeeded", "failed"):
            metrics.ai_generation_ended(tool=tool, outcome=outcome)
    metrics.livefeed_stream(opened=True)


def populated(metrics_dir: Path, routes: list[str]) -> list[int]:
    """RECORDING_PROCESSES processes record every family under the `worker` kind's folder;
    their process ids (they have ended)."""
    folder = metrics_dir / "worker"
    folder.mkdir(parents=True, exist_ok=True)
    context = multiprocessing.get_context("fork")
    processes = [
        context.Process(target=populate, args=(str(folder), routes))
        for _ in range(RECORDING_PROCESSES)
    ]
    for process in processes:
        process.start()
    for process in processes:
        process.join(60)
        if process.exitcode != 0:
            raise BenchError(f"a recording process failed (exit {process.exitcode})")
    return [process.pid for process in processes if process.pid is not None]


def report_latency(results: list[RunResult], title: str) -> None:
    print(title)
    print(
        f"{'URL':<38}{'requests':>9}{'rps':>9}{'p50 ms':>9}{'p90 ms':>9}{'p99 ms':>9}{'conns':>7}"
    )
    for result in results:
        print(
            f"{result.url:<38}{result.requests:>9}{result.rps:>9.0f}"
            f"{result.percentile_ms(50):>9.2f}{result.percentile_ms(90):>9.2f}"
            f"{result.percentile_ms(99):>9.2f}{result.connections:>7}"
        )
    print()


def report(
    settings: dict[str, Any],
    args: argparse.Namespace,
    bare_pair: list[RunResult],
    pairs: dict[str, tuple[RunResult, RunResult]],
    scrape: RunResult | None,
    scrape_size: tuple[int, int],
) -> None:
    redis = "yes (cache and rate limit)" if settings["redis"] else "no (local-memory cache)"
    print(f"database engine: {settings['engine']}")
    print(f"redis used:      {redis}")
    print(f"servers:         config.serve, {args.workers} processes each, metrics on and off")
    print(f"client:          {args.concurrency} threads, each on one kept-alive connection")
    print(f"rounds:          {args.rounds}, alternating between the two servers")
    print()
    report_latency(bare_pair, "health and a bare view (metrics off):")
    health, bare = bare_pair
    p50_ratio = health.percentile_ms(50) / bare.percentile_ms(50)
    rps_ratio = health.rps / bare.rps
    print(
        f"health/bare: p50 {p50_ratio:.2f}x, "
        f"p99 {health.percentile_ms(99) / bare.percentile_ms(99):.2f}x, rps {rps_ratio:.2f}x"
    )
    health_p50 = health.percentile_ms(50)
    print(f"target health p50 < {TARGET_HEALTH_P50_MS:g} ms: "
          f"{verdict(health_p50 < TARGET_HEALTH_P50_MS)} ({health_p50:.2f} ms)")  # fmt: skip
    print(f"target health p50 within {TARGET_HEALTH_TO_BARE_P50:g}x of bare p50: "
          f"{verdict(p50_ratio <= TARGET_HEALTH_TO_BARE_P50)} ({p50_ratio:.2f}x)")  # fmt: skip
    print(f"target health throughput >= {TARGET_HEALTH_TO_BARE_RPS:g}x of bare: "
          f"{verdict(rps_ratio >= TARGET_HEALTH_TO_BARE_RPS)} ({rps_ratio:.2f}x)")  # fmt: skip
    print()
    rows = []
    for url, (on, off) in pairs.items():
        names = ("A, no metrics", "B, no metrics") if args.noise else ("metrics on", "metrics off")
        rows += [relabel(on, f"{url} [{names[0]}]"), relabel(off, f"{url} [{names[1]}]")]
    report_latency(rows, "metrics on vs off (the same rounds, interleaved):")
    for url, (on, off) in pairs.items():
        ratio = on.percentile_ms(50) / off.percentile_ms(50)
        print(f"target {url} p50 with metrics within +5 % of without: "
              f"{verdict(ratio <= TARGET_METRICS_ON_TO_OFF_P50)} ({ratio:.3f}x, "
              f"p99 {on.percentile_ms(99) / off.percentile_ms(99):.3f}x)")  # fmt: skip
    print()
    if scrape is None:
        print("(--noise: both servers ran without metrics; the gaps above are the machine's)")
        return
    lines, size = scrape_size
    report_latency([scrape], f"GET /metrics, every family populated ({lines} lines, {size} bytes):")
    scrape_p50 = scrape.percentile_ms(50)
    print(f"target /metrics scrape p50 < {TARGET_SCRAPE_P50_MS:g} ms: "
          f"{verdict(scrape_p50 < TARGET_SCRAPE_P50_MS)} ({scrape_p50:.2f} ms, "
          f"p99 {scrape.percentile_ms(99):.2f} ms)")  # fmt: skip


def relabel(result: RunResult, url: str) -> RunResult:
    return RunResult(url=url, latencies=result.latencies, statuses=result.statuses,
                     elapsed=result.elapsed, connections=result.connections)  # fmt: skip


def scrape_size(port: int) -> tuple[int, int]:
    client = harness.Client(port, {"Authorization": f"Bearer {METRICS_TOKEN}"})
    try:
        status, body = client.get(METRICS_URL)
    finally:
        client.close()
    if status != 200 or b"fgp_scheduler_attempts_total" not in body:
        raise BenchError(f"GET {METRICS_URL} answered {status} without the families")
    return body.count(b"\n"), len(body)


def measure(bench: harness.Bench) -> int:
    args = bench.args
    with database(bench) as database_url:
        metrics_dir = bench.tmp / "metrics"
        harness.django_setup(DATABASE_URL=database_url, METRICS_TOKEN="", ACCESS_LOG="0")
        token = fill(args.notifications)
        routes = route_templates()
        base = harness.server_env(DATABASE_URL=database_url)
        probe = python(base, f"loading {SETTINGS_MODULE}", "-c", SETTINGS_PROBE)
        settings: dict[str, Any] = json.loads(probe.strip().splitlines()[-1])
        on_env = {**base, "METRICS_TOKEN": METRICS_TOKEN, "METRICS_DIR": str(metrics_dir)}
        off_env = {**base, "METRICS_TOKEN": ""}
        if args.noise:  # the "on" server records nothing either: any gap is the machine's
            on_env = {**on_env, "METRICS_TOKEN": ""}
        bearer = {"Authorization": f"Bearer {token}"}
        urls = [(HEALTH_URL, None), (PAGE_URL, bearer)]
        with ExitStack() as stack:
            on = stack.enter_context(bench.serving(args.workers, on_env))
            off = stack.enter_context(bench.serving(args.workers, off_env))
            warmup = max(WARMUP_REQUESTS, args.concurrency)
            for server in (on, off):
                for url, headers in [*urls, (BARE_URL, None)]:
                    run(server.port, url, warmup, args.concurrency, headers)
            per_round = args.requests // args.rounds
            rounds: dict[tuple[str, str], list[RunResult]] = {}
            for index in range(args.rounds):
                order = [("on", on), ("off", off)] if index % 2 == 0 else [("off", off), ("on", on)]
                for which, server in order:
                    for url, headers in urls:
                        rounds.setdefault((url, which), []).append(
                            run(server.port, url, per_round, args.concurrency, headers)
                        )
            bare_pair = [run(off.port, url, args.requests, args.concurrency)
                         for url in (HEALTH_URL, BARE_URL)]  # fmt: skip
            pairs = {url: (merge(rounds[(url, "on")]), merge(rounds[(url, "off")]))
                     for url, _ in urls}  # fmt: skip
            if args.noise:
                report(settings, args, bare_pair, pairs, None, (0, 0))
                return 0
            populated(metrics_dir, routes)
            size = scrape_size(on.port)
            scrape = run(on.port, METRICS_URL, args.scrapes, 1,
                         {"Authorization": f"Bearer {METRICS_TOKEN}"})  # fmt: skip
        report(settings, args, bare_pair, pairs, scrape, size)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return harness.main(NAME, parse_args, measure, argv)


if __name__ == "__main__":
    sys.exit(main())
