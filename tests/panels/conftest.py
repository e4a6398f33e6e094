"""Panel tests use the GUI fixtures of tests/qt: ``make_main_window`` and the ``fleet``."""

from tests.qt.conftest import fleet, make_main_window, qapp_cls  # noqa: F401
