"""Slack's Web API as a stand-in (networks/slack.md), strict like the real one: the consent page
(bot scopes, comma-separated; `deny` sends the user back with `error=access_denied`),
`oauth.v2.access` with HTTP Basic client authentication and single-use codes (`rotation`: the
answer adds `expires_in` and `refresh_token`, renewed with `grant_type=refresh_token`), every
method answering HTTP 200 `{ok: true, ...}` or `{ok: false, error}` (only a rate limit, 429 with
`Retry-After`, and outages use other statuses), the bot token as `Authorization: Bearer`,
JSON bodies only with `application/json`. The workspace's public channels (listed by cursor,
joined, read, archived), `chat.postMessage` (40,000 characters, `metadata` read back only
with `include_all_metadata`, `thread_ts` only a top-level message's), the three-step file
upload (`files.getUploadURLExternal`, the bytes to the upload address, answered `OK - <n>`,
`files.completeUploadExternal`: a share's message appears after `share_delay` reads of the
channel), `conversations.history` (newest first, `oldest`/`latest`, `limit`, cursors) and
`conversations.replies` (the parent, then its replies, oldest first), `chat.getPermalink`,
`auth.revoke`. `StandIn` gives it `fail`, `expired` (every token revoked: `token_revoked`),
`scripted` and `acted`."""

import base64
import itertools
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from tests.social.standins import Answer, Call, StandIn

SLACK_CLIENT = ("5100000000.5200000000", "slack-client-secret")
TEAM_ID, TEAM_NAME, TEAM_DOMAIN = "T0ADA0001", "Ada Designs", "ada-designs"
BOT_USER_ID, BOT_ID, APP_ID = "U0BOT0001", "B0BOT0001", "A0APP0001"
GENERAL, LAUNCHES, ARCHIVED = "C0GENERAL1", "C0LAUNCH01", "C0OLDNEWS1"
SCOPES = ("chat:write", "channels:read", "channels:join", "channels:history", "files:write")
MAX_TEXT, MAX_ALT = 40_000, 1000
MAX_FILE_BYTES = 1024**3
JSON_METHODS = ("chat.postMessage", "files.completeUploadExternal", "conversations.join")


def _slack_error(code: str) -> Answer:
    """A Web API refusal: HTTP 200, `ok: false`, its code."""
    return 200, {"ok": False, "error": code}, {}


def _channels() -> dict[str, dict[str, Any]]:
    return {
        GENERAL: {"id": GENERAL, "name": "general", "is_general": True, "is_member": False,
                  "is_archived": False, "is_channel": True, "is_private": False},
        LAUNCHES: {"id": LAUNCHES, "name": "launches", "is_general": False, "is_member": True,
                   "is_archived": False, "is_channel": True, "is_private": False},
        ARCHIVED: {"id": ARCHIVED, "name": "old-news", "is_general": False, "is_member": False,
                   "is_archived": True, "is_channel": True, "is_private": False},
    }  # fmt: skip


