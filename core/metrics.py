"""Prometheus metrics: the families every process records into, and the text `GET /metrics`
serves (docs/operations.md, "Metrics").

On only when METRICS_TOKEN is set (read once per process, at the first thing recorded): off,
every recording function returns at once and prometheus_client is never imported.

Every process of a deployment shares its numbers through the client's multiprocess mode:
each process writes its own small memory-mapped files, under METRICS_DIR in the folder of its
kind (`web`: config.serve and its worker processes; `worker`: a Celery worker and its pool
processes; `webhooks`: the worker of webhook deliveries' own queue; `other`: manage.py
commands such as `run_scheduler --loop`), and a scrape adds
them up. A kind's folder is emptied when that kind starts (`process_prepared`), before any of
its processes writes: a restarted server begins its counters at zero (Prometheus reads that
as a counter reset), and a stopped worker's numbers do not linger. Labels are bounded: route
templates, methods, providers, outcomes; never a raw path, a user or a URL.
"""

import contextlib
import glob
import json
import logging
import os
import re
import shutil
import struct
import sys
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings

logger = logging.getLogger(__name__)

KINDS = ("web", "worker", "webhooks", "other")
ENV = "PROMETHEUS_MULTIPROC_DIR"  # where prometheus_client writes this process's files
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})

# Buckets, in seconds: a request is fast, a provider call slow, lateness from none to minutes.
HTTP_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
CALL_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
LATENESS_BUCKETS = (0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 900.0)
_PID_FILE = re.compile(r"_(\d+)\.db$")

# The outcomes each counter knows (docs/operations.md, "Families"). With the platforms and tools
# the apps declare (`known`), their series are written at zero when a process makes its
# families: a scrape says "none happened" as 0, never by leaving a series out, so an alert can
# tell none from not scraped.
WEBHOOK_OUTCOMES = ("succeeded", "retry", "failed")
ATTEMPT_OUTCOMES = ("published", "scheduled", "failed", "unconfirmed", "lost")
PUBLISH_OUTCOMES = ("published", "failed", "unconfirmed")
GENERATION_OUTCOMES = ("succeeded", "failed")


