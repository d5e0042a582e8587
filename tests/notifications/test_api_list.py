"""GET /api/notifications: pagination edges, the read filter, order, isolation, query budget."""

import pytest

from notifications.models import Notification
from tests.notifications.conftest import as_json

pytestmark = pytest.mark.django_db

URL = "/api/notifications"


def meta(*, total: int, page: int, limit: int, pages: int, more: bool) -> dict:
    return {"total": total, "page": page, "limit": limit, "totalPages": pages, "hasMore": more}


@pytest.mark.parametrize("prefix", ["/api", "/api/v1"])
def test_without_page_or_limit_the_whole_list_newest_first_without_meta(
    ada_client, ada, seed, prefix
):
    oldest, middle, newest = seed(ada, 3)
    response = ada_client.get(f"{prefix}/notifications")
    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "data": [as_json(newest), as_json(middle), as_json(oldest)],
    }


def test_the_resource_has_exactly_the_specified_fields(ada_client, ada):
    from notifications.services.center import notify

    notification = notify(
        user=ada,
        type="post_published",
        title="Post published",
        message="Your post is live.",
        metadata={"postId": "p-1", "platform": "linkedin"},
    )
    [item] = ada_client.get(URL).json()["data"]
    assert item == {
        "id": str(notification.id),
        "user_id": str(ada.id),
        "title": "Post published",
        "message": "Your post is live.",
        "category": "Social Hub",
        "type": "post_published",
        "read": False,
        "metadata": {"postId": "p-1", "platform": "linkedin"},
        "created_at": notification.created_at.isoformat().replace("+00:00", "Z"),
    }


def test_empty_list(ada_client):
    assert ada_client.get(URL).json() == {"success": True, "data": []}
    assert ada_client.get(f"{URL}?page=1").json() == {
        "success": True,
        "data": [],
        "meta": meta(total=0, page=1, limit=20, pages=0, more=False),
    }


def test_default_page_size_is_20(ada_client, ada, seed):
    made = seed(ada, 25)
    body = ada_client.get(f"{URL}?page=1").json()
    assert body == {
        "success": True,
        "data": [as_json(n) for n in reversed(made[5:])],
        "meta": meta(total=25, page=1, limit=20, pages=2, more=True),
    }


def test_last_page(ada_client, ada, seed):
    made = seed(ada, 25)
    body = ada_client.get(f"{URL}?page=2").json()
    assert body == {
        "success": True,
        "data": [as_json(n) for n in reversed(made[:5])],
        "meta": meta(total=25, page=2, limit=20, pages=2, more=False),
    }


def test_pages_neither_overlap_nor_skip_even_with_equal_timestamps(ada_client, ada, seed):
    made = seed(ada, 7)
    Notification.objects.filter(user=ada).update(created_at=made[0].created_at)
    ids = []
    for page in (1, 2, 3):
        ids += [n["id"] for n in ada_client.get(f"{URL}?page={page}&limit=3").json()["data"]]
    assert sorted(ids) == sorted(str(n.id) for n in made)


def test_limit_over_50_is_clamped_to_50(ada_client, ada, seed):
    seed(ada, 51)
    body = ada_client.get(f"{URL}?limit=51").json()
    assert len(body["data"]) == 50
    assert body["meta"] == meta(total=51, page=1, limit=50, pages=2, more=True)


