"""The field name notifications' migrations 0015 and 0018 import: Django's JSONField itself.

It was a JSONField whose `bulk_create` kept to a VALUES list on PostgreSQL; the event rows it
served are written by core.bulk.insert_values there now, so nothing of it was left to keep.
"""

from django.db.models import JSONField

__all__ = ["JSONField"]