class Families:
    """The recorded families (the ones read at scrape time live in health.metrics)."""

    def __init__(self) -> None:
        from prometheus_client import Counter, Gauge, Histogram

        # In no registry (registry=None): a scrape reads the files (merged_text), never the
        # client's registry, and a process may make its families again (tests, the bench).
        self.http_requests = Counter(
            "fgp_http_requests",
            "HTTP requests answered, by route template, method and status.",
            ["route", "method", "status"],
            registry=None,
        )
        self.http_duration = Histogram(
            "fgp_http_request_duration_seconds",
            "Time from the request reaching Django to its answer, by route template and method.",
            ["route", "method"],
            buckets=HTTP_BUCKETS,
            registry=None,
        )
        self.provider_calls = Counter(
            "fgp_provider_calls",
            "Calls out of the process (core.outbound), by client (a platform, ai-provider, "
            "webhooks, media), operation and outcome.",
            ["provider", "operation", "outcome"],
            registry=None,
        )
        self.provider_duration = Histogram(
            "fgp_provider_call_duration_seconds",
            "Time of one call out of the process, its whole answer read, by client and operation.",
            ["provider", "operation"],
            buckets=CALL_BUCKETS,
            registry=None,
        )
        self.scheduler_lateness = Histogram(
            "fgp_scheduler_lateness_seconds",
            "How long after its due time the scheduler claimed a record, by platform.",
            ["provider"],
            buckets=LATENESS_BUCKETS,
            registry=None,
        )
        self.scheduler_attempts = Counter(
            "fgp_scheduler_attempts",
            "The scheduler's publishing attempts, by platform and outcome (published, "
            "scheduled: waits for a retry or a free slot, failed, unconfirmed, lost: its lease "
            "was taken over).",
            ["provider", "outcome"],
            registry=None,
        )
        self.publish_outcomes = Counter(
            "fgp_publish_outcomes",
            "Records that ended (scheduled or published now), by platform and outcome "
            "(published, failed, unconfirmed).",
            ["provider", "outcome"],
            registry=None,
        )
        self.webhook_deliveries = Counter(
            "fgp_webhook_deliveries",
            "Webhook delivery attempts, by outcome (succeeded, retry, failed).",
            ["outcome"],
            registry=None,
        )
        self.ai_generations = Counter(
            "fgp_ai_generations",
            "AI generations that ended, by tool and outcome (succeeded, failed).",
            ["tool", "outcome"],
            registry=None,
        )
        self.livefeed_streams = Gauge(
            "fgp_livefeed_open_streams",
            "Live-feed streams open now, over the running server processes.",
            multiprocess_mode="livesum",
            registry=None,
        )

    def zeroed(self, *, platforms: Iterable[str], tools: Iterable[str]) -> None:
        """Every series whose labels are known before anything happens, at zero (labels()
        writes a new series' entry at 0 into this process's file)."""
        for outcome in WEBHOOK_OUTCOMES:
            self.webhook_deliveries.labels(outcome)
        for platform in platforms:
            self.scheduler_lateness.labels(platform)
            for outcome in ATTEMPT_OUTCOMES:
                self.scheduler_attempts.labels(platform, outcome)
            for outcome in PUBLISH_OUTCOMES:
                self.publish_outcomes.labels(platform, outcome)
        for tool in tools:
            for outcome in GENERATION_OUTCOMES:
                self.ai_generations.labels(tool, outcome)

    def described(self) -> list[tuple[str, str, str]]:
        """(name, type, help) of every family, in the text format's naming."""
        found = []
        for family in vars(self).values():
            for metric in family.describe():
                name = metric.name + "_total" if metric.type == "counter" else metric.name
                found.append((name, metric.type, metric.documentation))
        return found


_families: Families | None = None
_decided = False
_lock = threading.Lock()
_known_platforms: tuple[str, ...] = ()
_known_tools: tuple[str, ...] = ()


def known(*, platforms: Iterable[str], tools: Iterable[str]) -> None:
    """The label values the apps know at start (the platforms, the AI tools), declared by the
    app that knows them all (health); this process's zero series are written with them."""
    global _known_platforms, _known_tools
    with _lock:
        _known_platforms, _known_tools = tuple(platforms), tuple(tools)
        if _families is not None:
            _families.zeroed(platforms=_known_platforms, tools=_known_tools)


def directory(kind: str) -> Path:
    return Path(settings.METRICS_DIR) / kind


def enabled() -> bool:
    return bool(settings.METRICS_TOKEN)


def process_prepared(kind: str, *, clean: bool = True) -> None:
    """Called where a kind of process starts, before it or its children record anything (the
    server's parent process, the Celery worker's main process): this process and those it
    starts write under the kind's folder, emptied first."""
    if not enabled():
        return
    folder = directory(kind)
    if clean:
        shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True, exist_ok=True)
    if _decided and os.environ.get(ENV) != str(folder):
        logger.warning("Metrics were recorded before the %s process was prepared", kind)
    os.environ[ENV] = str(folder)


def process_default() -> None:
    """Called when Django is set up in any process (CoreConfig.ready), before anything imports
    prometheus_client: a process no entry point prepares (manage.py, tests) writes under the
    `other` kind's folder. The client picks its multiprocess value store at import only if
    PROMETHEUS_MULTIPROC_DIR is set by then; it reads the folder each time it makes a series,
    so an entry point's `process_prepared` may still move it."""
    if not enabled() or ENV in os.environ:
        return
    if "prometheus_client" in sys.modules:  # imported before Django was set up
        logger.warning(
            "prometheus_client was imported before %s was set: this process's "
            "numbers stay out of /metrics",
            ENV,
        )
    folder = directory("other")
    folder.mkdir(parents=True, exist_ok=True)
    _forget_dead(folder)
    os.environ[ENV] = str(folder)


