"""ROS 2 tests drive with the virtual game controller of the teleop tests (``pad``) and open
windows with the GUI fixtures of tests/qt (``make_main_window``)."""

from tests.qt.conftest import make_main_window, qapp_cls  # noqa: F401
from tests.teleop.test_session_e2e import pad  # noqa: F401
