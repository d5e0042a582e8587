"""Tests of accounts and authentication."""
