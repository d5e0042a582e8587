"""Settings split by environment: base, local, production, test."""
