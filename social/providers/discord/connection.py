"""Discord's connection (networks/discord.md): OAuth2 with the `webhook.incoming` scope, whose
code exchange creates an incoming webhook in the channel the user picked on the consent page.
The webhook (its id and token) is the credential: it does not expire, so the OAuth tokens are
not kept. It is stored encrypted as the account's access token (with its server and channel),
never returned by the API, and kept out of the logs (core.logs redacts `/webhooks/{id}/...`).
Discord's error answers are `{message, code, errors?}`; a 429's `{retry_after, global}`."""

import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.conf import settings

from core import outbound
from social.providers.base import ConnectRequest, Credentials, Identity, OAuthApp
from social.providers.client import ProviderClient, body_of
from social.providers.oauth import basic_auth
from social.providers.text import Composer

SCOPES = "webhook.incoming"
UNKNOWN_WEBHOOK = 10015  # the user deleted the webhook (or its channel) in Discord
INVALID_WEBHOOK_TOKEN = 50027
MISSING_PERMISSIONS = frozenset({50001, 50013})  # Missing Access, Missing Permissions
REQUEST_TOO_LARGE = 40005


def discord_error(response: outbound.Response) -> tuple[int | None, str]:
    """(code, message) of Discord's error body; OAuth's `{error}` gives no numeric code."""
    body = body_of(response)
    code = body.get("code")
    said = str(body.get("message") or body.get("error_description") or body.get("error") or "")
    return (code if isinstance(code, int) and not isinstance(code, bool) else None), said


def classify(response: outbound.Response) -> outbound.OutboundError | None:
    """429: retried not before `retry_after` (nothing was done); a deleted webhook or a
    refused token is authentication (the account expires: reconnect); a missing permission,
    a refused body or a too large one are refusals; 5xx retried, and, as the network file
    says, nothing left behind (an error answer is not a message)."""
    status = response.status_code
    if 200 <= status < 300:
        return None
    code, said = discord_error(response)
    text = outbound.excerpt(response)
    message = f"Discord refused the request ({code or f'HTTP {status}'}): {said}".rstrip(": ")
    if status == 429:
        return outbound.TransientError(
            "Discord's rate limit was reached.",
            status=429,
            retry_after=_retry_after(response),
            excerpt=text,
        )
    if isinstance(body_of(response).get("error"), str):  # the token endpoint's OAuth error
        return outbound.PermanentError(
            f"Discord refused the code ({said}).", status=status, excerpt=text
        )
    if code in (UNKNOWN_WEBHOOK, INVALID_WEBHOOK_TOKEN) or status == 401:
        return outbound.AuthenticationError(
            "Discord no longer knows this webhook (deleted in Discord): reconnect the channel.",
            status=status,
            excerpt=text,
        )
    if status >= 500:
        return outbound.TransientError(
            f"Discord is unavailable (HTTP {status}).", status=status, excerpt=text
        )
    if 400 <= status < 500:
        return outbound.PermanentError(message, status=status, excerpt=text)
    return None


def _retry_after(response: outbound.Response) -> float | None:
    """Discord's `retry_after` (seconds, a float) in the body, else `Retry-After`."""
    wait = body_of(response).get("retry_after")
    if isinstance(wait, int | float) and not isinstance(wait, bool):
        return float(wait)
    return outbound.retry_after_seconds(response)


@dataclass(frozen=True, slots=True)
class Webhook:
    """The stored credential: the webhook's id and token, its server and channel."""

    id: str
    token: str
    guild_id: str = ""
    channel_id: str = ""

    def packed(self) -> str:
        return json.dumps(
            {"id": self.id, "token": self.token, "guild": self.guild_id, "channel": self.channel_id}
        )

    def __repr__(self) -> str:  # never the token in a log line or a traceback
        return f"Webhook(id={self.id!r}, ...)"


