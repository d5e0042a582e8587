"""Users, authentication and sessions."""
