"""The contract's pagination and ordering, exact at the edges."""

import pytest

from accounts.models import User

pytestmark = [pytest.mark.urls("tests.api.urls"), pytest.mark.django_db]


@pytest.fixture
def make_users():
    def make(count: int) -> list[User]:
        return [User.objects.create_user(email=f"user{i:03d}@example.com") for i in range(count)]

    return make


def test_empty_list_without_parameters_is_a_bare_array(api):
    assert api.get("/api/_probe/items").json() == {"success": True, "data": []}


def test_empty_list_with_page_has_exact_meta(api):
    body = api.get("/api/_probe/items?page=1").json()
    assert body == {
        "success": True,
        "data": [],
        "meta": {"total": 0, "page": 1, "limit": 20, "totalPages": 0, "hasMore": False},
    }


def test_full_array_without_parameters_has_no_meta(api, make_users):
    make_users(25)
    body = api.get("/api/_probe/items").json()
    assert len(body["data"]) == 25
    assert "meta" not in body


def test_last_page(api, make_users):
    make_users(25)
    body = api.get("/api/v1/_probe/items?page=2&limit=10&sort=email&order=asc").json()
    assert body["meta"] == {"total": 25, "page": 2, "limit": 10, "totalPages": 3, "hasMore": True}
    body = api.get("/api/v1/_probe/items?page=3&limit=10&sort=email&order=asc").json()
    assert [u["email"] for u in body["data"]] == [f"user{i:03d}@example.com" for i in range(20, 25)]
    assert body["meta"] == {"total": 25, "page": 3, "limit": 10, "totalPages": 3, "hasMore": False}


def test_page_past_the_end_is_clamped_to_the_last_page(api, make_users):
    make_users(5)
    body = api.get("/api/_probe/items?page=99&limit=2").json()
    assert body["meta"] == {"total": 5, "page": 3, "limit": 2, "totalPages": 3, "hasMore": False}
    assert len(body["data"]) == 1


@pytest.mark.parametrize(
    ("query", "page", "limit"),
    [
        ("limit=1000", 1, 100),  # clamped to the general maximum
        ("limit=0", 1, 1),
        ("limit=-5", 1, 1),
        ("page=0", 1, 20),
        ("page=-3&limit=5", 1, 5),
    ],
)
def test_out_of_range_values_are_clamped(api, make_users, query, page, limit):
    make_users(3)
    meta = api.get(f"/api/_probe/items?{query}").json()["meta"]
    assert (meta["page"], meta["limit"]) == (page, limit)


def test_per_view_default_and_maximum(api, make_users):
    make_users(12)
    assert api.get("/api/_probe/small-items?page=1").json()["meta"]["limit"] == 10
    assert api.get("/api/_probe/small-items?limit=500").json()["meta"]["limit"] == 50


@pytest.mark.parametrize("query", ["page=abc", "limit=1.5", "page=", "limit=ten"])
def test_non_integers_are_400(api, query):
    response = api.get(f"/api/_probe/items?{query}")
    assert response.status_code == 400
    body = response.json()
    assert body["error"]["code"] == "validation_error"
    name = query.split("=")[0]
    assert body["error"]["details"] == {name: ["A valid integer is required."]}


def test_safety_ceiling_returns_first_page_with_meta(api, make_users, settings):
    settings.API_LIST_CEILING = 5
    make_users(7)
    body = api.get("/api/_probe/items").json()
    assert len(body["data"]) == 5
    assert body["meta"] == {"total": 7, "page": 1, "limit": 5, "totalPages": 2, "hasMore": True}


def test_at_the_ceiling_the_whole_array_is_returned(api, make_users, settings):
    settings.API_LIST_CEILING = 5
    make_users(5)
    body = api.get("/api/_probe/items").json()
    assert len(body["data"]) == 5
    assert "meta" not in body


def test_default_order_is_newest_first(api, make_users):
    users = make_users(3)
    ids = [u["id"] for u in api.get("/api/_probe/items").json()["data"]]
    assert ids == [str(u.id) for u in reversed(users)]


def test_sort_and_order_on_a_whitelisted_field(api, make_users):
    make_users(3)
    emails = [u["email"] for u in api.get("/api/_probe/items?sort=email&order=asc").json()["data"]]
    assert emails == sorted(emails)
    emails = [u["email"] for u in api.get("/api/_probe/items?sort=email&order=desc").json()["data"]]
    assert emails == sorted(emails, reverse=True)


def test_unknown_sort_field_or_order_is_400(api):
    response = api.get("/api/_probe/items?sort=password&order=sideways")
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {
        "sort": ["Unknown sort field. Choose one of: created_at, email."],
        "order": ["Must be 'asc' or 'desc'."],
    }


def test_pages_never_overlap_when_sort_keys_tie(api, make_users):
    make_users(9)
    User.objects.update(created_at="2026-01-01T00:00:00Z")
    seen = []
    for page in (1, 2, 3):
        seen += [u["id"] for u in api.get(f"/api/_probe/items?page={page}&limit=3").json()["data"]]
    assert len(seen) == len(set(seen)) == 9


@pytest.mark.parametrize("limit", [1, 50])
def test_query_count_is_constant_per_request(api, make_users, django_assert_num_queries, limit):
    make_users(60)
    with django_assert_num_queries(2):  # one count, one page
        api.get(f"/api/_probe/items?limit={limit}")
    with django_assert_num_queries(1):  # the whole array in one query
        api.get("/api/_probe/items")
