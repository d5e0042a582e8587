"""Admin: the notification changelist with its filters and search, and the system-alert action."""

import pytest
from django.contrib import admin
from django.contrib.auth.models import Permission

from accounts.models import User
from notifications.admin import send_system_alert_action
from notifications.models import Notification

pytestmark = pytest.mark.django_db

USERS_URL = "/admin/accounts/user/"


@pytest.fixture
def user_admin_with_action(rf):
    """The User admin (accounts/), which carries the action (added by notifications/admin.py)."""
    user_admin = admin.site._registry[User]
    request = rf.get(USERS_URL)
    request.user = User(email="ops@example.com", role="admin", is_superuser=True)
    action = user_admin.get_actions(request).get("send_system_alert_action")
    assert action is not None
    assert action[0] == send_system_alert_action  # type: ignore[comparison-overlap]
    return user_admin


@pytest.mark.parametrize(
    "query",
    [
        "",
        "?category__exact=Billing",
        "?type__exact=payment_failed",
        "?read__exact=0",
        "?read__exact=1",
        "?q=ada%40example",
        "?q=Title+1",
        "?category__exact=System&read__exact=0&q=ada",
        "?o=6",  # sorted by created_at
        "?o=2",  # sorted by user e-mail
    ],
)
def test_changelist_renders_with_each_filter_and_search(admin_client, ada, seed, query):
    seed(ada, 3)
    response = admin_client.get(f"/admin/notifications/notification/{query}")
    assert response.status_code == 200


def test_changelist_shows_the_columns_and_filters(admin_client, ada, seed):
    seed(ada, 1, type="payment_failed")
    html = admin_client.get("/admin/notifications/notification/").content.decode()
    for text in ("Title 0", "ada@example.com", "payment_failed", "Billing"):
        assert text in html
    for heading in ("By category", "By type", "By read"):
        assert heading in html


def test_search_finds_by_user_email_and_title(admin_client, ada, bob, seed):
    seed(ada, 1)
    seed(bob, 1, start=1)
    by_email = admin_client.get("/admin/notifications/notification/?q=bob%40example.com")
    assert by_email.context["cl"].result_count == 1
    by_title = admin_client.get("/admin/notifications/notification/?q=Title+0")
    assert [n.user_id for n in by_title.context["cl"].result_list] == [ada.id]


def test_change_page_is_read_only_and_add_is_forbidden(admin_client, ada, seed):
    [notification] = seed(ada, 1)
    page = admin_client.get(f"/admin/notifications/notification/{notification.pk}/change/")
    assert page.status_code == 200
    assert "Title 0" in page.content.decode()
    response = admin_client.post(
        f"/admin/notifications/notification/{notification.pk}/change/", {"title": "Edited"}
    )
    assert response.status_code == 403
    notification.refresh_from_db()
    assert notification.title == "Title 0"
    assert admin_client.get("/admin/notifications/notification/add/").status_code == 403


def test_operators_may_delete(admin_client, ada, seed):
    [notification] = seed(ada, 1)
    response = admin_client.post(
        f"/admin/notifications/notification/{notification.pk}/delete/", {"post": "yes"}
    )
    assert response.status_code == 302
    assert not Notification.objects.exists()


