"""Many rows in one INSERT whose statement is the same whatever their number: the rows travel
as one JSON document (PostgreSQL).

The scheduler's results write several event rows per published record (the live feed, the
outbox, notifications) in batches of a few dozen. Django's `bulk_create` builds a statement
per batch with a placeholder per value, which psycopg then parses and fills in Python, value
by value: per row, most of the cost of writing it (a burst's profile). Here the rows are one
`jsonb` parameter, read by `jsonb_to_recordset` with each column's own type: the statement
is short and the same for every batch, the document is encoded by orjson and parsed by
PostgreSQL, and nothing is formatted per value in Python.

`insert_values` takes the rows' values (no model instance is made: for a burst's event rows,
making them cost more than writing them) and gives what the database made (an
auto-incrementing key) from RETURNING; on another database it is `bulk_create`. `update_rows`
writes each row's own values to the row its key columns match (PostgreSQL only: the lease's
batched settle). `upsert_add` adds amounts to counter rows, creating the missing ones, in one
statement.

`field__any=[...]` (`AnyOf`) is this fast path's read: a batch's rows by their keys as one
array parameter. Only the fields `allow_any` names take it (a lease's key, the few foreign
keys the scheduler's and the deliveries' batches read by); every other field refuses it.
"""

import uuid
from collections.abc import Sequence
from datetime import date, datetime, time
from decimal import Decimal
from typing import Any

import orjson
from django.db import connection, models
from django.db.models import F, Lookup
from django.db.models.lookups import In


