"""The Telegram Bot API on a local server (networks/telegram.md), strict like the real one: the
token in the path (401 Unauthorized for a revoked one, 404 Not Found for what is not a token),
every answer `{ok, result}` or `{ok: false, error_code, description, parameters?}`, chats by
@username or id, the bot's membership (a channel needs an administrator allowed to post),
texts of 1 to 4,096 characters and captions of 1,024, replies only to messages of the chat,
photos (10 MB, width + height) and videos (50 MB) as multipart bytes, media groups of 2 to 10
with their `attach://` names, a group upgraded to a supergroup (`migrate_to_chat_id`), 429
with `parameters.retry_after`. A bot cannot read a chat's history: there is no route for it."""

import json
import time
from dataclasses import dataclass, field
from typing import Any

from tests.social.standins import Answer, Call, StandIn

TELEGRAM_TOKEN = "7000000001:AAHstandinTokenForTelegramBot0123456"
TELEGRAM_BOT_ID = 7000000001
TELEGRAM_CHANNEL = "@ada_designs"  # a public channel, the bot its administrator
CHANNEL_ID = -1001234567890
PRIVATE_CHANNEL_ID = -1009876543210  # no username: links for members only
GROUP_ID = -4000000001  # a basic group (no public links)
SUPERGROUP_ID = -1005550000001  # what the group becomes when upgraded
MAX_TEXT, MAX_CAPTION = 4096, 1024
PHOTO_BYTES, VIDEO_BYTES = 10 * 1024 * 1024, 50 * 1024 * 1024
WRONG_FILE = "Bad Request: wrong file identifier/HTTP URL specified"


def bot_api_error(
    status: int, description: str, parameters: dict[str, Any] | None = None
) -> Answer:
    """The Bot API's error answer: its `error_code` is the HTTP status."""
    body: dict[str, Any] = {"ok": False, "error_code": status, "description": description}
    if parameters:
        body["parameters"] = parameters
    return status, body, {}


def _chats() -> dict[int, dict[str, Any]]:
    return {
        CHANNEL_ID: {"id": CHANNEL_ID, "type": "channel", "title": "Ada Designs",
                     "username": "ada_designs"},
        PRIVATE_CHANNEL_ID: {"id": PRIVATE_CHANNEL_ID, "type": "channel", "title": "Ada Inner"},
        -1001111111111: {"id": -1001111111111, "type": "channel", "title": "Ada News",
                         "username": "ada_news"},
        GROUP_ID: {"id": GROUP_ID, "type": "group", "title": "Ada Team"},
        SUPERGROUP_ID: {"id": SUPERGROUP_ID, "type": "supergroup", "title": "Ada Team"},
        4242: {"id": 4242, "type": "private", "first_name": "Ada"},
    }  # fmt: skip


def _members() -> dict[int, dict[str, Any]]:
    """The bot's membership in each chat (a test takes a right away here)."""
    admin = {"status": "administrator", "can_post_messages": True, "can_edit_messages": True}
    return {
        CHANNEL_ID: dict(admin),
        PRIVATE_CHANNEL_ID: dict(admin),
        -1001111111111: {"status": "left"},
        GROUP_ID: {"status": "member"},
        SUPERGROUP_ID: {"status": "member"},
    }


