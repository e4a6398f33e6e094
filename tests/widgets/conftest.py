"""Widget tests run in the application the GUI fixtures create (dark Fusion palette)."""

from tests.qt.conftest import qapp_cls  # noqa: F401