def _json_default(value: Any) -> Any:
    """Values a JSON document cannot hold as they are: as PostgreSQL reads them back."""
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, uuid.UUID | Decimal):
        return str(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _document(rows: list[dict[str, Any]]) -> str:
    # orjson: with the json module a burst's documents (event data, records' histories) cost a
    # share of a worker's CPU, most of it in calls to _json_default for every key and time;
    # orjson writes those itself (docs/performance.md). Non-string keys are written as
    # strings, as json.dumps does.
    return orjson.dumps(rows, default=_json_default, option=orjson.OPT_NON_STR_KEYS).decode()


def _is_auto(field: models.Field[Any, Any]) -> bool:
    return isinstance(field, models.AutoField | models.BigAutoField | models.SmallAutoField)


def _concrete(model: type[models.Model], name: str) -> models.Field[Any, Any]:
    field = model._meta.get_field(name)
    if not isinstance(field, models.Field) or not field.concrete:
        raise ValueError(f"{model.__name__}.{name} is not a column")
    return field


_recordsets: dict[tuple[models.Field[Any, Any], ...], tuple[str, str]] = {}


def _recordset(fields: Sequence[models.Field[Any, Any]]) -> tuple[str, str]:
    """The fields' quoted columns, and the same typed as jsonb_to_recordset reads them (made
    once per set of fields: a burst writes the same few tables hundreds of times)."""
    key = tuple(fields)
    if key not in _recordsets:
        quote = connection.ops.quote_name
        columns = ", ".join(quote(str(field.column)) for field in fields)
        typed = ", ".join(
            f"{quote(str(field.column))} {field.db_type(connection)}" for field in fields
        )
        _recordsets[key] = (columns, typed)
    return _recordsets[key]


def insert_values(model: type[models.Model], rows: Sequence[dict[str, Any]]) -> list[Any]:
    """Insert rows given as values, not instances (no model instance is made: for the many
    small rows of the live feed, making them cost more than writing them), one statement on
    PostgreSQL; the auto-incrementing keys made, in order ([] for a model without one). Each
    row names every column but that key, by attribute name (`user_id`), every row alike."""
    if not rows:
        return []
    auto = _auto(model)
    if connection.vendor != "postgresql":
        made = model._default_manager.bulk_create([model(**row) for row in rows])
        return [getattr(obj, auto.attname) for obj in made] if auto is not None else []
    meta = model._meta
    fields = _inserted(model)
    quote = connection.ops.quote_name
    columns, typed = _recordset(fields)
    # Only names and types from the model's own metadata are formatted in.
    sql = (
        f"INSERT INTO {quote(meta.db_table)} ({columns}) "  # noqa: S608
        f"SELECT {columns} FROM jsonb_to_recordset(%s::jsonb) AS x({typed})"
    )
    if auto is not None:
        sql += f" RETURNING {quote(str(auto.column))}"
    pairs = [(str(field.column), field.attname) for field in fields]
    document = _document([{column: row[attname] for column, attname in pairs} for row in rows])
    with connection.cursor() as cursor:
        cursor.execute(sql, [document])
        return [key for (key,) in cursor.fetchall()] if auto is not None else []


def _inserted(model: type[models.Model]) -> list[models.Field[Any, Any]]:
    return [field for field in model._meta.concrete_fields if not _is_auto(field)]


def _auto(model: type[models.Model]) -> models.Field[Any, Any] | None:
    return next((field for field in model._meta.concrete_fields if _is_auto(field)), None)


def update_rows(
    model: type[models.Model],
    rows: Sequence[dict[str, Any]],
    *,
    match: Sequence[str],
    nulls: Sequence[str] = (),
) -> list[Any]:
    """PostgreSQL: write each row's values (by field name; every row names the same fields) to
    the table's row whose `match` fields equal the row's own, and set the `nulls` fields to
    NULL there, in one statement; the primary keys of the rows written. Values are the
    fields' Python values (a JSONField's as the JSON it holds)."""
    if not rows:
        return []
    meta = model._meta
    names = list(rows[0])
    fields = [_concrete(model, name) for name in names]
    quote = connection.ops.quote_name
    columns = {name: quote(str(field.column)) for name, field in zip(names, fields, strict=True)}
    _, typed = _recordset(fields)
    assignments = [f"{columns[name]} = v.{columns[name]}" for name in names if name not in match]
    assignments += [f"{quote(str(_concrete(model, name).column))} = NULL" for name in nulls]
    fences = " AND ".join(f"t.{columns[name]} = v.{columns[name]}" for name in match)
    key = quote(str(meta.pk.column))
    # Only names and types from the model's own metadata are formatted in.
    sql = (
        f"UPDATE {quote(meta.db_table)} AS t SET {', '.join(assignments)} "  # noqa: S608
        f"FROM jsonb_to_recordset(%s::jsonb) AS v({typed}) WHERE {fences} RETURNING t.{key}"
    )
    keys = [str(field.column) for field in fields]
    document = _document(
        [dict(zip(keys, (row[name] for name in names), strict=True)) for row in rows]
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [document])
        return [found for (found,) in cursor.fetchall()]


def upsert_add(model: type[models.Model], *, key: str, amounts: dict[Any, dict[str, int]]) -> None:
    """For each key value, add its amounts to the columns of its row, creating the row (the
    amounts as its values, the other columns at their database defaults) when there is none:
    one INSERT ... ON CONFLICT on PostgreSQL. `key` is a unique column; every row names the
    same columns."""
    if not amounts:
        return
    meta = model._meta
    key_field = _concrete(model, key)
    fields = [_concrete(model, name) for name in sorted(next(iter(amounts.values())))]
    quote = connection.ops.quote_name
    if connection.vendor != "postgresql":
        # The missing rows, then one UPDATE per distinct set of amounts (most often one).
        model._default_manager.bulk_create(
            [model(**{key_field.attname: value}) for value in amounts], ignore_conflicts=True
        )
        alike: dict[tuple[tuple[str, int], ...], list[Any]] = {}
        for value, added in amounts.items():
            alike.setdefault(tuple(sorted(added.items())), []).append(value)
        for added_items, values in alike.items():
            model._default_manager.filter(**{f"{key_field.attname}__in": values}).update(
                **{name: F(name) + amount for name, amount in added_items}
            )
        return
    rows = [{key_field.column: value, **added} for value, added in amounts.items()]
    key_column = quote(str(key_field.column))
    columns, typed = _recordset([key_field, *fields])
    table = quote(meta.db_table)
    adds = ", ".join(
        f"{quote(str(f.column))} = {table}.{quote(str(f.column))} + EXCLUDED.{quote(str(f.column))}"
        for f in fields
    )
    # Only names and types from the model's own metadata are formatted in; rows in key order,
    # so that two batches lock the counters they share in the same order.
    sql = (
        f"INSERT INTO {table} ({columns}) "  # noqa: S608
        f"SELECT {columns} FROM jsonb_to_recordset(%s::jsonb) AS x({typed}) "
        f"ORDER BY {key_column} ON CONFLICT ({key_column}) DO UPDATE SET {adds}"
    )
    rows.sort(key=lambda row: str(row[key_field.column]))
    with connection.cursor() as cursor:
        cursor.execute(sql, [_document(rows)])


class AnyOf(Lookup):  # type: ignore[type-arg]
    """`field__any=[...]`: the rows whose field is one of many values, as one array parameter.

    Django's `__in` writes a placeholder per value (`id IN (%s, %s, ...)`): for the scheduler's
    batches of 64 records, every statement prepares 64 keys one by one, and psycopg, which
    binds on the client, splits and fills a statement as long as its list in Python, a new one
    for each list length. On PostgreSQL this is `id = ANY(%s::uuid[])`: one parameter, the same
    statement whatever the number of values (so psycopg's cache of parsed statements keeps
    it). Elsewhere it is `__in`. The values must be the field's own (UUIDs or their text,
    integers): they are converted by the field as `__in` would, without a subquery or a None
    among them.
    """

    lookup_name = "any"

    def get_prep_lookup(self) -> list[Any]:
        return list(self.rhs)

    def as_sql(self, compiler: Any, connection: Any) -> Any:
        if connection.vendor != "postgresql":
            return In(self.lhs, self.rhs).as_sql(compiler, connection)
        lhs, lhs_params = self.process_lhs(compiler, connection)
        field = self.lhs.output_field
        values = [field.get_db_prep_value(value, connection, prepared=False) for value in self.rhs]
        return f"{lhs} = ANY(%s::{field.db_type(connection)}[])", [*lhs_params, values]


def allow_any(model: type[models.Model], *names: str) -> None:
    """`name__any=[...]` on these fields of `model` alone (Django's lookups registered on a
    field instance; `pk` names the primary key): the rest of the project keeps `__in`."""
    for name in names:
        field = model._meta.pk if name == "pk" else _concrete(model, name)
        if field is None:
            raise ValueError(f"{model.__name__} has no primary key")
        field.register_lookup(AnyOf)
