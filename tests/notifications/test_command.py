"""manage.py send_system_alert: everyone or chosen e-mails, in batches, never one per user."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from accounts.models import User
from notifications.models import Notification
from tests.notifications.test_services import statements_for

pytestmark = pytest.mark.django_db


def send(*args: str) -> str:
    out = StringIO()
    call_command("send_system_alert", *args, stdout=out)
    return out.getvalue()


def test_to_all_users_in_batches(django_assert_max_num_queries):
    User.objects.bulk_create([User(email=f"u{i:04d}@example.com") for i in range(2500)])
    # One SELECT of the user ids, then three batches (1000, 1000, 500), each a few statements
    # whatever its size (the INSERTs as the backend splits them, the live feed's events
    # included): 13 on PostgreSQL, 54 on SQLite (at most 999 parameters a statement).
    budget = 1 + statements_for(2500, 1000)
    assert budget <= 60
    with django_assert_max_num_queries(budget):
        out = send(
            "--all", "--title", "Maintenance", "--message", "Tonight.", "--batch-size", "1000"
        )
    assert out == "Sent 2500 system alert(s).\n"
    assert Notification.objects.count() == 2500
    assert Notification.objects.values("user").distinct().count() == 2500
    assert set(Notification.objects.values_list("type", "category", "title")) == {
        ("system_alert", "System", "Maintenance")
    }


def test_to_chosen_emails_case_insensitively(ada, bob):
    out = send(
        "--email", "ADA@example.com", "--email", "bob@example.com", "--title", "T", "--message", "M"
    )
    assert out == "Sent 2 system alert(s).\n"
    assert set(Notification.objects.values_list("user_id", flat=True)) == {ada.id, bob.id}


def test_an_unknown_email_sends_nothing(ada):
    with pytest.raises(CommandError, match=r"No user with e-mail: nobody@example\.com"):
        send(
            "--email",
            "ada@example.com",
            "--email",
            "nobody@example.com",
            "--title",
            "T",
            "--message",
            "M",
        )
    assert not Notification.objects.exists()


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["--title", "T", "--message", "M"], "one of the arguments --all --email is required"),
        (["--all", "--email", "a@b.c", "--title", "T", "--message", "M"], "not allowed with"),
        (["--all", "--title", " ", "--message", "M"], "must not be empty"),
        (["--all", "--title", "t" * 201, "--message", "M"], "limited to 200"),
        (["--all", "--title", "T", "--message", "M", "--batch-size", "0"], "at least 1"),
    ],
)
def test_bad_arguments(ada, args, error):
    with pytest.raises(CommandError, match=error):
        send(*args)
    assert not Notification.objects.exists()
