"""The velocity input chosen for each ROS 2 robot (app.ros2.source.velocity_input), kept in
the config dir so the window and ``fieldstation teleop`` drive the same one after a restart."""

from __future__ import annotations

import json
import logging
from pathlib import Path

log = logging.getLogger(__name__)

FILE_NAME = "ros2-velocity-inputs.json"


def saved_velocity_inputs(config_dir: Path) -> dict[str, str]:
    """Robot id -> the input chosen (anything else in the file is left out)."""
    try:
        saved = json.loads((config_dir / FILE_NAME).read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(saved, dict):
        return {}
    return {robot: name for robot, name in saved.items()
            if isinstance(robot, str) and isinstance(name, str) and robot and name}


def remember_velocity_input(config_dir: Path, robot_id: str, name: str | None) -> None:
    """Keeps ``name`` for the robot (None: forgets it, the rule chooses again)."""
    chosen = saved_velocity_inputs(config_dir)
    if name is None:
        chosen.pop(robot_id, None)
    else:
        chosen[robot_id] = name
    try:
        config_dir.mkdir(parents=True, exist_ok=True)
        (config_dir / FILE_NAME).write_text(json.dumps(chosen, indent=1, sort_keys=True))
    except OSError as exc:
        log.warning("the velocity input of %s was not saved in %s: %s", robot_id,
                    config_dir / FILE_NAME, exc)
