"""Social hub bench: the posts list at 10,000 posts for one user among 1,000,000, and publish
now to six accounts whose providers answer every call after a fixed latency.

Usage: DATABASE_URL=postgres://USER@HOST:PORT/DB python -m bench.social
           [--requests N] [--concurrency C] [--workers W] [--target-rows N] [--other-rows N]
           [--latency-ms MS] [--publishes N]

Like bench.notifications it creates a throwaway database on the PostgreSQL server of
DATABASE_URL, fills it (one INSERT ... SELECT), serves the API with config.serve and measures
`GET /api/social/posts?page=1&limit=20` as the target user (latency from one client, then
load from --concurrency clients), counting the SQL queries of one
request in-process (budget: 4, the token's user included). Then, in-process against the same
database, it connects one account of each provider to the test suite's provider stand-ins
(tests/social/standins.py) slowed by --latency-ms per call, and times POST /api/social/publish
to all six. The database is dropped at the end. Exits non-zero on errors, never on a missed
target.
"""

import argparse
import sys
import time
from collections.abc import Sequence
from typing import Any
from urllib.parse import parse_qs, urlsplit

from bench import harness
from bench.harness import HOST, BenchError, Summary, plan_lines, run, timed, verdict

NAME = "social"
DATABASE_PREFIX = "fgp_bench_social_"
TARGET_EMAIL = "bench-social@example.com"
LIST_URL = "/api/social/posts?page=1&limit=20"
QUERY_BUDGET = 4
TARGET_LIST_P99_MS = 20.0
TARGET_PUBLISH_MS = 500.0
SECONDS_BETWEEN_ROWS = 30
RECORD_SHARE = 5  # one target post in five has a scheduled record (the prefetch has work)

FILL_SQL = f"""
INSERT INTO social_post
    (id, workspace_id, user_id, title, content, hashtags, mentions, link, media_urls, media_ids,
     platforms, variants, thread, first_comment, provider_set, status, requires_approval,
     approved_version, approval, created_at, updated_at)
SELECT p.id, w.id, p.user_id, p.title, p.content, '#launch #design', '', '', '[]'::jsonb,
       '[]'::jsonb, '["mastodon"]'::jsonb, '{{}}'::jsonb, '[]'::jsonb, '', '|mastodon|', 'Draft',
       false, '', '', p.created_at, p.created_at
FROM (
    SELECT
        gen_random_uuid() AS id,
        {harness.SPREAD_OWNER_SQL} AS user_id,
        'Post ' || g AS title,
        'Benchmark post number ' || g || ': what we shipped this week, and what comes next.'
            AS content,
        {harness.SPREAD_CREATED_SQL} AS created_at
    FROM {harness.SPREAD_ROWS_SQL}
) AS p
JOIN accounts_workspace w ON w.personal_user_id = p.user_id
"""  # noqa: S608 (the harness's constants, not input)

RECORDS_SQL = """
INSERT INTO social_scheduledrecord
    (id, post_id, workspace_id, user_id, account_id, provider, scheduled_time, due_at, status,
     attempts, outcome_unknown, url, provider_post_id, error, error_code, history, parts,
     warnings, processing, queued, created_at, updated_at)
SELECT gen_random_uuid(), p.id, p.workspace_id, p.user_id, %(account)s::uuid, 'mastodon',
       now() + interval '1 day', now() + interval '1 day', 'Scheduled', 0, false, '', '', '',
       '', '[]'::jsonb, '[]'::jsonb, '[]'::jsonb, '{}'::jsonb, false, now(), now()
FROM (SELECT id, workspace_id, user_id, row_number() OVER (ORDER BY created_at) AS n
        FROM social_post WHERE user_id = %(target)s::uuid) AS p
WHERE p.n %% %(share)s = 0
"""


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = harness.parser(NAME, __doc__, requests=500, concurrency=(2, "clients of the load run"),
                            workers=2, target_rows=10_000, other_rows=1_000_000, other_users=1_000,
                            latency_ms=200.0, publishes=20)  # fmt: skip
    args = parser.parse_args(argv)
    if args.requests < 2 or args.publishes < 2:
        parser.error("--requests and --publishes must be at least 2")
    return args


