"""Scene tests that draw use the fixed-camera 3D view of tests/widgets."""

from tests.widgets.test_scene_view import view  # noqa: F401
