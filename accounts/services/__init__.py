"""Writes on users and their sessions."""
