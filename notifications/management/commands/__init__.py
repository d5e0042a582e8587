"""Management commands of the notification center."""
