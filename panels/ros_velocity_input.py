"""Which velocity input of a ROS 2 robot teleop drives: its ``cmd_vel`` unless the operator
chooses another of its Twist subscriptions (a ``twist_mux`` input, a controller's own). Shown
only for a ROS 2 robot; locked while armed, as the profile is; the choice is kept in the
config dir (app.station.velocity_inputs)."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QWidget

from app.qt.panel_api import PanelHost
from app.ros2.source import VelocityInputs
from app.station.velocity_inputs import remember_velocity_input

TOOLTIP = ("The robot's velocity input (a Twist or TwistStamped subscription) that teleop "
           "drives. Automatic: its cmd_vel, else its only …/cmd_vel.")


class RosVelocityInputBox(QWidget):
    def __init__(self, host: PanelHost) -> None:
        super().__init__()
        self.host = host
        self.box = QComboBox()
        self.box.setToolTip(TOOLTIP)
        self.box.activated.connect(lambda _index: self._choose(self.box.currentData()))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("Drives"))
        layout.addWidget(self.box)
        self._robot: str | None = None
        self._shown: tuple[str | None, VelocityInputs] | None = None
        self.setVisible(False)

    def show_robot(self, robot_id: str | None, armed: bool) -> None:
        inputs = (self.host.station.ros_velocity_inputs(robot_id) if robot_id
                  else VelocityInputs())
        self.setVisible(bool(inputs.found) or inputs.chosen is not None)
        self.box.setEnabled(not armed)
        self.box.setToolTip("Release the deadman to choose" if armed else TOOLTIP)
        if self._shown == (robot_id, inputs):
            return
        self._robot, self._shown = robot_id, (robot_id, inputs)
        self.box.clear()
        self.box.addItem(f"Automatic: {inputs.automatic or 'none, choose one'}", None)
        for name in inputs.found:
            self.box.addItem(name, name)
        if inputs.chosen is not None and inputs.chosen not in inputs.found:
            self.box.addItem(f"{inputs.chosen} (not on the robot)", inputs.chosen)
        self.box.setCurrentIndex(max(0, self.box.findData(inputs.chosen))
                                 if inputs.chosen is not None else 0)

    def _choose(self, name: str | None) -> None:
        robot = self._robot
        if robot is None:
            return
        self.host.station.choose_ros_velocity_input(robot, name)
        remember_velocity_input(self.host.config_dir, robot, name)
        self.host.show_message(f"Teleop drives {robot}'s "
                               f"{name or 'velocity input by the rule (cmd_vel)'}")
