"""The bottom layer every app builds on: errors, the API's envelope and edge, outbound calls,
secrets at rest, task queueing and the lease engine. It imports no app of ours."""

__version__ = "0.2.0"  # the same as pyproject.toml (tests check)
