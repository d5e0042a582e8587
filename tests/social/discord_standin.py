"""Discord's HTTP API as a stand-in (networks/discord.md), strict like the real one: the consent
page (`webhook.incoming`: the user picks a channel; `deny` sends them back with
`error=access_denied`), the token endpoint with HTTP Basic client authentication and
single-use codes whose answer carries the webhook it created, the webhook read and deleted, a
message executed (JSON, or multipart with `payload_json` and `files[n]`; the message only with
`?wait=true`), refused for a text over 2,000 characters, an empty message, a name Discord
reserves, alt text over 1,024 characters, files over 10 MiB (413), a forum without
`thread_name` (220001); messages read back with their reactions; Discord's error bodies
`{message, code, errors?}` and the `X-RateLimit-*` headers on every answer. `StandIn` gives it
`fail`, `expired` (every webhook deleted in Discord: 404 `Unknown Webhook`), `scripted` and
`acted`."""

import base64
import json
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from tests.social.standins import Answer, Call, StandIn, stamp

DISCORD_CLIENT = ("1100000000000000001", "discord-client-secret")
GUILD_ID = "1200000000000000001"
CHANNEL_ID = "1300000000000000001"
WEBHOOK_NAME = "Ada Designs #announcements"
MAX_FILES_BYTES = 10 * 1024 * 1024
HOOK = r"/api/v10/webhooks/(\d+)/([\w.-]+)"


def _invalid(field_name: str, code: str, message: str) -> Answer:
    errors = {field_name: {"_errors": [{"code": code, "message": message}]}}
    return 400, {"message": "Invalid Form Body", "code": 50035, "errors": errors}, {}