def _start() -> Families | None:
    """This process's families, made at the first thing it records (None: metrics are off)."""
    global _families, _decided
    with _lock:
        if _decided:
            return _families
        if enabled():
            process_default()  # metrics turned on after Django was set up (tests)
            Path(os.environ[ENV]).mkdir(parents=True, exist_ok=True)
            _http_series.clear()
            _provider_series.clear()
            _families = Families()
            _families.zeroed(platforms=_known_platforms, tools=_known_tools)
        _decided = True
        return _families


def families() -> Families | None:
    return _families if _decided else _start()


def _forget_dead(folder: Path) -> None:
    """Files of processes that are gone (a manage.py command that ended) are removed when
    another process of the `other` kind starts: its counters begin again at zero."""
    for path in folder.glob("*.db"):
        match = _PID_FILE.search(path.name)
        if match and not _alive(int(match.group(1))):
            with contextlib.suppress(OSError):
                path.unlink()


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# --- Recording: each a no-op when metrics are off ---------------------------------------------


# A request's two series, by (route, method, status): labels() validates and locks on every
# call, a dict lookup does not (the routes, methods and statuses are bounded).
_http_series: dict[tuple[str, str, int], tuple[Any, Any]] = {}


def http_request(*, route: str, method: str, status: int, seconds: float) -> None:
    found = families()
    if found is None:
        return
    method = method if method in METHODS else "other"  # a client's own methods: one series
    series = _http_series.get((route, method, status))
    if series is None:
        series = _http_series[(route, method, status)] = (
            found.http_requests.labels(route, method, str(status)),
            found.http_duration.labels(route, method),
        )
    series[0].inc()
    series[1].observe(seconds)


# A call's two series, by (provider, operation, outcome), for the same reason (the clients,
# methods and outcomes are bounded).
_provider_series: dict[tuple[str, str, str], tuple[Any, Any]] = {}


def provider_call(*, provider: str, operation: str, outcome: str, seconds: float) -> None:
    found = families()
    if found is None:
        return
    series = _provider_series.get((provider, operation, outcome))
    if series is None:
        series = _provider_series[(provider, operation, outcome)] = (
            found.provider_calls.labels(provider, operation, outcome),
            found.provider_duration.labels(provider, operation),
        )
    series[0].inc()
    series[1].observe(seconds)


def scheduler_claimed(lateness: Iterable[tuple[str, float]]) -> None:
    """(platform, seconds after its due time) of each record a scheduler run claimed."""
    found = families()
    if found is None:
        return
    histogram = found.scheduler_lateness
    for provider, seconds in lateness:
        histogram.labels(provider).observe(max(0.0, seconds))


def scheduler_attempted(outcomes: Iterable[tuple[str, str]]) -> None:
    """(platform, the record's status after the attempt, e.g. "Published") of each attempt."""
    found = families()
    if found is None:
        return
    counter = found.scheduler_attempts
    for provider, status in outcomes:
        counter.labels(provider, status.lower()).inc()


def publish_ended(outcomes: Iterable[tuple[str, str]]) -> None:
    """(platform, published | failed | unconfirmed) of each record that ended."""
    found = families()
    if found is None:
        return
    for provider, outcome in outcomes:
        found.publish_outcomes.labels(provider, outcome).inc()


def webhook_delivered(outcomes: Iterable[str]) -> None:
    found = families()
    if found is None:
        return
    for outcome in outcomes:
        found.webhook_deliveries.labels(outcome).inc()


def ai_generation_ended(*, tool: str, outcome: str) -> None:
    found = families()
    if found is not None:
        found.ai_generations.labels(tool, outcome).inc()


def livefeed_stream(*, opened: bool) -> None:
    found = families()
    if found is not None:
        found.livefeed_streams.inc(1 if opened else -1)


# --- The scrape ------------------------------------------------------------------------------


