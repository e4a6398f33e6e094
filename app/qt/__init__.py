"""The thin Qt bridge: application start, frame clock, main window."""
