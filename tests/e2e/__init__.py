"""End-to-end tests: the product through HTTP against `make run` and the stand-ins."""
