"""The migrations that move the social hub's data into workspaces (social 0014 to 0017), run
forward and back on a populated database: every row goes to its user's personal workspace
(made for users who had none yet), the settings and post counters are keyed by it, and going
back restores every table as it was: the same rows, counted and checksummed per table. On
PostgreSQL too when DATABASE_URL names one."""

import hashlib
import importlib
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = ("social", "0013_provider_from_the_registry")
BACKFILL_STEP = ("social", "0015_workspace_backfill")
AFTER = ("social", "0017_analytics_user_dropped")  # the move done (later ones add columns)
BACKFILL = importlib.import_module("social.migrations.0015_workspace_backfill")
# The hub's tables, each by model; the row values compared are every column the tables had
# before (the workspace is new; the analytics rows' user is compared where it exists).
TABLES = (
    "SocialAccount",
    "ConnectState",
    "Post",
    "Campaign",
    "MediaItem",
    "ScheduledRecord",
    "AnalyticsRecord",
    "AccountQueue",
    "Series",
    "AccountHealth",
)
KEYED_BY_USER = ("SocialSettings", "PostCounter")  # keyed by the workspace after


def migrate(target: tuple[str, str] | None = None) -> Any:
    """Migrate social to `target` (None: its last), the other apps at their last; the
    historical models of that state."""
    executor = MigrationExecutor(connection)
    leaves = executor.loader.graph.leaf_nodes()
    plan = [node for node in leaves if node[0] != "social" or target is None]
    if target is not None:
        plan.append(target)
    executor.migrate(plan)
    return MigrationExecutor(connection).loader.project_state(plan).apps


@pytest.fixture
def at_0013() -> Iterator[None]:
    migrate(BEFORE)
    try:
        yield
    finally:
        migrate()


def populate(apps: Any) -> list[Any]:
    """Six users with a bit of everything each; two made after accounts' 0010 (no personal
    workspace yet), and one erased user whose erasure left a disconnected account."""
    user_model = apps.get_model("accounts", "User")
    workspace_model = apps.get_model("accounts", "Workspace")
    membership_model = apps.get_model("accounts", "Membership")
    get = apps.get_model
    now = timezone.now()
    users = [
        user_model.objects.create(email=f"user{n}@example.com", created_at=now - timedelta(days=n))
        for n in range(6)
    ]
    for user in users[:4]:  # made before 0010: they have theirs
        workspace = workspace_model.objects.create(
            name="Personal", personal=True, personal_user=user
        )
        membership_model.objects.create(
            workspace=workspace, user=user, role="owner", joined_at=workspace.created_at
        )
    for n, user in enumerate(users):
        app = get("social", "MastodonApp").objects.create(
            instance=f"https://m{n}.example", redirect_uri="https://app.example/cb",
            client_id=f"c{n}", client_secret="s",
        )  # fmt: skip
        accounts = [
            get("social", "SocialAccount").objects.create(
                user=user,
                provider=provider,
                provider_user_id=f"{n}-{provider}",
                username=f"u{n}",
                access_token=f"token-{n}",
                app=app,
            )
            for provider in ("mastodon", "bluesky")
        ]
        get("social", "AccountQueue").objects.create(
            account=accounts[0], slots=[{"day": "mon", "time": "09:00"}]
        )
        get("social", "AccountHealth").objects.create(account=accounts[1], report={"ok": n})
        get("social", "ConnectState").objects.create(
            user=user, provider="mastodon", state_hash=f"{n:064d}",
            redirect_uri="https://app.example/cb", expires_at=now + timedelta(minutes=5),
        )  # fmt: skip
        campaign = get("social", "Campaign").objects.create(user=user, name=f"Campaign {n}")
        get("social", "MediaItem").objects.create(
            user=user, type="image/png", url=f"https://cdn.example/{n}.png", size=100 + n
        )
        for k in range(3):
            post = get("social", "Post").objects.create(
                user=user, content=f"Post {n}.{k}", campaign=campaign if k == 0 else None
            )
            for account in accounts:
                record = get("social", "ScheduledRecord").objects.create(
                    post=post, user=user, account=account, provider=account.provider,
                    scheduled_time=now + timedelta(hours=k), due_at=now + timedelta(hours=k),
                    status="Published" if k == 0 else "Scheduled",
                )  # fmt: skip
                if k == 0:
                    get("social", "AnalyticsRecord").objects.create(
                        record=record, user=user, post=post, account=account,
                        provider=account.provider, date=now.date(), impressions=10 * n + k,
                    )  # fmt: skip
        get("social", "Series").objects.create(post=post, rule="FREQ=DAILY", starts_at=now)
        get("social", "SocialSettings").objects.create(
            user=user, default_timezone="Europe/Paris", auto_retry=n % 2 == 0,
            notification_preferences={"postFailed": False},
        )  # fmt: skip
        get("social", "PostCounter").objects.create(user=user, total=3)
    erased = user_model.objects.create(email="erased@example.com", erased_at=now, is_active=False)
    get("social", "SocialAccount").objects.create(
        user=erased, provider="devto", provider_user_id="gone", status="disconnected"
    )
    return users


