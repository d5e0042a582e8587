"""Tests of the health probes."""
