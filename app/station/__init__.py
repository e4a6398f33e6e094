"""The station model: what the window shows, kept up to date off the GUI thread (Qt-free)."""
