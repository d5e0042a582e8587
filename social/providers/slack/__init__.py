"""Slack: its connection (OAuth v2 installing the app's bot in the workspace, the bot token
kept encrypted, the public channel it posts to, joined) and the adapter that posts messages,
files with alt text, flat threads and a first comment there, each once (the channel looked up
by the part's metadata key after a lost answer)."""

from social.providers.slack.adapter import SlackAdapter, escape
from social.providers.slack.connection import SCOPES, classify

__all__ = ["SCOPES", "SlackAdapter", "classify", "escape"]