@dataclass
class TelegramStandIn(StandIn):
    chats: dict[int, dict[str, Any]] = field(default_factory=_chats)
    members: dict[int, dict[str, Any]] = field(default_factory=_members)
    migrated: dict[int, int] = field(default_factory=dict)  # group id -> its supergroup's
    routes = (
        ("POST", r"/bot([^/]*)/getMe", "get_me"),
        ("POST", r"/bot([^/]*)/getChat", "get_chat"),
        ("POST", r"/bot([^/]*)/getChatMember", "get_chat_member"),
        ("POST", r"/bot([^/]*)/sendMessage", "send_message"),
        ("POST", r"/bot([^/]*)/sendPhoto", "send_photo"),
        ("POST", r"/bot([^/]*)/sendMediaGroup", "send_media_group"),
        ("POST", r"/bot([^/]*)/sendVideo", "send_video"),
    )

    def busy(self) -> Answer:
        return bot_api_error(429, "Too Many Requests: retry after 30", {"retry_after": 30})

    def down(self) -> Answer:
        return bot_api_error(502, "Bad Gateway")

    def dispatch(self, call: Call) -> Answer:
        status, body, headers = super().dispatch(call)
        if status == 404 and "ok" not in body:  # an unknown method
            return bot_api_error(404, "Not Found")
        return status, body, headers

    # --- What every call needs ---------------------------------------------------------------

    def _token(self, token: str) -> Answer | None:
        if ":" not in token or not token.split(":", 1)[0].isdigit():
            return bot_api_error(404, "Not Found")
        if self.expired or token != TELEGRAM_TOKEN:
            return bot_api_error(401, "Unauthorized")
        return None

    @staticmethod
    def _fields(call: Call) -> dict[str, Any]:
        """The call's parameters: a JSON body, or a multipart form's text fields decoded
        (objects in them are JSON, as the Bot API reads them) and its files as bytes."""
        body = call.body if isinstance(call.body, dict) else {}
        fields: dict[str, Any] = {}
        for name, value in body.items():
            if isinstance(value, bytes) and not name.startswith(("photo", "video")):
                text = value.decode()
                try:
                    fields[name] = json.loads(text) if text[:1] in "{[" or text in (
                        "true", "false") else text  # fmt: skip
                except ValueError:
                    fields[name] = text
            else:
                fields[name] = value
        return fields

    def _chat(self, fields: dict[str, Any]) -> tuple[dict[str, Any] | None, Answer | None]:
        wanted = str(fields.get("chat_id") or "")
        if not wanted:
            return None, bot_api_error(400, "Bad Request: chat_id is empty")
        for chat in self.chats.values():
            if wanted in (str(chat["id"]), f"@{chat.get('username', '')}"):
                return chat, None
        return None, bot_api_error(400, "Bad Request: chat not found")

    def _postable(self, call: Call, token: str) -> tuple[dict[str, Any], Answer | None]:
        """The chat a send call names, the bot allowed to post there."""
        refused = self._token(token)
        if refused:
            return {}, refused
        fields = self._fields(call)
        chat, refused = self._chat(fields)
        if refused or chat is None:
            return {}, refused
        moved = self.migrated.get(chat["id"])
        if moved:
            upgraded = "Bad Request: group chat was upgraded to a supergroup chat"
            return {}, bot_api_error(400, upgraded, {"migrate_to_chat_id": moved})
        member = self.members.get(chat["id"], {"status": "left"})
        if member["status"] in ("left", "kicked"):
            return {}, bot_api_error(403, "Forbidden: bot is not a member of the channel chat")
        if chat["type"] == "channel" and not (
            member["status"] == "creator" or member.get("can_post_messages")
        ):
            return {}, bot_api_error(
                403, "Forbidden: need administrator rights in the channel chat"
            )
        for flag in ("disable_notification", "protect_content", "supports_streaming"):
            if flag in fields and not isinstance(fields[flag], bool):
                return {}, bot_api_error(400, f"Bad Request: can't parse {flag}")
        replied = (fields.get("reply_parameters") or {}).get("message_id")
        if replied is not None and not any(
            post["chat_id"] == chat["id"] and post["message_id"] == replied for post in self.posts
        ):
            return {}, bot_api_error(400, "Bad Request: message to be replied not found")
        return {"chat": chat, "fields": fields}, None

    def _message(
        self, chat: dict[str, Any], fields: dict[str, Any], **shown: Any
    ) -> dict[str, Any]:
        """A sent message, kept (`posts`), as the API answers it."""
        with self.lock:
            message_id = self.next_id()
            kept = {"message_id": message_id, "chat_id": chat["id"],
                    "reply_to": (fields.get("reply_parameters") or {}).get("message_id"),
                    "silent": fields.get("disable_notification", False),
                    "protected": fields.get("protect_content", False),
                    "link_preview_options": fields.get("link_preview_options"),
                    **shown}  # fmt: skip
            self.posts.append(kept)
        public = {key: chat[key] for key in ("id", "type", "title", "username") if key in chat}
        answer = {"message_id": message_id, "chat": public, "date": int(time.time())}
        answer.update({k: v for k, v in shown.items() if k in ("text", "caption")})
        return answer

    # --- Who and where -----------------------------------------------------------------------

    def get_me(self, call: Call, token: str) -> Answer:
        return self._token(token) or (
            200,
            {"ok": True, "result": {"id": TELEGRAM_BOT_ID, "is_bot": True,
                                    "first_name": "Ada's bot", "username": "ada_posts_bot",
                                    "can_join_groups": True}},
            {},
        )  # fmt: skip

    def get_chat(self, call: Call, token: str) -> Answer:
        refused = self._token(token)
        if refused:
            return refused
        chat, refused = self._chat(self._fields(call))
        if chat is not None and self.members.get(chat["id"], {}).get("status") == "kicked":
            return bot_api_error(403, "Forbidden: bot was kicked from the channel chat")
        return refused or (200, {"ok": True, "result": dict(chat or {})}, {})

    def get_chat_member(self, call: Call, token: str) -> Answer:
        refused = self._token(token)
        if refused:
            return refused
        fields = self._fields(call)
        chat, refused = self._chat(fields)
        if refused or chat is None:
            return refused or bot_api_error(400, "Bad Request: chat not found")
        if not isinstance(fields.get("user_id"), int):
            return bot_api_error(400, "Bad Request: invalid user_id specified")
        member = self.members.get(chat["id"], {"status": "left"})
        user = {"id": fields["user_id"], "is_bot": fields["user_id"] == TELEGRAM_BOT_ID}
        return 200, {"ok": True, "result": {**member, "user": user}}, {}

    # --- Sending -----------------------------------------------------------------------------

    def send_message(self, call: Call, token: str) -> Answer:
        found, refused = self._postable(call, token)
        if refused:
            return refused
        fields = found["fields"]
        text = str(fields.get("text") or "")
        if not text.strip():
            return bot_api_error(400, "Bad Request: text must be non-empty")
        if len(text) > MAX_TEXT:
            return bot_api_error(400, "Bad Request: message is too long")
        preview = fields.get("link_preview_options")
        if preview is not None and not isinstance(preview, dict):
            return bot_api_error(400, "Bad Request: can't parse link preview options")
        return 200, {"ok": True, "result": self._message(found["chat"], fields, text=text)}, {}

    def _caption(self, fields: dict[str, Any]) -> Answer | None:
        if len(str(fields.get("caption") or "")) > MAX_CAPTION:
            return bot_api_error(400, "Bad Request: message caption is too long")
        return None

    @staticmethod
    def _photo(data: Any) -> Answer | None:
        if not isinstance(data, bytes) or not data:
            return bot_api_error(400, WRONG_FILE)
        if len(data) > PHOTO_BYTES:
            return bot_api_error(413, "Request Entity Too Large")
        if data[:2] != b"\xff\xd8" and data[:8] != b"\x89PNG\r\n\x1a\n" and data[8:12] != b"WEBP":
            return bot_api_error(400, "Bad Request: IMAGE_PROCESS_FAILED")
        return None

    def send_photo(self, call: Call, token: str) -> Answer:
        found, refused = self._postable(call, token)
        if refused:
            return refused
        fields = found["fields"]
        refused = self._caption(fields) or self._photo(fields.get("photo"))
        if refused:
            return refused
        caption = str(fields.get("caption") or "")
        result = self._message(found["chat"], fields, caption=caption, photos=1)
        return 200, {"ok": True, "result": result}, {}

    def send_media_group(self, call: Call, token: str) -> Answer:
        found, refused = self._postable(call, token)
        if refused:
            return refused
        fields = found["fields"]
        media = fields.get("media")
        if not isinstance(media, list) or not 2 <= len(media) <= 10:
            return bot_api_error(400, "Bad Request: media must include 2-10 items")
        for item in media:
            attached = str(item.get("media") or "").removeprefix("attach://")
            if item.get("type") != "photo" or attached not in fields:
                return bot_api_error(400, WRONG_FILE)
            refused = self._caption(item) or self._photo(fields[attached])
            if refused:
                return refused
        group = str(self.next_id())
        results = []
        for index, item in enumerate(media):
            caption = str(item.get("caption") or "")
            reply = fields if index == 0 else {**fields, "reply_parameters": None}
            message = self._message(found["chat"], reply, caption=caption, photos=1,
                                    media_group_id=group)  # fmt: skip
            results.append({**message, "media_group_id": group})
        return 200, {"ok": True, "result": results}, {}

    def send_video(self, call: Call, token: str) -> Answer:
        found, refused = self._postable(call, token)
        if refused:
            return refused
        fields = found["fields"]
        refused = self._caption(fields)
        if refused:
            return refused
        video = fields.get("video")
        if not isinstance(video, bytes) or not video:
            return bot_api_error(400, WRONG_FILE)
        if len(video) > VIDEO_BYTES:
            return bot_api_error(413, "Request Entity Too Large")
        caption = str(fields.get("caption") or "")
        result = self._message(found["chat"], fields, caption=caption, video=len(video),
                               duration=fields.get("duration"))  # fmt: skip
        return 200, {"ok": True, "result": result}, {}