@dataclass
class DiscordStandIn(StandIn):
    codes: dict[str, str] = field(default_factory=dict)  # code -> redirect URI
    webhooks: dict[str, dict[str, Any]] = field(default_factory=dict)  # id -> the webhook
    deny: bool = False  # the user declines on the consent page
    no_webhook: bool = False  # the token's answer carries no webhook
    forum: bool = False  # the channel is a forum: a message needs a thread_name
    remaining: int = 4  # X-RateLimit-Remaining
    routes = (
        ("GET", r"/oauth2/authorize", "authorize"),
        ("POST", r"/api/v10/oauth2/token", "token"),
        ("GET", HOOK, "webhook"),
        ("DELETE", HOOK, "delete_webhook"),
        ("POST", HOOK, "execute"),
        ("GET", HOOK + r"/messages/(\d+)", "message"),
    )

    # --- What every answer carries -------------------------------------------------------------

    def answer(self, call: Call) -> Answer:
        status, body, headers = super().answer(call)
        limits = {"X-RateLimit-Limit": "5", "X-RateLimit-Remaining": str(self.remaining),
                  "X-RateLimit-Reset": f"{time.time() + 2:.3f}",
                  "X-RateLimit-Reset-After": "2.000",
                  "X-RateLimit-Bucket": "d3b0c5f1e2a4"}  # fmt: skip
        return status, body, {**limits, **headers}

    def busy(self) -> Answer:
        body = {"message": "You are being rate limited.", "retry_after": 30.0, "global": False}
        headers = {"Retry-After": "30", "X-RateLimit-Remaining": "0",
                   "X-RateLimit-Reset-After": "30.000", "X-RateLimit-Scope": "user"}  # fmt: skip
        return 429, body, headers

    def down(self) -> Answer:
        return 503, {"message": "503: Service Unavailable", "code": 0}, {}

    # --- OAuth2 ---------------------------------------------------------------------------------

    def authorize(self, call: Call) -> Answer:
        redirect = call.q("redirect_uri")
        if call.q("client_id") != DISCORD_CLIENT[0] or call.q("response_type") != "code":
            return 400, {"message": "Invalid OAuth2 application", "code": 50010}, {}
        if "webhook.incoming" not in call.q("scope").split() or not redirect:
            return 400, {"message": "Invalid OAuth2 scope", "code": 50035}, {}
        if self.deny:
            back = urlencode({"error": "access_denied", "state": call.q("state"),
                              "error_description": "The resource owner or authorization server "
                              "denied the request"})  # fmt: skip
            return 302, b"", {"Location": f"{redirect}?{back}"}
        code = f"dc-code-{self.next_id()}"
        with self.lock:
            self.codes[code] = redirect
        query = urlencode({"code": code, "state": call.q("state"), "guild_id": GUILD_ID})
        return 302, b"", {"Location": f"{redirect}?{query}"}

    def token(self, call: Call) -> Answer:
        basic = call.headers.get("Authorization", "").removeprefix("Basic ")
        try:
            client = base64.b64decode(basic).decode()
        except ValueError:
            client = ""
        if client != ":".join(DISCORD_CLIENT):
            return 401, {"error": "invalid_client"}, {}
        form = call.body
        code = str(form.get("code") or "")
        with self.lock:
            redirect = self.codes.pop(code, None)
        if form.get("grant_type") != "authorization_code" or redirect != form.get("redirect_uri"):
            return 400, {"error": "invalid_grant",
                         "error_description": 'Invalid "code" in request.'}, {}  # fmt: skip
        number = self.next_id()
        hook_id = f"14000000000000{number:05d}"
        hook = {"id": hook_id, "type": 1, "guild_id": GUILD_ID, "channel_id": CHANNEL_ID,
                "name": WEBHOOK_NAME, "avatar": None, "application_id": DISCORD_CLIENT[0],
                "token": f"dcWebhookToken{number}_{'x' * 40}-end",
                "url": f"https://discord.com/api/webhooks/{hook_id}/<token>"}  # fmt: skip
        answer: dict[str, Any] = {"access_token": f"dc-access-{number}", "token_type": "Bearer",
                                  "expires_in": 604800, "refresh_token": f"dc-refresh-{number}",
                                  "scope": "webhook.incoming"}  # fmt: skip
        if not self.no_webhook:
            with self.lock:
                self.webhooks[hook_id] = dict(hook)
            answer["webhook"] = hook
        return 200, answer, {}

    # --- The webhook ----------------------------------------------------------------------------

    def _hook(self, hook_id: str, token: str) -> tuple[dict[str, Any] | None, Answer | None]:
        hook = self.webhooks.get(hook_id)
        if hook is None or self.expired or hook.get("deleted"):
            return None, (404, {"message": "Unknown Webhook", "code": 10015}, {})
        if hook["token"] != token:
            return None, (401, {"message": "Invalid Webhook Token", "code": 50027}, {})
        return hook, None

    def webhook(self, call: Call, hook_id: str, token: str) -> Answer:
        hook, refused = self._hook(hook_id, token)
        if refused or hook is None:
            return refused or (404, {"message": "Unknown Webhook", "code": 10015}, {})
        shown = {key: value for key, value in hook.items() if key not in ("url", "deleted")}
        return 200, shown, {}

    def delete_webhook(self, call: Call, hook_id: str, token: str) -> Answer:
        hook, refused = self._hook(hook_id, token)
        if refused or hook is None:
            return refused or (404, {"message": "Unknown Webhook", "code": 10015}, {})
        hook["deleted"] = True
        return 204, b"", {}

    def _refusal(self, payload: dict[str, Any], files: list[bytes]) -> Answer | None:
        content = str(payload.get("content") or "")
        if len(content) > 2000:
            return _invalid("content", "BASE_TYPE_MAX_LENGTH", "Must be 2000 or fewer in length.")
        if not content.strip() and not files and not payload.get("embeds"):
            return 400, {"message": "Cannot send an empty message", "code": 50006}, {}
        name = str(payload.get("username") or "")
        if "username" in payload and (
            not 1 <= len(name) <= 80 or "discord" in name.lower() or "clyde" in name.lower()
        ):
            return _invalid("username", "USERNAME_INVALID", "Username cannot contain discord.")
        if payload.get("flags") not in (None, 0, 4):
            return _invalid("flags", "MESSAGE_FLAGS_INVALID", "Invalid flags.")
        if len(files) > 10:
            return _invalid("files", "BASE_TYPE_MAX_LENGTH", "Must be 10 or fewer in length.")
        attachments = payload.get("attachments") or []
        if [a.get("id") for a in attachments] != list(range(len(files))):
            return _invalid("attachments", "ATTACHMENT_NOT_FOUND", "Unknown attachment id.")
        if any(len(str(a.get("description") or "")) > 1024 for a in attachments):
            return _invalid(
                "attachments", "BASE_TYPE_MAX_LENGTH", "Must be 1024 or fewer in length."
            )
        if sum(len(raw) for raw in files) > MAX_FILES_BYTES:
            return 413, {"message": "Request entity too large", "code": 40005}, {}
        thread = str(payload.get("thread_name") or "")
        if self.forum and not thread:
            return 400, {"message": "Webhooks posted to forum channels must have a thread_name "
                         "or thread_id", "code": 220001}, {}  # fmt: skip
        if len(thread) > 100:
            return _invalid("thread_name", "BASE_TYPE_MAX_LENGTH", "Must be 100 or fewer.")
        return None

    def execute(self, call: Call, hook_id: str, token: str) -> Answer:
        hook, refused = self._hook(hook_id, token)
        if refused or hook is None:
            return refused or (404, {"message": "Unknown Webhook", "code": 10015}, {})
        body = call.body if isinstance(call.body, dict) else {}
        kind = call.headers.get("Content-Type", "")
        files: list[bytes] = []
        if kind.startswith("multipart/form-data"):
            try:
                payload = json.loads(body.get("payload_json") or b"{}")
            except ValueError:
                return 400, {"message": "Invalid Form Body", "code": 50109}, {}
            index = 0
            while f"files[{index}]" in body:
                files.append(bytes(body[f"files[{index}]"]))
                index += 1
        else:
            payload = body
        refused = self._refusal(payload, files)
        if refused:
            return refused
        number = self.next_id()
        message_id = f"15000000000000{number:05d}"
        channel = f"16000000000000{number:05d}" if self.forum else hook["channel_id"]
        attachments = [{"id": f"17000000000000{number:03d}{i:02d}",
                        "filename": a.get("filename"), "description": a.get("description"),
                        "size": len(files[i]), "content_type": "application/octet-stream",
                        "url": f"https://cdn.discordapp.com/attachments/{channel}/{i}"}
                       for i, a in enumerate(payload.get("attachments") or [])]  # fmt: skip
        message = {"id": message_id, "type": 0, "channel_id": channel,
                   "content": payload.get("content") or "",
                   "author": {"id": hook_id, "username": payload.get("username") or hook["name"],
                              "avatar": None, "bot": True},
                   "attachments": attachments, "embeds": [], "mentions": [],
                   "timestamp": stamp(time.time()).replace(".000Z", "+00:00"),
                   "flags": payload.get("flags") or 0, "webhook_id": hook_id}  # fmt: skip
        with self.lock:
            reactions = [{"count": 3, "emoji": {"name": "tada"}},
                         {"count": 2, "emoji": {"name": "heart"}}]  # fmt: skip
            self.posts.append({**message, "payload": payload, "files": len(files),
                               "reactions": reactions})  # fmt: skip
        if call.q("wait") != "true":
            return 204, b"", {}
        return 200, message, {}

    def message(self, call: Call, hook_id: str, token: str, message_id: str) -> Answer:
        hook, refused = self._hook(hook_id, token)
        if refused or hook is None:
            return refused or (404, {"message": "Unknown Webhook", "code": 10015}, {})
        found = next((p for p in self.posts if p["id"] == message_id), None)
        if found is None or found.get("deleted"):
            return 404, {"message": "Unknown Message", "code": 10008}, {}
        shown = {key: value for key, value in found.items() if key not in ("payload", "files")}
        return 200, shown, {}
