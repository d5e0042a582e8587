"""Tests of the project-wide API conventions."""
