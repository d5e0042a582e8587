"""The throwaway seventh network's stand-in (tests/social/example_network.py): its API on a
local server, with what every stand-in does (tests/social/standins.StandIn: `fail`, `hang`,
`expired`, what it received)."""

import time
from dataclasses import dataclass
from typing import Any

from tests.social.standins import Answer, Call, StandIn, stamp

EXAMPLE_KEY = "example-key-0123456789"


@dataclass
class ExampleStandIn(StandIn):
    routes = (
        ("GET", r"/v1/me", "me"),
        ("POST", r"/v1/posts", "create_post"),
        ("GET", r"/v1/posts", "list_posts"),
        ("GET", r"/v1/posts/(\d+)", "one_post"),
    )

    def _refused(self, call: Call) -> Answer | None:
        if self.expired or call.headers.get("Authorization") != f"Bearer {EXAMPLE_KEY}":
            return 401, {"error": "token_gone", "message": "The key was revoked."}, {}
        return None

    def me(self, call: Call) -> Answer:
        return self._refused(call) or (200, {"id": 7, "handle": "ada", "name": "Ada"}, {})

    def create_post(self, call: Call) -> Answer:
        refused = self._refused(call)
        if refused:
            return refused
        body: dict[str, Any] = call.body
        if not body.get("text"):
            return 422, {"error": "invalid", "message": "A post needs its text."}, {}
        number = 700 + self.next_id()
        post = {"id": number, "text": body["text"], "media": body.get("media") or [],
                "options": body.get("options") or {}, "createdAt": stamp(time.time()),
                "url": f"https://example.social/ada/{number}", "views": 12, "likes": 3}  # fmt: skip
        self.posts.append(post)
        return 201, post, {}

    def list_posts(self, call: Call) -> Answer:
        """Newest first, `limit` a page, the page after the post `before`."""
        posts = list(reversed(self.posts))
        if call.q("before"):
            posts = [post for post in posts if post["id"] < int(call.q("before"))]
        return self._refused(call) or (200, posts[: int(call.q("limit") or 20)], {})

    def one_post(self, call: Call, number: str) -> Answer:
        found = [post for post in self.posts if post["id"] == int(number)]
        if not found:
            return self._refused(call) or (404, {"error": "not_found", "message": "No post."}, {})
        return self._refused(call) or (200, found[0], {})
