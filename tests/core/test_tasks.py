"""Scheduled housekeeping tasks do their job and are safe to run twice."""

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework_simplejwt.token_blacklist.models import OutstandingToken

from accounts.models import User
from accounts.tasks import flush_expired_tokens_task

pytestmark = pytest.mark.django_db


def test_flush_expired_tokens_keeps_live_ones():
    user = User.objects.create_user(email="t@example.com")
    now = timezone.now()
    for jti, expires in (("old", now - timedelta(days=1)), ("live", now + timedelta(days=1))):
        OutstandingToken.objects.create(user=user, jti=jti, token="x", expires_at=expires)
    assert flush_expired_tokens_task.delay().get() == 1
    assert flush_expired_tokens_task.delay().get() == 0
    assert list(OutstandingToken.objects.values_list("jti", flat=True)) == ["live"]
