"""The connections room's writers (facade: social/connections/__init__.py)."""
