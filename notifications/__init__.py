"""In-app notification center."""
