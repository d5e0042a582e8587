"""Discord: its connection (OAuth2 `webhook.incoming`: the incoming webhook the consent creates
is the credential, kept encrypted) and the adapter that posts messages with images, alt text
and a video to the webhook's channel."""

from social.providers.discord.adapter import DiscordAdapter, message_url
from social.providers.discord.connection import SCOPES, Webhook, classify, webhook_of

__all__ = ["SCOPES", "DiscordAdapter", "Webhook", "classify", "message_url", "webhook_of"]
