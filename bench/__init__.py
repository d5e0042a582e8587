"""Benchmarks run by hand against real server processes; not part of the test suite."""
