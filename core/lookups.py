"""`field__any=[...]`: the rows whose field is one of many values, as one array parameter.

Django's `__in` writes a placeholder per value (`id IN (%s, %s, ...)`): for the scheduler's
batches of 64 records, every statement prepares 64 keys one by one, and psycopg, which binds
on the client, splits and fills a statement as long as its list in Python, a new one for each
list length. `__any` writes `id = ANY(%s::uuid[])` on PostgreSQL: one parameter, the same
statement whatever the number of values (so psycopg's cache of parsed statements keeps it).
Elsewhere it is `__in`. The values must be the field's own (UUIDs or their text, integers):
they are converted by the field as `__in` would, without a subquery or a None among them.
"""

from typing import Any

from django.db.models import Field, ForeignObject, Lookup
from django.db.models.lookups import In


class AnyOf(Lookup):  # type: ignore[type-arg]
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


def register() -> None:
    Field.register_lookup(AnyOf)
    ForeignObject.register_lookup(AnyOf)  # relations keep lookups of their own