def test_action_shows_a_form_first_and_sends_nothing(
    admin_client, user_admin_with_action, ada, bob
):
    response = admin_client.post(
        USERS_URL,
        {"action": "send_system_alert_action", "_selected_action": [str(ada.pk), str(bob.pk)]},
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "Send a system alert" in html
    assert "goes to 2 users" in html
    assert html.count('name="_selected_action"') == 2
    assert not Notification.objects.exists()


def test_action_sends_a_system_alert_to_the_selected_users(
    admin_client, user_admin_with_action, ada, bob
):
    response = admin_client.post(
        USERS_URL,
        {
            "action": "send_system_alert_action",
            "index": "0",
            "_selected_action": [str(ada.pk)],
            "apply": "Send",
            "title": "Maintenance",
            "message": "Tonight at 22:00 UTC.",
        },
    )
    assert response.status_code == 302
    [alert] = Notification.objects.all()
    assert (alert.user_id, alert.type, alert.category) == (ada.pk, "system_alert", "System")
    assert (alert.title, alert.message) == ("Maintenance", "Tonight at 22:00 UTC.")
    page = admin_client.get(response["Location"])
    assert "System alert sent to 1 user(s)." in page.content.decode()


def test_action_across_all_pages_sends_to_the_whole_filtered_set(
    admin_client, user_admin_with_action, ada, bob
):
    # The operator exists too: "all" is every user the changelist holds.
    form = admin_client.post(
        USERS_URL,
        {"action": "send_system_alert_action", "select_across": "1", "_selected_action": [ada.pk]},
    )
    html = form.content.decode()
    assert "goes to 3 users" in html
    assert 'name="select_across" value="1"' in html
    response = admin_client.post(
        USERS_URL,
        {
            "action": "send_system_alert_action",
            "index": "0",
            "select_across": "1",
            "_selected_action": [str(ada.pk)],
            "apply": "Send",
            "title": "T",
            "message": "M",
        },
    )
    assert response.status_code == 302
    assert Notification.objects.count() == User.objects.count() == 3


def test_action_with_an_empty_title_shows_the_form_again(admin_client, user_admin_with_action, ada):
    response = admin_client.post(
        USERS_URL,
        {
            "action": "send_system_alert_action",
            "index": "0",
            "_selected_action": [str(ada.pk)],
            "apply": "Send",
            "title": "",
            "message": "M",
        },
    )
    assert response.status_code == 200
    assert "This field is required." in response.content.decode()
    assert not Notification.objects.exists()


def test_action_needs_the_permission_to_add_notifications(client, user_admin_with_action, ada):
    staff = User.objects.create_user(email="staff@example.com", role="admin")
    staff.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_user", "change_user"])
    )
    client.force_login(staff)
    response = client.post(
        USERS_URL,
        {
            "action": "send_system_alert_action",
            "index": "0",
            "_selected_action": [str(ada.pk)],
            "apply": "Send",
            "title": "T",
            "message": "M",
        },
    )
    assert response.status_code == 302
    assert not Notification.objects.exists()
    assert "You may not send notifications." in client.get(response["Location"]).content.decode()


def test_webhook_deliveries_outbox_and_consumptions_have_pages(admin_client, settings):
    settings.OUTBOUND_ALLOW_PRIVATE = True
    from accounts.services.workspaces import workspace_personal
    from notifications.services.webhooks import endpoint_create

    ada = User.objects.create_user(email="ada@example.com")
    endpoint, _ = endpoint_create(actor=workspace_personal(user=ada), url="https://127.0.0.1/in",
                                  events=["credits.depleted"])  # fmt: skip
    from notifications import events

    events.emit(user=ada, payload=events.credits_depleted(user_id=str(ada.id),
                                                                  remaining_credits=0))  # fmt: skip
    for url in ("/admin/notifications/webhookdelivery/", "/admin/notifications/outboxevent/",
                "/admin/notifications/outboxconsumption/",
                "/admin/notifications/webhookdelivery/?status__exact=pending",
                "/admin/notifications/outboxconsumption/?consumer=webhooks"):  # fmt: skip
        response = admin_client.get(url)
        assert response.status_code == 200, url
    assert endpoint.pk


def test_a_disabled_endpoint_can_be_reactivated_from_the_admin(admin_client):
    from accounts.services.workspaces import workspace_personal
    from notifications.models import WebhookEndpoint
    from notifications.services.webhooks import endpoint_create

    ada = User.objects.create_user(email="ada@example.com")
    endpoint, _ = endpoint_create(actor=workspace_personal(user=ada), url="https://127.0.0.1/in",
                                  events=["credits.depleted"])  # fmt: skip
    WebhookEndpoint.objects.filter(pk=endpoint.pk).update(
        active=False, disabled_reason="5 deliveries failed in a row.", consecutive_failures=5
    )
    response = admin_client.post("/admin/notifications/webhookendpoint/", {
        "action": "reactivate", "_selected_action": [str(endpoint.pk)]})  # fmt: skip
    assert response.status_code == 302
    endpoint.refresh_from_db()
    assert (endpoint.active, endpoint.disabled_reason, endpoint.consecutive_failures) == (
        True, "", 0)  # fmt: skip


def test_groups_are_not_in_the_admin(admin_client):
    assert admin_client.get("/admin/auth/group/").status_code == 404
