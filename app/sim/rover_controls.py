"""The rover's operator UI: its services, sensors and settings (fleet.UiCapabilities)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ServiceSpec:
    name: str
    label: str
    type: str  # fleet.CapabilityType
    danger: str  # fleet.DangerLevel
    min_role: str  # fleet.Role
    description: str


@dataclass(frozen=True)
class SensorSpec:
    key: str
    label: str
    hint: str  # fleet.DisplayHint
    unit: str = ""
    min: float = 0.0
    max: float = 0.0


@dataclass(frozen=True)
class SettingSpec:
    key: str
    label: str
    value_type: str  # fleet.ValueType
    default: Any
    description: str
    options: tuple[str, ...] = ()
    min: float = 0.0
    max: float = 0.0
    min_role: str = "operator"


SERVICES = (
    ServiceSpec("horn", "Horn", "trigger", "normal", "operator", "Sound the horn"),
    ServiceSpec("lights", "Lights", "setBool", "warning", "operator", "Work lights on or off"),
    ServiceSpec("reboot", "Reboot", "trigger", "critical", "admin",
                "Restart the onboard computer: the rover stops and its mission is aborted"),
)
SENSORS = (
    SensorSpec("odometer", "Odometer", "none", "m"),
    SensorSpec("lights", "Lights", "onOff"),
    SensorSpec("motorLoad", "Motor load", "gauge", "%", 0.0, 100.0),
    SensorSpec("firmware", "Firmware", "text"),
    SensorSpec("lidar", "Lidar", "online"),
    SensorSpec("tilt", "Tilt", "warningLight"),
    SensorSpec("motorTemp", "Motor temp", "temperature", "°C", -20.0, 120.0),
    SensorSpec("missionProgress", "Mission progress", "progress", "%", 0.0, 100.0),
)
SETTINGS = (
    SettingSpec("displayName", "Display name", "string", "Field rover",
                "Name shown to operators"),
    SettingSpec("goalToleranceCm", "Goal tolerance (cm)", "int", 30,
                "How close to a goal counts as reached", min=5, max=200),
    SettingSpec("maxSpeed", "Max speed (m/s)", "number", 1.5,
                "Speed limit for teleop and autonomous driving", min=0.1, max=2.0),
    SettingSpec("chargeWhenIdle", "Charge when idle", "bool", True,
                "Charge the battery while the rover stands still"),
    SettingSpec("gnssCorrections", "GNSS corrections", "enum", "rtk",
                "Correction service used by the GNSS receiver", options=("rtk", "sbas", "none")),
)
MAX_TEXT = 64
_SETTINGS_BY_KEY = {s.key: s for s in SETTINGS}


def value_kind(value: Any) -> str:
    """The fleet.Value union member for a plain Python value (enums are set explicitly)."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "number"
    return "string"


class RoverControls:
    """Current setting values and service states; fills UiCapabilities."""

    def __init__(self) -> None:
        self.settings: dict[str, Any] = {s.key: s.default for s in SETTINGS}
        self.lights = False

    def update_setting(self, key: str, kind: str, value: Any) -> str | None:
        """Applies one SettingUpdate; returns why it was refused, or None."""
        spec = _SETTINGS_BY_KEY.get(key)
        if spec is None:
            return f"unknown setting {key!r}"
        if spec.value_type == "number" and kind == "int":
            kind, value = "number", float(value)
        if kind != spec.value_type:
            return f"{key} takes a {spec.value_type}, got a {kind}"
        if kind in ("int", "number") and not spec.min <= value <= spec.max:
            return f"{key} must be within {spec.min:g}..{spec.max:g}"
        if kind == "enum" and value not in spec.options:
            return f"{key} must be one of {', '.join(spec.options)}"
        if kind == "string" and not 0 < len(value) <= MAX_TEXT:
            return f"{key} must be 1..{MAX_TEXT} characters"
        self.settings[key] = value
        return None

    def fill(self, caps: Any, sensor_values: dict[str, Any]) -> None:
        """Writes services, sensors (with the given readings) and settings into a builder."""
        services = caps.init("services", len(SERVICES))
        for item, spec in zip(services, SERVICES, strict=True):
            item.name, item.label, item.type = spec.name, spec.label, spec.type
            item.dangerLevel, item.minRole = spec.danger, spec.min_role
            item.description = spec.description
            item.state = self.lights if spec.name == "lights" else False
        sensors = caps.init("sensors", len(SENSORS))
        for item, sensor in zip(sensors, SENSORS, strict=True):
            item.key, item.label, item.hint, item.unit = (
                sensor.key, sensor.label, sensor.hint, sensor.unit)
            item.min, item.max = sensor.min, sensor.max
            reading = sensor_values[sensor.key]
            setattr(item.value, value_kind(reading), reading)
        settings = caps.init("settings", len(SETTINGS))
        for item, setting in zip(settings, SETTINGS, strict=True):
            item.key, item.label, item.valueType = setting.key, setting.label, setting.value_type
            setattr(item.value, setting.value_type, self.settings[setting.key])
            item.options = list(setting.options)
            item.min, item.max, item.minRole = setting.min, setting.max, setting.min_role
            item.description = setting.description
