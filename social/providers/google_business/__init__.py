"""Google Business Profile: its connection (Google's OAuth, the app YouTube uses, with the
`business.manage` scope; a location of the Google account as the account) and the adapter that
publishes posts, events and offers to the location, each created once (the location's posts
looked up after a lost answer), with their insights."""

from social.providers.google_business.adapter import GoogleBusinessAdapter
from social.providers.google_business.connection import SCOPE, classify

__all__ = ["SCOPE", "GoogleBusinessAdapter", "classify"]
