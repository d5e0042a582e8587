"""Reddit: its connection (OAuth with a permanent grant, hourly tokens, the User-Agent Reddit
requires on every call, its rate-limit window), the rules a post and a subreddit set, and the
adapter that submits text, link and image posts with a first comment, each once (the user's
submitted posts and comments looked up after a lost answer)."""

from social.providers.reddit.adapter import RedditAdapter
from social.providers.reddit.connection import SCOPES, classify

__all__ = ["SCOPES", "RedditAdapter", "classify"]
