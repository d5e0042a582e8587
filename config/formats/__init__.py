"""Date and time formats of the admin, per language (FORMAT_MODULE_PATH)."""
