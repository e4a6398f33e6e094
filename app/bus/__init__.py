"""Zenoh transport: session, subscriptions, publishers, presence and catalogs."""
