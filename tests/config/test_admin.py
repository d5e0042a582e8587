"""Admin smoke tests: an e-mail superuser signs in and every user page renders."""

import pytest
from django.core.management import call_command

from accounts.models import Role, User

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client):
    admin = User.objects.create_superuser(email="Ops@Example.com", password="s3cret-pass")
    client.force_login(admin)
    return client


def test_createsuperuser_takes_an_email(monkeypatch):
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", "s3cret-pass")
    call_command("createsuperuser", email="root@example.com", interactive=False, verbosity=0)
    user = User.objects.get(email="root@example.com")
    assert user.role == Role.ADMIN
    assert user.is_staff
    assert user.is_superuser
    assert user.check_password("s3cret-pass")


def test_admin_login_page_renders(client):
    response = client.get("/admin/login/")
    assert response.status_code == 200
    assert b"Freelancer Growth" in response.content


def test_login_with_email_in_any_case(client):
    User.objects.create_superuser(email="ops@example.com", password="s3cret-pass")
    assert client.login(username="OPS@example.com", password="s3cret-pass")


@pytest.mark.parametrize(
    "path",
    ["/admin/", "/admin/accounts/user/", "/admin/accounts/user/?q=ops&role__exact=admin"],
)
def test_admin_pages_render(admin_client, path):
    assert admin_client.get(path).status_code == 200


def test_user_change_page_renders(admin_client):
    user = User.objects.create_user(email="someone@example.com")
    assert admin_client.get(f"/admin/accounts/user/{user.pk}/change/").status_code == 200


def test_regular_users_cannot_enter_the_admin(client):
    user = User.objects.create_user(email="user@example.com", password="pw123456")
    client.force_login(user)
    response = client.get("/admin/")
    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]
