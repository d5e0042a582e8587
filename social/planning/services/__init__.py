"""The planning room's writers (facade: social/planning/__init__.py)."""
