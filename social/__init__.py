"""Social hub: connected accounts, posts, scheduling and publishing."""
