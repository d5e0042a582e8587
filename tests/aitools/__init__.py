"""Tests of the AI tools."""
