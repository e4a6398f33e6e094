"""Mapping profiles: which SDL game-controller axes and buttons drive which outputs, with
dead zones, expo, scale, invert, the deadman / turbo / e-stop buttons and speed limits.

Profiles are versioned JSON files ``<config>/teleop-profiles/NAME.json``::

    {"format": "fieldstation.teleop-profile", "version": 1, "name": "mine",
     "deadman": "leftshoulder", "turbo": "rightshoulder", "estop": "back",
     "axes": {"linear": {"axis": "lefty", "invert": true, "deadzone": 0.1, "expo": 0.3}},
     "hand": {"close": "righttrigger", "open": "lefttrigger", "rate": 100,
              "buttons": {"dpup": "open"}, "poses": {"open": [0, 0, 0, 0, 0]}},
     "gears": {"y": "drive", "a": "reverse"},
     "limits": {"normal": {"linear": 0.5}, "turbo": {"linear": 1.5}},
     "robots": {"rover-1": {"normal": {"linear": 0.3}}}}

Every part is optional and overlays the default profile (``axes`` per output, ``null``
unmaps one; limits per field; robots' limits over the profile's). Unknown keys, names
outside the SDL layout and out-of-range numbers are refused with the reason.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

from app.teleop.model import Gear

FORMAT = "fieldstation.teleop-profile"
VERSION = 1
PROFILES_DIR = "teleop-profiles"
FILE_MAX_BYTES = 256 * 1024
NAME_PATTERN = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}")

STICKS = ("leftx", "lefty", "rightx", "righty")
TRIGGERS = ("lefttrigger", "righttrigger")
AXES = STICKS + TRIGGERS
BUTTONS = ("a", "b", "x", "y", "back", "guide", "start", "leftstick", "rightstick",
           "leftshoulder", "rightshoulder", "dpup", "dpdown", "dpleft", "dpright")
PARTNER = {"leftx": "lefty", "lefty": "leftx", "rightx": "righty", "righty": "rightx"}
OUTPUTS = ("linear", "lateral", "angular", "steering", "speed")
# The hand's digits as bow HandMapPercentage names them; targets are 0 (open) .. 100 %.
FINGERS = ("thumb", "index", "middle", "ring", "pinky")
POSES = MappingProxyType({
    "open": (0.0, 0.0, 0.0, 0.0, 0.0),
    "power": (80.0, 90.0, 90.0, 90.0, 90.0),
    "pinch": (70.0, 70.0, 0.0, 0.0, 0.0),
    "point": (80.0, 0.0, 90.0, 90.0, 90.0),
})

DEADZONE_MAX = 0.95
SCALE_MAX = 4.0
HAND_RATE_MAX = 1000.0  # %/s
# The most a profile may ask for, whatever it says: a typo must not make a robot race.
LIMITS_MAX = MappingProxyType({"linear": 20.0, "lateral": 20.0, "angular": 10.0,
                               "steering": 1.2, "speed": 40.0, "acceleration": 20.0})


class ProfileError(ValueError):
    """A profile refused; the message says why, for the operator."""


@dataclass(frozen=True)
class AxisMap:
    """One output from one axis: ``limit * scale * expo(deadzone(±axis))``, within ±limit."""

    axis: str
    invert: bool = False
    deadzone: float = 0.1  # radial over the stick's pair; plain for a trigger
    expo: float = 0.0  # 0 linear .. 1 cubic
    scale: float = 1.0


@dataclass(frozen=True)
class Limits:
    """Largest magnitude of each output; a full stick asks for exactly this."""

    linear: float = 0.5  # m/s
    lateral: float = 0.3  # m/s
    angular: float = 1.0  # rad/s
    steering: float = 0.5  # rad
    speed: float = 2.0  # m/s
    acceleration: float = 1.0  # m/s² (how fast a car's speed may rise)


@dataclass(frozen=True)
class RobotLimits:
    normal: Limits
    turbo: Limits


@dataclass(frozen=True)
class HandMap:
    close: str | None = "righttrigger"  # trigger axis that closes the hand
    open: str | None = "lefttrigger"
    rate: float = 100.0  # %/s at a fully pressed trigger
    buttons: Mapping[str, str] = field(default_factory=lambda: MappingProxyType(
        {"dpup": "open", "dpdown": "power", "dpleft": "pinch", "dpright": "point"}))
    poses: Mapping[str, tuple[float, ...]] = field(default_factory=lambda: POSES)


@dataclass(frozen=True)
class Profile:
    name: str
    axes: Mapping[str, AxisMap]  # output name -> its axis; an output not here is 0
    deadman: str
    turbo: str | None
    estop: str | None  # a button that engages the e-stop (never releases it)
    hand: HandMap
    gears: Mapping[str, Gear]  # button -> gear
    limits: RobotLimits
    robots: Mapping[str, RobotLimits] = field(default_factory=lambda: MappingProxyType({}))

    def limits_for(self, robot: str | None, turbo: bool) -> Limits:
        chosen = self.robots.get(robot, self.limits) if robot else self.limits
        return chosen.turbo if turbo else chosen.normal


def _default() -> Profile:
    stick = {"deadzone": 0.1, "expo": 0.3}
    return Profile(
        name="default",
        axes=MappingProxyType({
            # SDL's y is down: stick up reads -1, so invert for forward; x left reads -1,
            # and left is +lateral, +angular (counter-clockwise), +steering.
            "linear": AxisMap("lefty", invert=True, **stick),
            "lateral": AxisMap("leftx", invert=True, **stick),
            "angular": AxisMap("rightx", invert=True, **stick),
            "steering": AxisMap("rightx", invert=True, **stick),
            "speed": AxisMap("lefty", invert=True, **stick),
        }),
        deadman="leftshoulder", turbo="rightshoulder", estop="back",
        hand=HandMap(),
        gears=MappingProxyType({"y": Gear.DRIVE, "a": Gear.REVERSE, "x": Gear.PARK,
                                "b": Gear.NEUTRAL}),
        limits=RobotLimits(Limits(), Limits(linear=1.5, lateral=0.8, angular=2.0,
                                            steering=0.5, speed=6.0, acceleration=2.0)),
    )


DEFAULT = _default()


# -- reading ------------------------------------------------------------------------------
def _keys(where: str, data: Any, allowed: tuple[str, ...] | None) -> dict[str, Any]:
    """``data`` as an object with only ``allowed`` keys (None: any names)."""
    if not isinstance(data, dict):
        raise ProfileError(f"{where}: expected an object, got {type(data).__name__}")
    if allowed is None:
        bad = [key for key in data if not NAME_PATTERN.fullmatch(key)]
        if bad:
            raise ProfileError(f"{where}: bad name {bad[0]!r}")
        return data
    unknown = sorted(set(data) - set(allowed))
    if unknown:
        raise ProfileError(f"{where}: unknown key {unknown[0]!r}")
    return data


def _number(where: str, value: Any, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ProfileError(f"{where}: expected a number, got {value!r}")
    number = float(value)
    if not math.isfinite(number) or not low <= number <= high:
        raise ProfileError(f"{where}: {value!r} is outside {low:g}..{high:g}")
    return number


def _name(where: str, value: Any, allowed: tuple[str, ...], optional: bool = False) -> Any:
    if value is None and optional:
        return None
    if value not in allowed:
        raise ProfileError(f"{where}: {value!r} is not one of {', '.join(allowed)}")
    return value


def _axis_map(where: str, data: Any) -> AxisMap:
    data = _keys(where, data, ("axis", "invert", "deadzone", "expo", "scale"))
    if "axis" not in data:
        raise ProfileError(f"{where}: no axis")
    invert = data.get("invert", False)
    if not isinstance(invert, bool):
        raise ProfileError(f"{where}.invert: expected true or false, got {invert!r}")
    return AxisMap(
        axis=_name(f"{where}.axis", data["axis"], AXES),
        invert=invert,
        deadzone=_number(f"{where}.deadzone", data.get("deadzone", 0.1), 0.0, DEADZONE_MAX),
        expo=_number(f"{where}.expo", data.get("expo", 0.0), 0.0, 1.0),
        scale=_number(f"{where}.scale", data.get("scale", 1.0), 0.0, SCALE_MAX),
    )


def _limits(where: str, data: Any, base: Limits) -> Limits:
    data = _keys(where, data, tuple(f.name for f in fields(Limits)))
    return replace(base, **{key: _number(f"{where}.{key}", value, 0.0, LIMITS_MAX[key])
                            for key, value in data.items()})


def _robot_limits(where: str, data: Any, base: RobotLimits) -> RobotLimits:
    data = _keys(where, data, ("normal", "turbo"))
    return RobotLimits(_limits(f"{where}.normal", data.get("normal", {}), base.normal),
                       _limits(f"{where}.turbo", data.get("turbo", {}), base.turbo))


def _hand(where: str, data: Any, base: HandMap) -> HandMap:
    data = _keys(where, data, ("close", "open", "rate", "buttons", "poses"))
    poses = dict(base.poses)
    for pose, fingers in _keys(f"{where}.poses", data.get("poses", {}), None).items():
        if not isinstance(fingers, list) or len(fingers) != len(FINGERS):
            raise ProfileError(f"{where}.poses.{pose}: expected {len(FINGERS)} numbers "
                               f"({', '.join(FINGERS)})")
        poses[pose] = tuple(_number(f"{where}.poses.{pose}", v, 0.0, 100.0) for v in fingers)
    buttons = dict(base.buttons)
    for button, pose in _keys(f"{where}.buttons", data.get("buttons", {}), BUTTONS).items():
        if pose is None:
            buttons.pop(button, None)
        else:
            buttons[button] = _name(f"{where}.buttons.{button}", pose, tuple(poses))
    return HandMap(
        close=_name(f"{where}.close", data.get("close", base.close), TRIGGERS, optional=True),
        open=_name(f"{where}.open", data.get("open", base.open), TRIGGERS, optional=True),
        rate=_number(f"{where}.rate", data.get("rate", base.rate), 0.0, HAND_RATE_MAX),
        buttons=MappingProxyType(buttons), poses=MappingProxyType(poses))


def profile_from_dict(data: Any, base: Profile = DEFAULT) -> Profile:
    """The profile a parsed JSON document describes, over ``base``; ProfileError if bad."""
    data = _keys("profile", data, ("format", "version", "name", "deadman", "turbo", "estop",
                                   "axes", "hand", "gears", "limits", "robots"))
    if data.get("format") != FORMAT:
        raise ProfileError(f"not a teleop profile (format {data.get('format')!r}, "
                           f"expected {FORMAT!r})")
    version = data.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise ProfileError(f"bad version {version!r}")
    if version > VERSION:
        raise ProfileError(f"version {version} is newer than this station reads ({VERSION})")
    name = data.get("name", base.name)
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise ProfileError(f"bad name {name!r} (letters, digits, '_', '-', '.'; up to 64)")
    axes = dict(base.axes)
    for output, mapping in _keys("axes", data.get("axes", {}), OUTPUTS).items():
        if mapping is None:
            axes.pop(output, None)
        else:
            axes[output] = _axis_map(f"axes.{output}", mapping)
    gears = dict(base.gears)
    for button, gear in _keys("gears", data.get("gears", {}), BUTTONS).items():
        if gear is None:
            gears.pop(button, None)
        else:
            gears[button] = Gear(_name(f"gears.{button}", gear, tuple(g.value for g in Gear)))
    limits = _robot_limits("limits", data.get("limits", {}), base.limits)
    robots = dict(base.robots)
    for robot, robot_limits in _keys("robots", data.get("robots", {}), None).items():
        robots[robot] = _robot_limits(f"robots.{robot}", robot_limits, limits)
    profile = Profile(
        name=name, axes=MappingProxyType(axes),
        deadman=_name("deadman", data.get("deadman", base.deadman), BUTTONS),
        turbo=_name("turbo", data.get("turbo", base.turbo), BUTTONS, optional=True),
        estop=_name("estop", data.get("estop", base.estop), BUTTONS, optional=True),
        hand=_hand("hand", data.get("hand", {}), base.hand),
        gears=MappingProxyType(gears), limits=limits, robots=MappingProxyType(robots))
    _check_buttons(profile)
    return profile


def _check_buttons(profile: Profile) -> None:
    """One job per button: a deadman that is also the e-stop would stop when arming."""
    jobs: dict[str, str] = {}
    named = [("deadman", profile.deadman), ("turbo", profile.turbo), ("estop", profile.estop)]
    named += [(f"gear {gear.value}", button) for button, gear in profile.gears.items()]
    named += [(f"hand pose {pose}", button) for button, pose in profile.hand.buttons.items()]
    for job, button in named:
        if button is None:
            continue
        if button in jobs:
            raise ProfileError(f"button {button!r} is both {jobs[button]} and {job}")
        jobs[button] = job


def profile_to_dict(profile: Profile) -> dict[str, Any]:
    """The JSON document of a profile (complete: it reads back to the same profile)."""
    def limits(value: RobotLimits) -> dict[str, Any]:
        return {"normal": vars(value.normal).copy(), "turbo": vars(value.turbo).copy()}

    return {
        "format": FORMAT, "version": VERSION, "name": profile.name,
        "deadman": profile.deadman, "turbo": profile.turbo, "estop": profile.estop,
        "axes": {**{output: None for output in OUTPUTS},
                 **{output: vars(m).copy() for output, m in profile.axes.items()}},
        "hand": {"close": profile.hand.close, "open": profile.hand.open,
                 "rate": profile.hand.rate,
                 "buttons": {**{b: None for b in DEFAULT.hand.buttons},
                             **profile.hand.buttons},
                 "poses": {pose: list(v) for pose, v in profile.hand.poses.items()}},
        "gears": {**{b: None for b in DEFAULT.gears},
                  **{b: g.value for b, g in profile.gears.items()}},
        "limits": limits(profile.limits),
        "robots": {robot: limits(value) for robot, value in profile.robots.items()},
    }


def within_caps(profile: Profile) -> Profile:
    """The profile with every limit brought into 0..its cap (:data:`LIMITS_MAX`; NaN is
    0) and every axis's dead zone, expo and scale into their ranges: what an editor may
    apply live or save, since the loader refuses anything outside."""
    def axis(mapping: AxisMap) -> AxisMap:
        return replace(mapping, deadzone=_into(mapping.deadzone, DEADZONE_MAX),
                       expo=_into(mapping.expo, 1.0), scale=_into(mapping.scale, SCALE_MAX))

    def robot(value: RobotLimits) -> RobotLimits:
        return RobotLimits(_capped(value.normal), _capped(value.turbo))

    hand = replace(profile.hand, rate=_into(profile.hand.rate, HAND_RATE_MAX))
    return replace(profile, axes=MappingProxyType({k: axis(m) for k, m in profile.axes.items()}),
                   limits=robot(profile.limits), hand=hand,
                   robots=MappingProxyType({k: robot(v) for k, v in profile.robots.items()}))


def check_profile(profile: Profile) -> None:
    """ProfileError with the loader's reason if the profile, saved, would be refused."""
    profile_from_dict(json.loads(json.dumps(profile_to_dict(profile))))


