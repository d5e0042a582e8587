"""Social hub endpoints, one module per area."""
