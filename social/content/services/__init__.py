"""The content room's writers (facade: social/content/__init__.py)."""
