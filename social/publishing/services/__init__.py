"""The publishing room's writers (facade: social/publishing/__init__.py)."""