def _into(value: float, high: float) -> float:
    return min(high, max(0.0, value)) if math.isfinite(value) else 0.0


def _capped(limits: Limits) -> Limits:
    return Limits(**{f.name: _into(getattr(limits, f.name), LIMITS_MAX[f.name])
                     for f in fields(Limits)})


# -- files --------------------------------------------------------------------------------
def profile_path(config_dir: Path, name: str) -> Path:
    if not NAME_PATTERN.fullmatch(name):
        raise ProfileError(f"bad profile name {name!r}")
    return config_dir / PROFILES_DIR / f"{name}.json"


def load_profile(path: Path) -> Profile:
    """The profile in a file; ProfileError with the reason when it cannot be used."""
    try:
        with path.open("rb") as file:
            raw = file.read(FILE_MAX_BYTES + 1)
    except OSError as exc:
        raise ProfileError(f"{path.name}: cannot read: {exc.strerror or exc}") from exc
    if len(raw) > FILE_MAX_BYTES:
        raise ProfileError(f"{path.name}: larger than {FILE_MAX_BYTES // 1024} KiB")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ProfileError(f"{path.name}: not JSON: {exc}") from exc
    try:
        profile = profile_from_dict(data)
    except ProfileError as exc:
        raise ProfileError(f"{path.name}: {exc}") from exc
    except RecursionError as exc:
        raise ProfileError(f"{path.name}: nested too deeply") from exc
    return profile