def files() -> list[str]:
    """Every kind's files; a live gauge's (open streams) only while its process runs."""
    found: list[str] = []
    for kind in KINDS:
        for path in glob.glob(os.path.join(directory(kind), "*.db")):
            name = os.path.basename(path)
            if name.startswith("gauge_live"):
                match = _PID_FILE.search(name)
                if match and not _alive(int(match.group(1))):
                    continue
            found.append(path)
    return found


# --- The fast merge ---------------------------------------------------------------------------
# A scrape adds up every process's files. prometheus_client's own collector
# (multiprocess.MultiProcessCollector) parses every key of every file (JSON) on each scrape and
# builds its objects: at bench.health's cardinality a scrape takes longer than the project
# allows (bench.scrape; docs/performance.md, "Why the code is the way it is"), so this is the
# one module that reads the client's private file format, and tests/core/test_metrics.py holds
# its output equal to the library's collector on the same files. Here the files' layout
# is remembered between scrapes (a file only ever appends entries; values change in place), each
# key is parsed once per process, and the text is written directly. The file format is
# prometheus_client's (mmap_dict.py): an 8-byte header whose first 4 bytes are the bytes used,
# then entries of a 4-byte key length, the UTF-8 key padded to 8-byte alignment, and two
# doubles (value, timestamp).

_INT = struct.Struct("i")
_DOUBLE = struct.Struct("d")


@dataclass
class _Layout:
    inode: int
    parsed: int  # bytes of the file already walked
    entries: list[tuple["_Key", int]]  # (key, offset of its value)


@dataclass(frozen=True, slots=True)
class _Key:
    """One series (a sample line), the same for every process that writes it: its slot in the
    sums, its family, and how its line is written."""

    slot: int
    metric: str
    kind: str  # counter, histogram, gauge
    text: str  # the family's help
    series: str  # the sample line up to its value: name{labels}; "" for a bucket
    bound: float | None = None  # a histogram bucket's upper bound
    rest: str = ""  # a bucket's labels without `le`, rendered


_layouts: dict[str, _Layout] = {}
_keys: dict[str, _Key] = {}  # by the files' key (JSON)
_slots: list[_Key] = []
# How the text is laid out: per family (sorted), its plain series' slots and its histograms'
# buckets, (bound text, slot) in order, per label set; remade when a series appears.
_Plan = list[tuple[str, str, str, list[int], list[tuple[str, list[tuple[str, int]]]]]]
_plan: _Plan | None = None
_plan_lock = threading.Lock()