def fill(args: argparse.Namespace) -> Any:
    from django.db import connection

    from accounts.services.users import user_create
    from social.models import SocialAccount

    target = user_create(email=TARGET_EMAIL, full_name="Bench Target")
    harness.users_create("bench", args.other_users)
    account = SocialAccount.objects.create(
        user=target, workspace=target.personal_workspace, provider="mastodon",
        provider_user_id="1", instance="https://bench.example", username="bench",
    )  # fmt: skip
    with connection.cursor() as cursor:
        cursor.execute(
            FILL_SQL,
            {"target": str(target.pk), "target_rows": args.target_rows,
             "total": args.target_rows + args.other_rows, "spacing": SECONDS_BETWEEN_ROWS},
        )  # fmt: skip
        cursor.execute(
            RECORDS_SQL, {"target": str(target.pk), "account": str(account.pk),
                          "share": RECORD_SHARE},
        )  # fmt: skip
    harness.vacuum_analyze(
        "social_post", "social_scheduledrecord", "accounts_user", "accounts_workspace"
    )
    return target


def capture(token: str) -> tuple[list[str], list[list[str]]]:
    response, sqls = harness.captured_get(LIST_URL, token)
    if len(response.json()["data"]) != 20:
        raise BenchError(f"in-process GET {LIST_URL} answered {len(response.json()['data'])} posts")
    return sqls, [harness.explain(sql) for sql in sqls[1:]]  # not the token's user


def publish_now(args: argparse.Namespace) -> dict[str, list[float]]:
    """Connect six accounts to stand-ins slowed by --latency-ms, then time publish-now."""
    import requests
    from django.conf import settings
    from django.test import Client

    from accounts.services.sessions import session_issue
    from accounts.services.users import user_create
    from tests.social.standins import (
        BLUESKY_APP_PASSWORD,
        BLUESKY_HANDLE,
        DEVTO_KEY,
        provider_standins,
    )

    user = user_create(email="bench-publisher@example.com")
    token = session_issue(user=user).token
    client = Client(SERVER_NAME=HOST, HTTP_AUTHORIZATION=f"Bearer {token}")
    redirect = "https://app.example.com/oauth/callback"
    timings: dict[str, list[float]] = {"text": [], "image": []}
    with provider_standins() as providers:
        for name, value in providers.settings().items():
            setattr(settings, name, value)
        settings.OUTBOUND_ALLOW_PRIVATE = True  # the stand-ins listen on 127.0.0.1
        account_ids = []
        targets = ("linkedin", "facebook", "instagram", "bluesky", "mastodon", "devto", "page2")
        for target in targets:
            provider = "facebook" if target == "page2" else target
            body: dict[str, Any] = {"provider": provider}
            if target == "page2":  # a second account: the user's other Facebook page
                body["pageId"] = "1002"
            if provider == "devto":
                body["code"] = DEVTO_KEY
            elif provider == "bluesky":
                body.update(code=BLUESKY_APP_PASSWORD, identifier=BLUESKY_HANDLE)
            else:
                query: dict[str, str] = {"redirectUri": redirect}
                if provider == "mastodon":
                    query["instance"] = providers.mastodon.url
                consent = client.get(f"/api/social/connect/{provider}/authorize", query).json()
                page = requests.get(consent["data"]["url"], allow_redirects=False, timeout=5)
                back = parse_qs(urlsplit(page.headers["Location"]).query)
                body.update(code=back["code"][0], state=back["state"][0])
                if provider == "mastodon":
                    body["instance"] = providers.mastodon.url
            answer = client.post("/api/social/connect", body, content_type="application/json")
            if answer.status_code != 200:
                raise BenchError(f"connecting {provider}: {answer.content[:300]!r}")
            account_ids.append(answer.json()["data"]["id"])
        for standin in vars(providers).values():
            standin.latency = args.latency_ms / 1000
        # A text post to six accounts (Instagram needs an image: the user's second Facebook
        # page takes its place), then an image post to the six platforms.
        for kind, chosen, media in (
            ("text", account_ids[:2] + account_ids[3:], []),
            ("image", account_ids[:6], [providers.image()]),
        ):
            for number in range(args.publishes):
                body = {"title": f"Bench {kind} {number}", "mediaUrls": media,
                        "content": f"Bench {kind} post {number} #launch",
                        "accountIds": chosen}  # fmt: skip
                began = time.perf_counter()
                answer = client.post("/api/social/publish", body, content_type="application/json")
                timings[kind].append((time.perf_counter() - began) * 1000)
                results = answer.json().get("data") or []
                if answer.status_code != 200 or not all(r["success"] for r in results):
                    raise BenchError(f"publish {kind} {number}: {answer.content[:500]!r}")
    return timings


