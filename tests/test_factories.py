"""The shared test helpers: a factory user is made as a real sign-up makes one."""

import pytest
from django.conf import settings

from billing.models import CreditTransaction
from tests.factories import UserFactory, client_for

pytestmark = pytest.mark.django_db


def test_a_factory_user_has_its_own_address_and_the_starting_credits():
    first, second = UserFactory.create(), UserFactory.create()
    assert first.email != second.email
    assert first.email.endswith("@example.com")
    assert not first.has_usable_password()
    assert first.credits_remaining == settings.PLANS["free"]["monthly_quota"]
    assert list(CreditTransaction.objects.filter(user=first).values_list("reason", "delta")) == [
        ("signup", settings.PLANS["free"]["monthly_quota"])
    ]


def test_a_factory_user_signs_in_with_the_password_it_was_given():
    user = UserFactory.create(email="lin@example.com", password="Quiet-lake-42", full_name="Lin")
    assert user.check_password("Quiet-lake-42")
    me = client_for(user).get("/api/auth/me")
    assert me.status_code == 200
    assert (me.json()["data"]["email"], me.json()["data"]["full_name"]) == (
        "lin@example.com",
        "Lin",
    )
