"""Credit-metered AI tools on a pluggable provider."""
