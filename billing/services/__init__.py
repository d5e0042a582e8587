"""Writes on balances (the ledger) and on payment events."""
