"""`field__any=[...]` (core.bulk.AnyOf): the rows `__in` finds, as one array parameter on
PostgreSQL, on the fields of the batch reads alone (core.bulk.allow_any)."""

import uuid

import pytest
from django.apps import apps
from django.core.exceptions import FieldError
from django.db import connection, models
from django.test.utils import CaptureQueriesContext

from notifications.models import Notification, OutboxConsumption, OutboxEvent
from social.models import SocialSettings

pytestmark = pytest.mark.django_db

# The fields whose batch reads take `__any`: the leased kinds' keys (core.leases), the
# endpoints of a consumer batch's workspaces, the posts' records and the workspaces' social
# settings.
TAKE_ANY = {
    ("notifications.WebhookEndpoint", "workspace"),  # webhooks' routing of a batch's events
    ("aitools.Generation", "id"),
    ("notifications.OutboxConsumption", "id"),
    ("notifications.WebhookDelivery", "id"),
    ("social.Post", "id"),
    ("social.ScheduledRecord", "id"),
    ("social.ScheduledRecord", "post"),
    ("social.SocialSettings", "workspace"),
}


def test_any_finds_what_in_finds_by_uuid_text_integer_and_foreign_key(ada, bob):
    mine, theirs = ada.personal_workspace.pk, bob.personal_workspace.pk
    for workspace_id in (mine, theirs):
        SocialSettings.objects.create(workspace_id=workspace_id)
    wanted = [mine, str(theirs), uuid.uuid4()]
    assert set(SocialSettings.objects.filter(workspace_id__any=wanted)) == set(
        SocialSettings.objects.filter(workspace_id__in=wanted)
    )
    assert {row.pk for row in SocialSettings.objects.filter(workspace__any=[theirs])} == {theirs}
    assert {row.pk for row in SocialSettings.objects.exclude(pk__any=[mine])} == {theirs}
    event = OutboxEvent.objects.create(event="post.published", user=ada, data={})
    rows = [OutboxConsumption.objects.create(event=event, consumer=name) for name in "abc"]
    found = OutboxConsumption.objects.filter(pk__any=[rows[0].pk, rows[2].pk, 10**9])
    assert set(found) == {rows[0], rows[2]}
    assert not OutboxConsumption.objects.filter(pk__any=[]).exists()


def test_any_is_taken_by_the_batch_reads_fields_alone(ada):
    taking = {
        (model._meta.label, field.name)
        for model in apps.get_models()
        for field in model._meta.get_fields()
        if isinstance(field, models.Field) and "any" in field.get_lookups()
    }
    assert taking == TAKE_ANY
    with pytest.raises(FieldError, match="Unsupported lookup 'any'"):
        list(Notification.objects.filter(id__any=[uuid.uuid4()]))


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the array is PostgreSQL's")
def test_any_is_one_parameter_whatever_the_number_of_values():
    keys = [uuid.uuid4() for _ in range(64)]
    with CaptureQueriesContext(connection) as queries:
        list(SocialSettings.objects.filter(workspace_id__any=keys[:3]))
        list(SocialSettings.objects.filter(workspace_id__any=keys))
    first, second = (query["sql"] for query in queries)
    assert "= ANY(" in first
    assert first.split("ANY(")[0] == second.split("ANY(")[0]