def measure(bench: harness.Bench) -> int:
    args = bench.args
    bench.django_setup()
    from accounts.services.sessions import session_issue

    with timed(f"fill {args.target_rows + args.other_rows:,} posts"):
        target = fill(args)
    token = session_issue(user=target).token
    sqls, plans = capture(token)
    bearer = {"Authorization": f"Bearer {token}"}
    with bench.serving(args.workers) as server:
        run(server.port, LIST_URL, 50, args.concurrency, bearer)
        # Latency: one client, so each request meets an idle server. The load run's clients
        # keep one connection each, and uvicorn's processes take connections as they come: two
        # clients land on one process about half the time and then share its one interpreter,
        # which the load figures show as such.
        listed = run(server.port, LIST_URL, args.requests, 1, bearer)
        loaded = run(server.port, LIST_URL, args.requests, args.concurrency, bearer)
    with timed(f"{2 * args.publishes} publishes"):
        timings = publish_now(args)
    print()
    print(f"posts list: {args.target_rows:,} posts of the user among "
          f"{args.target_rows + args.other_rows:,}; 1 in {RECORD_SHARE} with a record")  # fmt: skip
    print(f"  GET {LIST_URL}, one client: {listed.requests} requests, {listed.rps:.0f} rps, "
          f"p50 {listed.percentile_ms(50):.2f} ms, p90 {listed.percentile_ms(90):.2f} ms, "
          f"p99 {listed.percentile_ms(99):.2f} ms "
          f"(target p99 < {TARGET_LIST_P99_MS:g} ms: "
          f"{verdict(listed.percentile_ms(99) < TARGET_LIST_P99_MS)})")  # fmt: skip
    p50, p99 = loaded.percentile_ms(50), loaded.percentile_ms(99)
    print(f"  the same from {args.concurrency} clients at once: {loaded.rps:.0f} rps, "
          f"p50 {p50:.2f} ms, p99 {p99:.2f} ms")  # fmt: skip
    budget = "met" if len(sqls) <= QUERY_BUDGET else "EXCEEDED"
    print(f"  queries per request: {len(sqls)}/{QUERY_BUDGET} ({budget}), token user included")
    for lines in plans:
        for line in plan_lines(lines, full=False):
            print(f"    {line}")
    print(f"publish now, every provider call answered after {args.latency_ms:g} ms:")
    labels = {
        "text": "text post to 6 accounts (one call each)",
        "image": "image post to the 6 platforms (2-4 calls in series each)",
    }
    for kind, label in labels.items():
        taken = Summary.of(timings[kind])
        print(f"  {label}: p50 {taken.p50:.0f} ms, p99 {taken.p99:.0f} ms, mean "
              f"{taken.mean:.0f} ms (< {TARGET_PUBLISH_MS:g} ms: "
              f"{verdict(taken.p99 < TARGET_PUBLISH_MS)})")  # fmt: skip
    print("  (in series, the six would take 6x; the image post's floor is its longest chain:")
    print("   LinkedIn fetches the image, initializes the upload, uploads, then posts)")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return harness.main(NAME, parse_args, measure, argv, database_prefix=DATABASE_PREFIX)


if __name__ == "__main__":
    sys.exit(main())