@pytest.mark.parametrize(
    ("query", "page", "limit"),
    [
        ("limit=0", 1, 1),
        ("limit=-3", 1, 1),
        ("limit=1000", 1, 50),
        ("page=0", 1, 20),
        ("page=-1", 1, 20),
        ("page=99&limit=2", 3, 2),  # past the end: the last page
        ("limit=2&page=3", 3, 2),
    ],
)
def test_out_of_range_values_are_clamped(ada_client, ada, seed, query, page, limit):
    made = seed(ada, 5)
    body = ada_client.get(f"{URL}?{query}").json()
    pages = -(-5 // limit)
    assert body["meta"] == meta(total=5, page=page, limit=limit, pages=pages, more=page < pages)
    newest_first = list(reversed(made))
    expected = newest_first[(page - 1) * limit : page * limit]
    assert body["data"] == [as_json(n) for n in expected]


def test_a_page_beyond_the_end_of_an_empty_list_is_page_1(ada_client):
    body = ada_client.get(f"{URL}?page=5&limit=10").json()
    assert body == {
        "success": True,
        "data": [],
        "meta": meta(total=0, page=1, limit=10, pages=0, more=False),
    }


@pytest.mark.parametrize(("name", "value"), [("page", "two"), ("limit", "1.5"), ("page", "")])
def test_non_integer_page_or_limit_is_400(ada_client, name, value):
    response = ada_client.get(f"{URL}?{name}={value}")
    assert response.status_code == 400
    assert response.json() == {
        "success": False,
        "message": "Validation Failed",
        "error": {"code": "validation_error", "details": {name: ["A valid integer is required."]}},
    }


@pytest.mark.parametrize(("value", "read"), [("true", True), ("false", False), ("TRUE", True)])
def test_read_filter(ada_client, ada, seed, value, read):
    unread = seed(ada, 2, read=False)
    already_read = seed(ada, 3, read=True, start=2)
    expected = already_read if read else unread
    body = ada_client.get(f"{URL}?read={value}&page=1").json()
    assert body == {
        "success": True,
        "data": [as_json(n) for n in reversed(expected)],
        "meta": meta(total=len(expected), page=1, limit=20, pages=1, more=False),
    }


def test_read_filter_without_pagination(ada_client, ada, seed):
    [unread] = seed(ada, 1)
    seed(ada, 1, read=True, start=1)
    assert ada_client.get(f"{URL}?read=false").json() == {
        "success": True,
        "data": [as_json(unread)],
    }


@pytest.mark.parametrize("value", ["1", "0", "yes", "", "null", "truee"])
def test_any_other_read_value_is_400(ada_client, ada, seed, value):
    seed(ada, 1)
    response = ada_client.get(f"{URL}?read={value}")
    assert response.status_code == 400
    assert response.json() == {
        "success": False,
        "message": "Validation Failed",
        "error": {"code": "validation_error", "details": {"read": ['Must be "true" or "false".']}},
    }


def test_order_asc_is_oldest_first(ada_client, ada, seed):
    made = seed(ada, 3)
    body = ada_client.get(f"{URL}?sort=created_at&order=asc").json()
    assert body == {"success": True, "data": [as_json(n) for n in made]}


def test_order_desc_is_the_default(ada_client, ada, seed):
    made = seed(ada, 3)
    explicit = ada_client.get(f"{URL}?sort=created_at&order=desc").json()
    assert explicit == ada_client.get(URL).json()
    assert explicit["data"] == [as_json(n) for n in reversed(made)]


@pytest.mark.parametrize(
    ("query", "details"),
    [
        ("sort=title", {"sort": ["Unknown sort field. Choose one of: created_at."]}),
        ("order=sideways", {"order": ["Must be 'asc' or 'desc'."]}),
    ],
)
def test_unknown_sort_or_order_is_400(ada_client, query, details):
    response = ada_client.get(f"{URL}?{query}")
    assert response.status_code == 400
    assert response.json() == {
        "success": False,
        "message": "Validation Failed",
        "error": {"code": "validation_error", "details": details},
    }


def test_only_the_users_own_notifications_are_listed(ada_client, bob_client, ada, bob, seed):
    [adas] = seed(ada, 1)
    [bobs] = seed(bob, 1, start=1)
    assert ada_client.get(URL).json()["data"] == [as_json(adas)]
    assert bob_client.get(URL).json()["data"] == [as_json(bobs)]


def test_without_a_token_it_is_401(api):
    response = api.get(URL)
    assert response.status_code == 401
    assert response.json() == {
        "success": False,
        "message": "Missing Authorization Header",
        "error": {"code": "not_authenticated", "details": {}},
    }


@pytest.mark.parametrize("limit", [1, 50])
@pytest.mark.parametrize(("read", "total"), [("", 60), ("&read=false", 30), ("&read=true", 30)])
def test_a_page_costs_three_queries_whatever_its_size(
    ada_client, ada, seed, django_assert_num_queries, limit, read, total
):
    # The budget counts every query of the request: the token's user, COUNT, the page.
    seed(ada, 30)
    seed(ada, 30, read=True, start=30)
    with django_assert_num_queries(3):
        response = ada_client.get(f"{URL}?page=1&limit={limit}{read}")
    assert response.status_code == 200
    assert len(response.json()["data"]) == min(limit, total)
    assert response.json()["meta"]["total"] == total


def test_the_unpaginated_list_costs_two_queries(ada_client, ada, seed, django_assert_num_queries):
    seed(ada, 30)
    with django_assert_num_queries(2):  # the token's user, the list
        assert len(ada_client.get(URL).json()["data"]) == 30
