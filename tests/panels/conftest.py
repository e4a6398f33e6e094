"""Panel tests use the GUI fixtures of tests/qt: ``make_main_window`` and the ``fleet``."""

from tests.panels.health import rover_fleet  # noqa: F401
from tests.panels.two_rovers import two_rovers  # noqa: F401
from tests.qt.conftest import fleet, make_main_window, qapp_cls  # noqa: F401