def rows(apps: Any, name: str, *, without: Any = None) -> list[tuple[Any, ...]]:
    """The table's rows as they were before the migrations (their columns then), sorted;
    `without` a user's."""
    model = apps.get_model("social", name)
    columns = sorted(
        f.attname
        for f in model._meta.concrete_fields
        if f.name != "workspace" and not (name == "AnalyticsRecord" and f.name == "user")
    )
    found = model.objects.all()
    if without is not None and "user_id" in columns:
        found = found.exclude(user_id=without)
    return sorted(tuple(str(v) for v in row) for row in found.values_list(*columns))


def snapshot(apps: Any, *, without: Any = None) -> dict[str, tuple[int, str]]:
    """Each table's row count and a checksum of its rows."""
    return {
        name: (len(found), hashlib.sha256(repr(found).encode()).hexdigest())
        for name in TABLES
        for found in [rows(apps, name, without=without)]
    }


def keyed_by_user(apps: Any) -> dict[str, list[tuple[Any, ...]]]:
    """The settings and counters as (user id, values...), whichever key they have."""
    found = {}
    for name in KEYED_BY_USER:
        model = apps.get_model("social", name)
        values = sorted(f.attname for f in model._meta.concrete_fields if not f.primary_key)
        owner = "user_id" if model._meta.pk.name == "user" else "workspace__personal_user_id"
        found[name] = sorted(
            tuple(str(v) for v in row) for row in model.objects.values_list(owner, *values)
        )
    return found


def test_forward_and_back_on_a_populated_database(at_0013, monkeypatch):
    monkeypatch.setattr(BACKFILL, "BATCH_SIZE", 4)  # several batches, one partly filled
    apps = migrate(BEFORE)
    users = populate(apps)
    erased = apps.get_model("accounts", "User").objects.get(email="erased@example.com")
    # What must survive: everything but the erased user's leftover account.
    before = snapshot(apps, without=erased.pk)
    settings_before = keyed_by_user(apps)

    apps = migrate(BACKFILL_STEP)

    workspace_model = apps.get_model("accounts", "Workspace")
    personal = dict(workspace_model.objects.values_list("personal_user_id", "pk"))
    assert set(personal) == {user.pk for user in users}  # those made since got theirs
    owned = ("SocialAccount", "ConnectState", "Post", "Campaign", "MediaItem", "ScheduledRecord")
    for name in (*owned, "AnalyticsRecord"):
        pairs = list(apps.get_model("social", name).objects.values_list("user_id", "workspace_id"))
        assert pairs, name
        assert all(personal[user] == workspace for user, workspace in pairs), name
    copied = {
        name: apps.get_model("social", f"Workspace{name}").objects.count() for name in KEYED_BY_USER
    }
    assert copied == {"SocialSettings": 6, "PostCounter": 6}
    # Run again (an interrupted run resumed): nothing is moved or copied twice.
    with connection.schema_editor(atomic=False) as editor:
        BACKFILL.forward(apps, editor)
    again = {
        name: apps.get_model("social", f"Workspace{name}").objects.count() for name in KEYED_BY_USER
    }
    assert again == copied

    apps = migrate(AFTER)

    assert snapshot(apps) == before  # the erased user's leftover account is gone, nothing else
    assert keyed_by_user(apps) == settings_before
    assert apps.get_model("social", "SocialSettings")._meta.pk.name == "workspace"
    analytics = apps.get_model("social", "AnalyticsRecord").objects.values_list(
        "record__user_id", "workspace_id"
    )
    assert all(personal[user] == workspace for user, workspace in analytics)

    apps = migrate(BEFORE)

    assert snapshot(apps) == before
    assert keyed_by_user(apps) == settings_before
    analytics = list(
        apps.get_model("social", "AnalyticsRecord").objects.values_list(
            "user_id", "record__user_id"
        )
    )
    assert analytics
    assert all(user == owner for user, owner in analytics)

    apps = migrate(AFTER)  # and forward once more
    assert snapshot(apps) == before
    assert keyed_by_user(apps) == settings_before