@dataclass
class SlackStandIn(StandIn):
    codes: dict[str, str] = field(default_factory=dict)  # code -> redirect URI
    tokens: set[str] = field(default_factory=set)  # bot tokens that work
    refresh_tokens: set[str] = field(default_factory=set)
    deny: bool = False  # the user declines on the consent page
    rotation: bool = False  # the app has token rotation enabled
    channels: dict[str, dict[str, Any]] = field(default_factory=_channels)
    members: set[str] = field(default_factory=lambda: {LAUNCHES})
    uploads: dict[str, dict[str, Any]] = field(default_factory=dict)  # file id -> the upload
    share_delay: int = 0  # channel reads before a file share's message shows
    shares_hidden: dict[str, int] = field(default_factory=dict)  # ts -> reads left hidden
    page_size: int = 1  # conversations.list answers fewer than asked (its cursors walked)
    _ts: Any = field(default_factory=lambda: itertools.count(1))
    routes = (
        ("GET", r"/oauth/v2/authorize", "authorize"),
        ("POST", r"/api/oauth\.v2\.access", "access"),
        ("POST", r"/api/auth\.test", "auth_test"),
        ("POST", r"/api/auth\.revoke", "revoke"),
        ("GET", r"/api/conversations\.list", "channel_list"),
        ("GET", r"/api/conversations\.info", "channel_info"),
        ("POST", r"/api/conversations\.join", "join"),
        ("POST", r"/api/chat\.postMessage", "post_message"),
        ("GET", r"/api/chat\.getPermalink", "permalink"),
        ("POST", r"/api/files\.getUploadURLExternal", "upload_url"),
        ("POST", r"/upload/v1/(\w+)", "upload"),
        ("POST", r"/api/files\.completeUploadExternal", "complete_upload"),
        ("GET", r"/api/conversations\.history", "history"),
        ("GET", r"/api/conversations\.replies", "replies"),
    )

    # --- What every answer carries --------------------------------------------------------

    def busy(self) -> Answer:
        return 429, {"ok": False, "error": "ratelimited"}, {"Retry-After": "30"}

    def down(self) -> Answer:
        return 503, {"ok": False, "error": "service_unavailable"}, {}

    def dispatch(self, call: Call) -> Answer:
        """The token (every method but the consent, the token endpoint and the upload
        address), a JSON body's content type, then the method."""
        path = call.path
        if path.startswith("/api/") and path != "/api/oauth.v2.access":
            token = call.headers.get("Authorization", "").removeprefix("Bearer ")
            if not token:
                return _slack_error("not_authed")
            if self.expired:
                return _slack_error("token_revoked")
            if token not in self.tokens:
                return _slack_error("invalid_auth")
            if path.removeprefix("/api/") in JSON_METHODS and not isinstance(call.body, dict):
                return _slack_error("invalid_arguments")
        return super().dispatch(call)

    def args(self, call: Call) -> dict[str, Any]:
        body = call.body if isinstance(call.body, dict) else {}
        return {**{name: values[0] for name, values in call.query.items()}, **body}

    def next_ts(self) -> str:
        with self.lock:
            return f"{int(time.time())}.{next(self._ts):06d}"

    # --- OAuth v2 ---------------------------------------------------------------------------

    def authorize(self, call: Call) -> Answer:
        redirect = call.q("redirect_uri")
        if call.q("client_id") != SLACK_CLIENT[0] or not redirect:
            return 400, {"ok": False, "error": "invalid_client_id"}, {}
        if set(call.q("scope").split(",")) != set(SCOPES):
            return 400, {"ok": False, "error": "invalid_scope"}, {}
        if self.deny:
            back = urlencode({"error": "access_denied", "state": call.q("state")})
            return 302, b"", {"Location": f"{redirect}?{back}"}
        code = f"slack-code-{self.next_id()}"
        with self.lock:
            self.codes[code] = redirect
        query = urlencode({"code": code, "state": call.q("state")})
        return 302, b"", {"Location": f"{redirect}?{query}"}

    def _bot_token(self) -> dict[str, Any]:
        number = self.next_id()
        token = f"xoxb-{number}-{'7' * 12}-standinBotToken{number:04d}"
        answer: dict[str, Any] = {"access_token": token, "token_type": "bot",
                                  "scope": ",".join(SCOPES), "bot_user_id": BOT_USER_ID,
                                  "app_id": APP_ID, "team": {"id": TEAM_ID, "name": TEAM_NAME},
                                  "enterprise": None, "is_enterprise_install": False,
                                  "authed_user": {"id": "U0ADA0001"}}  # fmt: skip
        with self.lock:
            self.tokens.add(token)
        if self.rotation:
            token = f"xoxe.xoxb-1-standinRotating{number:04d}"
            refresh = f"xoxe-1-standinRefresh{number:04d}"
            answer.update(access_token=token, expires_in=43200, refresh_token=refresh)
            with self.lock:
                self.tokens.add(token)
                self.refresh_tokens.add(refresh)
        return answer

    def access(self, call: Call) -> Answer:
        basic = call.headers.get("Authorization", "").removeprefix("Basic ")
        form = call.body if isinstance(call.body, dict) else {}
        try:
            client = base64.b64decode(basic).decode() if basic else ""
        except ValueError:
            client = ""
        if not client:
            client = f"{form.get('client_id', '')}:{form.get('client_secret', '')}"
        client_id, _, secret = client.partition(":")
        if client_id != SLACK_CLIENT[0]:
            return _slack_error("invalid_client_id")
        if secret != SLACK_CLIENT[1]:
            return _slack_error("bad_client_secret")
        if form.get("grant_type") == "refresh_token":
            refresh = str(form.get("refresh_token") or "")
            with self.lock:
                if refresh not in self.refresh_tokens or self.expired:
                    return _slack_error("invalid_refresh_token")
                self.refresh_tokens.discard(refresh)
            return 200, {"ok": True, **self._bot_token()}, {}
        code = str(form.get("code") or "")
        with self.lock:
            redirect = self.codes.pop(code, None)
        if redirect is None:
            return _slack_error("invalid_code")
        if redirect != form.get("redirect_uri"):
            return _slack_error("bad_redirect_uri")
        return 200, {"ok": True, **self._bot_token()}, {}

    def auth_test(self, call: Call) -> Answer:
        return 200, {"ok": True, "url": f"https://{TEAM_DOMAIN}.slack.com/", "team": TEAM_NAME,
                     "user": "fgp", "team_id": TEAM_ID, "user_id": BOT_USER_ID,
                     "bot_id": BOT_ID, "is_enterprise_install": False}, {}  # fmt: skip

    def revoke(self, call: Call) -> Answer:
        token = call.headers.get("Authorization", "").removeprefix("Bearer ")
        with self.lock:
            self.tokens.discard(token)
        return 200, {"ok": True, "revoked": True}, {}

    # --- Channels ---------------------------------------------------------------------------

    def channel_list(self, call: Call) -> Answer:
        args = self.args(call)
        listed = [dict(c, is_member=c["id"] in self.members) for c in self.channels.values()
                  if not (args.get("exclude_archived") == "true" and c["is_archived"])]  # fmt: skip
        start = int(args.get("cursor") or 0)
        page = listed[start : start + self.page_size]
        cursor = str(start + self.page_size) if start + self.page_size < len(listed) else ""
        return 200, {"ok": True, "channels": page,
                     "response_metadata": {"next_cursor": cursor}}, {}  # fmt: skip

    def _channel(self, channel_id: str) -> tuple[dict[str, Any] | None, Answer | None]:
        channel = self.channels.get(channel_id)
        if channel is None:
            return None, _slack_error("channel_not_found")
        return channel, None

    def channel_info(self, call: Call) -> Answer:
        channel, refused = self._channel(str(self.args(call).get("channel") or ""))
        if refused or channel is None:
            return refused or _slack_error("channel_not_found")
        return (
            200,
            {"ok": True, "channel": dict(channel, is_member=channel["id"] in self.members)},
            {},
        )

    def join(self, call: Call) -> Answer:
        channel, refused = self._channel(str(self.args(call).get("channel") or ""))
        if refused or channel is None:
            return refused or _slack_error("channel_not_found")
        if channel["is_archived"]:
            return _slack_error("is_archived")
        with self.lock:
            self.members.add(channel["id"])
        return 200, {"ok": True, "channel": dict(channel, is_member=True)}, {}

    def _postable(self, channel_id: str) -> Answer | None:
        channel, refused = self._channel(channel_id)
        if refused or channel is None:
            return refused or _slack_error("channel_not_found")
        if channel["is_archived"]:
            return _slack_error("is_archived")
        if channel_id not in self.members:
            return _slack_error("not_in_channel")
        return None

    def _thread(self, channel: str, thread_ts: str) -> Answer | None:
        parent = next((p for p in self.posts if p["ts"] == thread_ts and p["channel"] == channel),
                      None)  # fmt: skip
        if parent is None or parent.get("thread_ts"):  # threads are flat: a reply is no parent
            return _slack_error("thread_not_found")
        return None

    # --- Messages ---------------------------------------------------------------------------

    def _stored(self, message: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            self.posts.append(message)
            if message.get("thread_ts"):
                parent = next(p for p in self.posts if p["ts"] == message["thread_ts"])
                parent["reply_count"] = int(parent.get("reply_count") or 0) + 1
        return message

    def post_message(self, call: Call) -> Answer:
        args = self.args(call)
        channel, text = str(args.get("channel") or ""), args.get("text")
        refused = self._postable(channel)
        if refused:
            return refused
        if not isinstance(text, str) or not text.strip():
            return _slack_error("no_text")
        if len(text) > MAX_TEXT:
            return _slack_error("msg_too_long")
        if "blocks" in args:
            return _slack_error("invalid_blocks")
        metadata = args.get("metadata")
        if metadata is not None and (
            not isinstance(metadata, dict) or not isinstance(metadata.get("event_payload"), dict)
            or not str(metadata.get("event_type") or "")
        ):  # fmt: skip
            return _slack_error("invalid_metadata_format")
        thread = str(args.get("thread_ts") or "")
        if thread and (refused := self._thread(channel, thread)):
            return refused
        message = {"type": "message", "ts": self.next_ts(), "channel": channel, "text": text,
                   "user": BOT_USER_ID, "bot_id": BOT_ID, "metadata": metadata,
                   "unfurl_links": args.get("unfurl_links"),
                   "unfurl_media": args.get("unfurl_media"),
                   "reactions": [{"name": "tada", "count": 3, "users": []},
                                 {"name": "heart", "count": 2, "users": []}]}  # fmt: skip
        if thread:
            message["thread_ts"] = thread
        self._stored(message)
        shown = {k: v for k, v in message.items() if k not in ("channel", "reactions")}
        return 200, {"ok": True, "channel": channel, "ts": message["ts"], "message": shown}, {}

    def permalink(self, call: Call) -> Answer:
        args = self.args(call)
        ts = str(args.get("message_ts") or "")
        found = next((p for p in self.posts if p["ts"] == ts), None)
        if found is None or found["channel"] != args.get("channel"):
            return _slack_error("message_not_found")
        link = f"https://{TEAM_DOMAIN}.slack.com/archives/{found['channel']}/p{ts.replace('.', '')}"
        return 200, {"ok": True, "channel": found["channel"], "permalink": link}, {}

    # --- Files ------------------------------------------------------------------------------

    def upload_url(self, call: Call) -> Answer:
        args = self.args(call)
        try:
            length = int(args.get("length") or "")
        except ValueError:
            return _slack_error("invalid_arguments")
        if not args.get("filename"):
            return _slack_error("invalid_arguments")
        if length > MAX_FILE_BYTES:
            return _slack_error("file_upload_size_restricted")
        if len(str(args.get("alt_txt") or "")) > MAX_ALT:
            return _slack_error("alt_txt_too_large")
        file_id = f"F0FILE{self.next_id():05d}"
        with self.lock:
            self.uploads[file_id] = {"filename": args["filename"], "length": length,
                                     "alt_txt": args.get("alt_txt") or "", "data": None,
                                     "shared": False}  # fmt: skip
        return 200, {"ok": True, "upload_url": f"{self.url}/upload/v1/{file_id}",
                     "file_id": file_id}, {}  # fmt: skip

    def upload(self, call: Call, file_id: str) -> Answer:
        upload = self.uploads.get(file_id)
        if upload is None:
            return 404, b"Not Found", {}
        body = call.body
        data = next(iter(body.values()), b"") if isinstance(body, dict) else body
        if not isinstance(data, bytes) or len(data) != upload["length"]:
            return 400, b"Bad Request: the length differs", {}
        upload["data"] = data
        return 200, f"OK - {len(data)}".encode(), {"Content-Type": "text/plain"}

    def complete_upload(self, call: Call) -> Answer:
        args = self.args(call)
        files = args.get("files")
        channel = str(args.get("channel_id") or "")
        if not isinstance(files, list) or not 1 <= len(files) <= 10:
            return _slack_error("invalid_arguments")
        for item in files:
            upload = self.uploads.get(str(item.get("id")))
            if upload is None or upload["data"] is None or upload["shared"]:
                return _slack_error("file_not_found")
        if (refused := self._postable(channel)) is not None:
            return refused
        comment = str(args.get("initial_comment") or "")
        if len(comment) > MAX_TEXT:
            return _slack_error("msg_too_long")
        thread = str(args.get("thread_ts") or "")
        if thread and (refused := self._thread(channel, thread)):
            return refused
        shared = []
        for item in files:
            upload = self.uploads[str(item["id"])]
            upload["shared"] = True
            shared.append({"id": str(item["id"]), "title": item.get("title") or upload["filename"],
                           "name": upload["filename"], "alt_txt": upload["alt_txt"],
                           "size": upload["length"]})  # fmt: skip
        message = {"type": "message", "ts": self.next_ts(), "channel": channel, "text": comment,
                   "user": BOT_USER_ID, "files": shared, "upload": True,
                   "reactions": [{"name": "eyes", "count": 1, "users": []}]}  # fmt: skip
        if thread:
            message["thread_ts"] = thread
        self._stored(message)
        with self.lock:
            self.shares_hidden[str(message["ts"])] = self.share_delay
        return (
            200,
            {"ok": True, "files": [{"id": f["id"], "title": f["title"]} for f in shared]},
            {},
        )

    # --- Reading the channel ---------------------------------------------------------------

    def _visible(self, message: dict[str, Any]) -> bool:
        """A share's message shows after its reads; each read of it counts one."""
        with self.lock:
            left = self.shares_hidden.get(message["ts"], 0)
            if left > 0:
                self.shares_hidden[message["ts"]] = left - 1
                return False
        return not message.get("deleted")

    def _shown(self, message: dict[str, Any], metadata: bool) -> dict[str, Any]:
        hidden = ("channel", "unfurl_links", "unfurl_media", "deleted")
        shown = {k: v for k, v in message.items() if k not in hidden and v is not None}
        if not metadata:
            shown.pop("metadata", None)
        return shown

    def _paged(self, items: list[dict[str, Any]], args: dict[str, Any]) -> Answer:
        limit = max(1, min(int(args.get("limit") or 100), 999))
        start = int(args.get("cursor") or 0)
        page = items[start : start + limit]
        more = start + limit < len(items)
        metadata = args.get("include_all_metadata") == "true"
        cursor = str(start + limit) if more else ""
        messages = [self._shown(m, metadata) for m in page]
        body = {"ok": True, "messages": messages, "has_more": more}
        return 200, {**body, "response_metadata": {"next_cursor": cursor}}, {}

    def history(self, call: Call) -> Answer:
        """Top-level messages, newest first, between `oldest` and `latest`."""
        args = self.args(call)
        channel = str(args.get("channel") or "")
        if (refused := self._channel(channel)[1]) is not None:
            return refused
        if channel not in self.members:
            return _slack_error("not_in_channel")
        inclusive = args.get("inclusive") == "true"
        oldest, latest = float(args.get("oldest") or 0), float(args.get("latest") or 1e12)

        def within(ts: float) -> bool:
            if inclusive:
                return oldest <= ts <= latest
            return oldest < ts < latest

        found = [m for m in reversed(self.posts) if m["channel"] == channel
                 and not m.get("thread_ts") and within(float(m["ts"]))]  # fmt: skip
        return self._paged([m for m in found if self._visible(m)], args)

    def replies(self, call: Call) -> Answer:
        """The parent, then its replies, oldest first."""
        args = self.args(call)
        channel, ts = str(args.get("channel") or ""), str(args.get("ts") or "")
        if (refused := self._thread(channel, ts)) is not None:
            return refused
        found = [m for m in self.posts if m["channel"] == channel
                 and (m["ts"] == ts or m.get("thread_ts") == ts)]  # fmt: skip
        return self._paged([m for m in found if self._visible(m)], args)
