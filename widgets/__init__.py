"""Reusable Qt widgets that know nothing of topics or zenoh (see ARCHITECTURE.md)."""