def webhook_of(credentials: Credentials) -> Webhook:
    """The account's webhook, from its stored (decrypted) access token."""
    try:
        kept = json.loads(credentials.access_token)
    except ValueError:
        kept = None
    if not isinstance(kept, dict) or not kept.get("token"):
        raise outbound.AuthenticationError("No Discord webhook is kept: reconnect the channel.")
    return Webhook(
        id=str(kept.get("id") or credentials.provider_user_id),
        token=str(kept["token"]),
        guild_id=str(kept.get("guild") or ""),
        channel_id=str(kept.get("channel") or ""),
    )


class DiscordConnection(Composer):
    """The consent, the webhook it creates, and the webhook's calls."""

    _client = ProviderClient("discord", classify)

    @staticmethod
    def configured() -> bool:
        return bool(settings.DISCORD_CLIENT_ID and settings.DISCORD_CLIENT_SECRET)

    @staticmethod
    def api(path: str) -> str:
        return f"{settings.DISCORD_API_URL}/v10/{path}"

    def hook_url(self, webhook: Webhook, tail: str = "") -> str:
        return self.api(f"webhooks/{webhook.id}/{webhook.token}{tail}")

    def authorize_url(
        self, *, redirect_uri: str, state: str, app: OAuthApp | None, instance: str = ""
    ) -> str:
        query = urlencode(
            {
                "response_type": "code",
                "client_id": settings.DISCORD_CLIENT_ID,
                "scope": SCOPES,
                "redirect_uri": redirect_uri,
                "state": state,
            }
        )
        return f"{settings.DISCORD_AUTH_URL}?{query}"

    def connect(self, request: ConnectRequest) -> Identity:
        """The code for tokens and the webhook the consent created; only the webhook is kept
        (it is the credential, without an end). An answer without one cannot post."""
        token: dict[str, Any] = self._client.json(
            "POST",
            self.api("oauth2/token"),
            data={
                "grant_type": "authorization_code",
                "code": request.code,
                "redirect_uri": request.redirect_uri,
            },
            headers=basic_auth(settings.DISCORD_CLIENT_ID, settings.DISCORD_CLIENT_SECRET),
        )
        hook = token.get("webhook")
        if not isinstance(hook, dict) or not hook.get("id") or not hook.get("token"):
            raise outbound.PermanentError(
                "Discord's consent created no webhook: pick a channel, then reconnect the channel."
            )
        webhook = Webhook(
            id=str(hook["id"]),
            token=str(hook["token"]),
            guild_id=str(hook.get("guild_id") or ""),
            channel_id=str(hook.get("channel_id") or ""),
        )
        return _identity(hook, webhook)

    def identity(self, credentials: Credentials) -> Identity:
        """`GET /webhooks/{id}/{token}` (the health check's and the pre-flight check's call):
        a webhook deleted in Discord answers 404 `Unknown Webhook`, an authentication
        failure (the account expires)."""
        webhook = webhook_of(credentials)
        hook: dict[str, Any] = self._client.json("GET", self.hook_url(webhook))
        kept = Webhook(
            id=webhook.id,
            token=webhook.token,
            guild_id=str(hook.get("guild_id") or webhook.guild_id),
            channel_id=str(hook.get("channel_id") or webhook.channel_id),
        )
        return _identity(hook, kept)

    def refresh(self, credentials: Credentials) -> None:
        """Nothing to renew: the webhook does not expire."""

    def revoke(self, credentials: Credentials) -> None:
        """`DELETE /webhooks/{id}/{token}` (best effort: the caller ignores a failure)."""
        self._client.call("DELETE", self.hook_url(webhook_of(credentials)))


def _identity(hook: dict[str, Any], webhook: Webhook) -> Identity:
    name = str(hook.get("name") or "Discord webhook")
    return Identity(
        provider_user_id=webhook.id,
        username=name,
        display_name=name,
        access_token=webhook.packed(),
        expires_at=None,
    )
