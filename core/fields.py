"""Model fields of our own."""

from typing import Any

from django.db import models


class JSONField(models.JSONField):
    """Django's JSONField, whose bulk inserts stay a VALUES list on PostgreSQL.

    Since Django 5.2, `bulk_create` on PostgreSQL sends each column as one array
    (`INSERT ... SELECT * FROM UNNEST(%s::jsonb[], ...)`). With psycopg's client-side binding
    (Django's default) every JSON document of such an array is escaped in Python, a regular
    expression substitution per quote it contains. For the event rows (the outbox, the live
    feed, notifications: documents of a few hundred bytes, a post with its records) a VALUES
    list costs less CPU at every batch size (docs/performance.md), and the scheduler's results
    write several such rows per published record. Tiny documents in large batches are cheaper
    as arrays: the tables of posts and records keep Django's field. Django keeps to VALUES for
    a field that names its own placeholder; this one names the ordinary one. Nothing else
    changes: the column, the value and every other query are those of Django's JSONField.
    """

    def get_placeholder(self, value: Any, compiler: Any, connection: Any) -> str:
        return "%s"
