"""What the data migrations that move a table's rows into workspaces share (docs/workspaces.md,
"Moving data into workspaces"). Not a migration: Django's loader skips a module whose name
starts with an underscore.

Set-based and batched: one `UPDATE ... SET workspace_id = (SELECT ...)` per range of primary
keys (keyset batches: each range is found by an index scan of one batch, so a million rows cost
a hundred short statements, never a row-by-row loop in Python), each range its own
transaction, only rows still without a workspace touched: an interrupted run resumes.
"""

import importlib
from collections.abc import Iterator
from typing import Any

from django.db import transaction

BATCH_SIZE = 10_000  # rows per UPDATE: one short transaction each


def personal_workspaces_ensure(apps: Any, schema_editor: Any) -> None:
    """Every unerased user has their personal workspace first: 0010's forward again, which
    makes only the missing ones (a user made around the services since, in a shell)."""
    personal = importlib.import_module("accounts.migrations.0010_personal_workspaces")
    personal.forward(apps, schema_editor)


def key_ranges(model: Any, connection: Any, batch_size: int) -> Iterator[tuple[Any, Any]]:
    """(lowest excluded, highest included) primary keys of each batch of `batch_size` rows of
    the table, prepared for the database; None for an open end."""
    pk = model._meta.pk
    after = None
    while True:
        keys = model.objects.order_by("pk").values_list("pk", flat=True)
        if after is not None:
            keys = keys.filter(pk__gt=after)
        last = next(iter(keys[batch_size - 1 : batch_size]), None)
        yield (
            None if after is None else pk.get_db_prep_value(after, connection),
            None if last is None else pk.get_db_prep_value(last, connection),
        )
        if last is None:
            return
        after = last


def workspace_backfill(model: Any, schema_editor: Any, *, source: str) -> None:
    """Set `workspace_id` of `model`'s rows that have none to `source`, an SQL expression over
    the row's own columns (written `{table}.column`), BATCH_SIZE keys at a time."""
    connection = schema_editor.connection
    quote = connection.ops.quote_name
    table = quote(model._meta.db_table)
    key = quote(model._meta.pk.column)
    expression = source.format(table=table)
    for low, high in key_ranges(model, connection, BATCH_SIZE):
        where, params = within(key, low, high)
        with transaction.atomic(using=connection.alias), connection.cursor() as cursor:
            cursor.execute(
                f"UPDATE {table} SET workspace_id = ({expression}) "  # noqa: S608
                f"WHERE workspace_id IS NULL{where}",
                params,
            )


def within(column: str, low: Any, high: Any) -> tuple[str, list[Any]]:
    """` AND` a batch's bounds on `column` (key_ranges), and their parameters."""
    where, params = "", []
    if low is not None:
        where += f" AND {column} > %s"
        params.append(low)
    if high is not None:
        where += f" AND {column} <= %s"
        params.append(high)
    return where, params


def personal_workspace_of_user(workspaces_table: str) -> str:
    """The `source` of a row with a `user_id`: that user's personal workspace."""
    return (
        f"SELECT w.id FROM {workspaces_table} w "  # noqa: S608
        "WHERE w.personal_user_id = {table}.user_id"
    )
