"""Pinterest: its connection (OAuth with the app's id and secret as HTTP Basic, 30-day tokens
renewed by continuous refresh, the account's boards, the default one chosen when connecting)
and the adapter that publishes image, carousel and video Pins to a board, each created once
(the board's Pins looked up after a lost answer)."""

from social.providers.pinterest.adapter import PinterestAdapter
from social.providers.pinterest.connection import SCOPES, classify

__all__ = ["SCOPES", "PinterestAdapter", "classify"]