def choose_profile(config_dir: Path, name: str | None) -> tuple[Profile, str]:
    """The named profile, or the default with why the named one was refused ("" when it
    was not: no name, or the name "default" without a file of that name)."""
    if not name:
        return DEFAULT, ""
    try:
        path = profile_path(config_dir, name)
        if name == DEFAULT.name and not path.exists():
            return DEFAULT, ""
        return load_profile(path), ""
    except ProfileError as exc:
        return DEFAULT, f"profile refused, default kept: {exc}"


def list_profiles(config_dir: Path) -> list[str]:
    """Names of the profile files in the config dir (good or bad), sorted; "default" first."""
    folder = config_dir / PROFILES_DIR
    names = {p.stem for p in folder.glob("*.json") if NAME_PATTERN.fullmatch(p.stem)} \
        if folder.is_dir() else set()
    return [DEFAULT.name, *sorted(names - {DEFAULT.name})]


def save_profile(config_dir: Path, profile: Profile) -> Path:
    """Writes the profile as ``<config>/teleop-profiles/<name>.json`` (atomically);
    ProfileError, and nothing written, when the loader would refuse it."""
    check_profile(profile)
    path = profile_path(config_dir, profile.name)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".json.tmp")
    temporary.write_text(json.dumps(profile_to_dict(profile), indent=1))
    temporary.replace(path)
    return path
