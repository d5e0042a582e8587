"""Google Business Profile's APIs as a stand-in (networks/google_business.md), one server for
the three hosts: Account Management (`/v1/accounts`), Business Information (an account's
locations, one location; `readMask` required) and v4's posts (`localPosts`: create, list,
`:reportInsights`), with Google's `{error: {code, message, status}}` bodies. Its tokens come
from Google's token endpoint (google_oauth_standin, served by YouTube's stand-in, to which this
one is linked). `review` is the state a new post gets (LIVE, PROCESSING or REJECTED), `gone`
the locations answering 404 (deleted, suspended), `disabled` the APIs not enabled for the
project (403 on every call). `StandIn` gives it `fail`, `expired` (its tokens and refresh token
refused), `scripted` and `acted`."""

import time
from dataclasses import dataclass, field
from typing import Any

from tests.social.google_oauth_standin import GoogleAPIStandIn
from tests.social.standins import Answer, Call, _bearer, stamp

BUSINESS_SCOPE = "https://www.googleapis.com/auth/business.manage"
ACCOUNTS: list[dict[str, Any]] = [
    {"name": "accounts/1000", "accountName": "Ada Lovelace", "type": "PERSONAL",
     "role": "PRIMARY_OWNER", "verificationState": "UNVERIFIED"},
    {"name": "accounts/2000", "accountName": "Ada Designs Group", "type": "LOCATION_GROUP",
     "role": "OWNER", "verificationState": "VERIFIED"},
]  # fmt: skip
LOCATIONS: dict[str, list[dict[str, Any]]] = {
    "accounts/1000": [],
    "accounts/2000": [
        {"name": "locations/3001", "title": "Ada Designs Studio"},
        {"name": "locations/3002", "title": "Ada Designs Shop"},
    ],
}
TOPICS = ("STANDARD", "EVENT", "OFFER")
ACTIONS = ("BOOK", "ORDER", "SHOP", "LEARN_MORE", "SIGN_UP", "CALL")
STATUS = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED",
          404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL",
          503: "UNAVAILABLE"}  # fmt: skip
POSTS = r"/v4/(accounts/\d+)/(locations/\d+)/localPosts"


def _gbp_error(status: int, message: str) -> Answer:
    return status, {"error": {"code": status, "message": message,
                              "status": STATUS.get(status, "UNKNOWN")}}, {}  # fmt: skip


