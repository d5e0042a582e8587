"""Test suite: API behaviour first, units where the logic is subtle."""
