"""Credits ledger, plans and the inbound payment webhook."""
