"""Tests of the notification center: API, services, admin, command, query budgets."""
