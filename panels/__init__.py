"""Dockable panels, built only through the panel registry (see ARCHITECTURE.md)."""
