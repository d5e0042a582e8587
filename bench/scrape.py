"""Scrape bench: the /metrics merge at bench.health's cardinality, prometheus_client's own
multiprocess collector against core.metrics' fast merge, on the same files.

Usage: python -m bench.scrape [--scrapes S]

Needs no database or server. RECORDING_PROCESSES processes (bench.health's stand-ins for
workers and web processes) record every family under every label a busy deployment has; then
this process scrapes their files S times each way, in turn. The library's collector is what
/metrics would use if a scrape took at most LIBRARY_BAR_MS (docs/performance.md, "Why the
code is the way it is"); the fast merge reads the client's file format itself. Exits non-zero
when the two give different samples, never on a missed latency target.
"""

import argparse
import os
import sys
import time
from collections.abc import Callable, Sequence

from bench import harness
from bench.harness import SETTINGS_MODULE, BenchError, Summary, verdict

NAME = "scrape"
LIBRARY_BAR_MS = 250.0  # above it, /metrics keeps the fast merge


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    return harness.parser(NAME, __doc__, scrapes=(20, "scrapes each way")).parse_args(argv)


def timed_ms(scrape: Callable[[], object], scrapes: int) -> list[float]:
    times = []
    for _ in range(scrapes):
        started = time.perf_counter()
        scrape()
        times.append((time.perf_counter() - started) * 1000)
    return times


def samples(text: str) -> list[tuple[str, tuple[tuple[str, str], ...], float]]:
    from prometheus_client.parser import text_string_to_metric_families

    return sorted(
        (sample.name, tuple(sorted(sample.labels.items())), sample.value)
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    )


def measure(bench: harness.Bench) -> int:
    os.environ.update({"DJANGO_SETTINGS_MODULE": SETTINGS_MODULE, "METRICS_TOKEN": "",
                       "DATABASE_URL": f"sqlite:///{bench.tmp / 'unused.sqlite3'}"})  # fmt: skip
    import django

    django.setup()
    from django.conf import settings

    from bench.health import RECORDING_PROCESSES, populated, route_templates
    from core import metrics

    metrics_dir = bench.tmp / "metrics"
    settings.METRICS_DIR = str(metrics_dir)
    pids = populated(metrics_dir, route_templates())
    from prometheus_client import CollectorRegistry, generate_latest
    from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead

    folder = str(metrics_dir / "worker")
    for pid in pids:  # the recording processes have ended, as a server tells the library
        mark_process_dead(pid, folder)  # type: ignore[no-untyped-call]
    registry = CollectorRegistry(auto_describe=False)
    MultiProcessCollector(registry, path=folder)  # type: ignore[no-untyped-call]

    def library() -> bytes:
        return generate_latest(registry)

    started = time.perf_counter()
    fast = metrics.merged_text()
    first_ms = (time.perf_counter() - started) * 1000
    text = library().decode()
    if samples(fast) != samples(text):
        raise BenchError("the fast merge's samples differ from the library collector's")
    library_ms: list[float] = []
    fast_ms: list[float] = []
    for _ in range(bench.args.scrapes):  # in turn: both meet the same machine
        library_ms += timed_ms(library, 1)
        fast_ms += timed_ms(metrics.merged_text, 1)
    lib, ours = Summary.of(library_ms), Summary.of(fast_ms)
    print(f"files: {RECORDING_PROCESSES} processes, {text.count(chr(10))} lines, "
          f"{len(text.encode())} bytes; samples equal: yes")  # fmt: skip
    print(f"{'scrape':<40}{'p50 ms':>9}{'p90 ms':>9}{'p99 ms':>9}")
    for label, summary in (("prometheus_client MultiProcessCollector", lib),
                           ("core.metrics fast merge", ours)):  # fmt: skip
        print(f"{label:<40}{summary.p50:>9.1f}{summary.p90:>9.1f}{summary.p99:>9.1f}")
    print(f"fast merge, first scrape of a process (every key parsed): {first_ms:.1f} ms")
    print(f"library collector p50 <= {LIBRARY_BAR_MS:g} ms (else the fast merge stays): "
          f"{verdict(lib.p50 <= LIBRARY_BAR_MS)} ({lib.p50:.1f} ms)")  # fmt: skip
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return harness.main(NAME, parse_args, measure, argv)


if __name__ == "__main__":
    sys.exit(main())