@dataclass
class GoogleBusinessStandIn(GoogleAPIStandIn):
    locations: dict[str, list[dict[str, Any]]] = field(
        default_factory=lambda: {
            name: [dict(item) for item in items] for name, items in LOCATIONS.items()
        }
    )
    review: str = "LIVE"  # the state a new post gets
    gone: set[str] = field(default_factory=set)  # location ids answering 404
    disabled: bool = False  # the Business Profile APIs not enabled: 403 everywhere
    SCOPES = (BUSINESS_SCOPE,)
    REFRESH_TOKEN = "gbp-refresh-token"
    routes = (
        ("GET", r"/v1/accounts", "accounts"),
        ("GET", r"/v1/(accounts/\d+)/locations", "account_locations"),
        ("GET", r"/v1/locations/(\d+)", "location"),
        ("GET", POSTS, "list_posts"),
        ("POST", POSTS, "create_post"),
        ("POST", POSTS + ":reportInsights", "insights"),
    )

    def busy(self) -> Answer:
        status, body, _ = _gbp_error(429, "Quota exceeded for quota metric 'Requests'.")
        return status, body, {"Retry-After": "30"}

    def down(self) -> Answer:
        return _gbp_error(503, "The service is currently unavailable.")

    def _refused(self, call: Call) -> Answer | None:
        if self.expired or _bearer(call) not in self.tokens:
            return _gbp_error(401, "Request had invalid authentication credentials.")
        if self.disabled:
            return _gbp_error(403, "My Business API has not been used in project 1 before or "
                              "it is disabled.")  # fmt: skip
        return None

    def _place(self, account: str, location: str) -> Answer | None:
        """The location, one of the account's, still there."""
        mine = [item["name"] for item in self.locations.get(account, [])]
        if location not in mine or location.split("/")[1] in self.gone:
            return _gbp_error(404, "Requested entity was not found.")
        return None

    # --- Accounts and locations ----------------------------------------------------------------

    def accounts(self, call: Call) -> Answer:
        return self._refused(call) or (200, {"accounts": ACCOUNTS}, {})

    def account_locations(self, call: Call, account: str) -> Answer:
        refused = self._refused(call)
        if refused:
            return refused
        if not call.q("readMask"):
            return _gbp_error(400, "Request contains an invalid argument: read_mask is required.")
        if account not in self.locations:
            return _gbp_error(404, "Requested entity was not found.")
        size = int(call.q("pageSize") or 10)
        start = int(call.q("pageToken") or 0)
        items = self.locations[account][start : start + size]
        metadata = {"placeId": "ChIJ-ada", "mapsUri": "https://maps.google.com/?cid=1"}
        page: dict[str, Any] = {"locations": [{**i, "metadata": metadata} for i in items]}
        if start + size < len(self.locations[account]):
            page["nextPageToken"] = str(start + size)
        return 200, page, {}

    def location(self, call: Call, number: str) -> Answer:
        refused = self._refused(call)
        if refused:
            return refused
        if not call.q("readMask"):
            return _gbp_error(400, "Request contains an invalid argument: read_mask is required.")
        for items in self.locations.values():
            for item in items:
                if item["name"] == f"locations/{number}" and number not in self.gone:
                    return 200, {"name": item["name"], "title": item["title"]}, {}
        return _gbp_error(404, "Requested entity was not found.")

    # --- Posts --------------------------------------------------------------------------------

    def _invalid(self, body: dict[str, Any]) -> str:
        """Why Google refuses this LocalPost, or ""."""
        topic = body.get("topicType")
        if topic not in TOPICS or not isinstance(body.get("languageCode"), str):
            return "Invalid topicType or languageCode."
        if not 0 < len(str(body.get("summary") or "")) <= 1500 and topic == "STANDARD":
            return "summary is required and at most 1500 characters."
        action = body.get("callToAction")
        if action is not None:
            if topic == "OFFER" or action.get("actionType") not in ACTIONS:
                return "Invalid callToAction."
            if (action.get("actionType") == "CALL") == bool(action.get("url")):
                return "callToAction.url is required, except for CALL (none)."
        media = body.get("media") or []
        if len(media) > 1 or any(item.get("mediaFormat") != "PHOTO" or not str(
                item.get("sourceUrl") or "").startswith("http") for item in media):  # fmt: skip
            return "Invalid media: one PHOTO with a sourceUrl."
        event = body.get("event")
        if (topic in ("EVENT", "OFFER")) != (event is not None):
            return "event is required for EVENT and OFFER posts only."
        if event is not None:
            schedule = event.get("schedule") or {}
            if not 0 < len(str(event.get("title") or "")) <= 58 or not schedule.get("startDate"):
                return "event.title and event.schedule are required."
            if not schedule.get("endDate"):
                return "event.schedule.endDate is required."
        if (topic == "OFFER") != ("offer" in body):
            return "offer is for OFFER posts only."
        return ""

    def create_post(self, call: Call, account: str, location: str) -> Answer:
        refused = self._refused(call) or self._place(account, location)
        if refused:
            return refused
        body = call.body if isinstance(call.body, dict) else {}
        invalid = self._invalid(body)
        if invalid:
            return _gbp_error(400, f"Request contains an invalid argument. {invalid}")
        number = self.next_id()
        now = stamp(time.time())
        post = {**body, "name": f"{account}/{location}/localPosts/{number}", "state": self.review,
                "createTime": now, "updateTime": now,
                "searchUrl": f"https://local.google.com/posts?lpsid={number}"}  # fmt: skip
        if post.get("media"):
            post["media"] = [{**post["media"][0], "googleUrl": "https://lh3.example/p.jpg"}]
        with self.lock:
            self.posts.append(post)
        return 200, post, {}

    def list_posts(self, call: Call, account: str, location: str) -> Answer:
        refused = self._refused(call) or self._place(account, location)
        if refused:
            return refused
        size = min(int(call.q("pageSize") or 20), 100)
        start = int(call.q("pageToken") or 0)
        # Oldest first: the order is not documented, and a lookup must not rely on one.
        mine = [post for post in self.posts if post["name"].startswith(f"{account}/{location}/")]
        page: dict[str, Any] = {"localPosts": mine[start : start + size]}
        if start + size < len(mine):
            page["nextPageToken"] = str(start + size)
        return 200, page, {}

    def insights(self, call: Call, account: str, location: str) -> Answer:
        refused = self._refused(call) or self._place(account, location)
        if refused:
            return refused
        body = call.body if isinstance(call.body, dict) else {}
        names = body.get("localPostNames") or []
        basic = body.get("basicRequest") or {}
        if not names or not basic.get("metricRequests") or not basic.get("timeRange"):
            return _gbp_error(400, "Request contains an invalid argument. basicRequest.")
        known = {post["name"] for post in self.posts}
        if any(name not in known for name in names):
            return _gbp_error(404, "Requested entity was not found.")
        values = {"LOCAL_POST_VIEWS_SEARCH": "240", "LOCAL_POST_ACTIONS_CALL_TO_ACTION": "12"}
        metrics = [{"localPostName": name, "metricValues": [
            {"metric": metric, "totalValue": {"metricOption": "AGGREGATED_TOTAL",
                                              "value": value}}
            for metric, value in values.items()]} for name in names]  # fmt: skip
        return 200, {"localPostMetrics": metrics, "timeZone": "Europe/London"}, {}
