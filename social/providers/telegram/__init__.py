"""Telegram: its connection (the user's own bot token and the chat it posts to, checked and kept
encrypted) and the adapter that sends texts, photos, media groups and videos to the chat as
the bot, threads and first comments as replies, each message once."""

from social.providers.telegram.adapter import TelegramAdapter, post_url
from social.providers.telegram.connection import classify, may_post

__all__ = ["TelegramAdapter", "classify", "may_post", "post_url"]
