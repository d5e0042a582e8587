"""notification_list(): the deferred-join pages and the read filter give the plain answers."""

import pytest
from django.db.models import QuerySet

from accounts.models import User
from notifications.models import Notification
from notifications.selectors import notification_list

pytestmark = pytest.mark.django_db


def plain(
    user: User, read: bool | None = None, order: tuple[str, ...] = ("-created_at", "-id")
) -> QuerySet[Notification]:
    rows = Notification.objects.filter(user=user)
    if read is not None:
        rows = rows.filter(read=read)
    return rows.order_by(*order)


@pytest.mark.parametrize("read", [None, True, False])
@pytest.mark.parametrize("order", [("-created_at", "-id"), ("created_at", "id")])
def test_every_slice_matches_a_plain_queryset(ada, bob, seed, read, order):
    seed(ada, 6)
    seed(ada, 5, read=True, start=6)
    seed(bob, 4, start=11)
    listed = notification_list(user=ada, read=read).order_by(*order)
    expected = list(plain(ada, read, order))
    assert listed.count() == len(expected)
    for start, stop in [(0, 3), (3, 6), (9, 20), (0, 0), (2, None), (0, 1000)]:
        assert list(listed[start:stop]) == expected[start:stop], (start, stop)
    assert listed[1] == expected[1]
    assert listed.first() == expected[0]
    assert list(listed.values_list("pk", flat=True)[1:3]) == [n.pk for n in expected[1:3]]


def test_the_read_filter_is_the_users_own(ada, bob, seed):
    [adas_read] = seed(ada, 1, read=True)
    seed(bob, 2, read=True, start=1)
    seed(bob, 1, start=3)
    assert list(notification_list(user=ada, read=True)) == [adas_read]
    assert list(notification_list(user=ada, read=False)) == []


def test_a_page_is_one_query(ada, seed, django_assert_num_queries):
    seed(ada, 5)
    listed = notification_list(user=ada)
    with django_assert_num_queries(1):
        assert len(list(listed[1:3])) == 2
