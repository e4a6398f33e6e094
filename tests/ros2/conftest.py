"""ROS 2 tests drive with the virtual game controller of the teleop tests: ``pad``."""

from tests.teleop.test_session_e2e import pad  # noqa: F401
