"""Helpers for the Turnstile integration tests (server process control,
a minimal raw MySQL-protocol client, and wrappers around PyMySQL and the
mysql command-line client)."""