def _escaped(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _rendered(labels: Iterable[tuple[str, str]]) -> str:
    return ",".join(f'{label}="{_escaped(str(text))}"' for label, text in labels)


def _parsed(raw: str, kind: str) -> _Key:
    global _plan
    found = _keys.get(raw)
    if found is None:
        metric, sample, labels, text = json.loads(raw)
        pairs = sorted(labels.items())
        slot = len(_slots)
        if kind == "histogram" and sample.endswith("_bucket") and "le" in labels:
            rest = _rendered(pair for pair in pairs if pair[0] != "le")
            found = _Key(slot, metric, kind, text, "", bound=float(labels["le"]), rest=rest)
        else:
            rendered = _rendered(pairs)
            series = f"{sample}{{{rendered}}}" if rendered else sample
            found = _Key(slot, metric, kind, text, series)
        _keys[raw] = found
        _slots.append(found)
        _plan = None
    return found


def _read(path: str) -> tuple[bytes, _Layout] | None:
    """One file's bytes and layout, its new entries parsed."""
    kind = os.path.basename(path).split("_", 1)[0]
    try:
        with open(path, "rb") as file:
            inode = os.fstat(file.fileno()).st_ino
            head = file.read(8)
            if len(head) < 8:
                return None
            used = _INT.unpack_from(head, 0)[0]
            data = head + file.read(max(0, used - 8))
    except FileNotFoundError:  # a live gauge's process ended meanwhile
        return None
    layout = _layouts.get(path)
    if layout is None or layout.inode != inode or layout.parsed > used:
        layout = _layouts[path] = _Layout(inode=inode, parsed=8, entries=[])
    position = layout.parsed
    while position + 4 <= used:
        length = _INT.unpack_from(data, position)[0]
        position += 4
        raw = data[position : position + length].decode("utf-8")
        position += length + (8 - (length + 4) % 8)
        layout.entries.append((_parsed(raw, kind), position))
        position += 16
    layout.parsed = position
    return data, layout


def _make_plan() -> _Plan:
    families: dict[str, tuple[str, str, list[int], dict[str, list[tuple[float, int]]]]] = {}
    for key in _slots:
        family = families.setdefault(key.metric, (key.kind, key.text, [], {}))
        if key.bound is None:
            family[2].append(key.slot)
        else:
            family[3].setdefault(key.rest, []).append((key.bound, key.slot))
    plan: _Plan = []
    for metric in sorted(families):
        kind, text, plain, histograms = families[metric]
        buckets = [
            (rest, [(_bound(bound), slot) for bound, slot in sorted(bounds)])
            for rest, bounds in histograms.items()
        ]
        plan.append((metric, kind, text, plain, buckets))
    return plan


def _bound(bound: float) -> str:
    from prometheus_client.utils import floatToGoString

    return str(floatToGoString(bound))  # type: ignore[no-untyped-call]


def merged_text(declared: Iterable[tuple[str, str, str]] = ()) -> str:
    """Every process's numbers added up (gauges: the live processes' sum), in the text format
    (values as Python writes floats, which Prometheus reads); each family of `declared`
    (name, type, help) that has no series yet is there too, its HELP and TYPE alone."""
    global _plan
    with _plan_lock:  # the threads of one server process may scrape at once
        paths = files()
        for gone in _layouts.keys() - set(paths):  # a process's files removed since
            del _layouts[gone]
        read = [found for path in paths if (found := _read(path)) is not None]
        totals = [0.0] * len(_slots)
        seen = bytearray(len(_slots))
        unpack = _DOUBLE.unpack_from
        for data, layout in read:
            for key, offset in layout.entries:
                totals[key.slot] += unpack(data, offset)[0]
                seen[key.slot] = 1
        plan = _plan = _plan or _make_plan()
    out: list[str] = []
    for metric, kind, text, plain, buckets in plan:
        lines = [f"{_slots[slot].series} {totals[slot]!r}\n" for slot in plain if seen[slot]]
        for rest, bounds in buckets:
            if not seen[bounds[0][1]]:
                continue
            total, sep = 0.0, "," if rest else ""
            for le, slot in bounds:
                total += totals[slot]
                lines.append(f'{metric}_bucket{{{rest}{sep}le="{le}"}} {total!r}\n')
            count = f"{metric}_count{{{rest}}}" if rest else f"{metric}_count"
            lines.append(f"{count} {total!r}\n")
        if lines:
            name = metric + "_total" if kind == "counter" else metric
            out.append(f"# HELP {name} {text}\n# TYPE {name} {kind}\n")
            out.extend(lines)
    written = {line.split(" ", 3)[2] for line in out if line.startswith("# HELP ")}
    for name, kind, text in declared:
        if name not in written:
            out.append(f"# HELP {name} {text}\n# TYPE {name} {kind}\n")
    return "".join(out)


def exposition(collectors: Iterable[Any] = ()) -> tuple[bytes, str]:
    """The Prometheus text of every process's numbers and of `collectors` (values read at
    scrape time); (body, content type)."""
    from prometheus_client import CollectorRegistry, generate_latest
    from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4

    registry = CollectorRegistry(auto_describe=False)
    for collector in collectors:
        registry.register(collector)
    # This process's families (and their zero series) exist before its first scrape, so that
    # every family is there even while nothing has been recorded anywhere.
    found = families()
    declared = found.described() if found is not None else []
    # The classic text format's type, which every Prometheus version reads (the names here
    # need none of 1.0.0's escaping).
    body = merged_text(declared).encode() + generate_latest(registry)
    return body, CONTENT_TYPE_PLAIN_0_0_4
