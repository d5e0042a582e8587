"""Tests of the credit ledger, plans and the payment webhook."""
