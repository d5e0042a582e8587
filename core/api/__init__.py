"""Project-wide API plumbing: envelope, errors, pagination, ordering, rate limit, schema."""
