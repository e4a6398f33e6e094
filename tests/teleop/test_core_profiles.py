"""Mapping profiles: the default's buttons, JSON files in the config dir, refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.teleop.model import Gear
from app.teleop.profiles import (
    DEFAULT,
    FILE_MAX_BYTES,
    FORMAT,
    ProfileError,
    choose_profile,
    list_profiles,
    load_profile,
    profile_from_dict,
    profile_path,
    profile_to_dict,
    save_profile,
)


def write(config: Path, name: str, data: object) -> Path:
    path = config / "teleop-profiles" / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def doc(**parts: object) -> dict[str, object]:
    return {"format": FORMAT, "version": 1, **parts}


def test_default_profile_buttons():
    assert DEFAULT.deadman == "leftshoulder"
    assert DEFAULT.turbo == "rightshoulder"
    assert DEFAULT.estop == "back"
    assert DEFAULT.axes["linear"].axis == "lefty" and DEFAULT.axes["linear"].invert
    assert DEFAULT.axes["angular"].axis == "rightx" and DEFAULT.axes["angular"].invert
    assert DEFAULT.gears["y"] is Gear.DRIVE and DEFAULT.gears["a"] is Gear.REVERSE
    assert DEFAULT.hand.close == "righttrigger" and DEFAULT.hand.open == "lefttrigger"
    assert set(DEFAULT.hand.buttons.values()) == {"open", "power", "pinch", "point"}


def test_saved_profile_reads_back_the_same(tmp_path):
    profile = profile_from_dict(doc(name="mine", deadman="a", gears={"a": None},
                                    axes={"lateral": None},
                                    robots={"rover-1": {"turbo": {"linear": 0.9}}}))
    path = save_profile(tmp_path, profile)
    assert path == tmp_path / "teleop-profiles" / "mine.json"
    assert load_profile(path) == profile
    assert profile_from_dict(json.loads(json.dumps(profile_to_dict(DEFAULT)))) == DEFAULT


def test_a_file_overlays_the_default(tmp_path):
    write(tmp_path, "slow", doc(name="slow", limits={"normal": {"linear": 0.2}},
                                axes={"angular": {"axis": "leftx", "invert": True}}))
    profile, refusal = choose_profile(tmp_path, "slow")
    assert refusal == ""
    assert profile.limits.normal.linear == 0.2
    assert profile.limits.normal.angular == DEFAULT.limits.normal.angular
    assert profile.limits.turbo == DEFAULT.limits.turbo
    assert profile.axes["angular"].axis == "leftx"
    assert profile.axes["linear"] == DEFAULT.axes["linear"]


def test_per_robot_limits_override_the_profile():
    profile = profile_from_dict(doc(limits={"normal": {"linear": 0.4}},
                                    robots={"car-1": {"normal": {"speed": 1.0}}}))
    assert profile.limits_for("car-1", turbo=False).speed == 1.0
    assert profile.limits_for("car-1", turbo=False).linear == 0.4  # from the profile
    assert profile.limits_for("car-1", turbo=True) == profile.limits.turbo
    assert profile.limits_for("rover-1", turbo=False) == profile.limits.normal
    assert profile.limits_for(None, turbo=True) == profile.limits.turbo


@pytest.mark.parametrize(("content", "reason"), [
    ("{not json", "not JSON"),
    (["a list"], "expected an object"),
    ({"version": 1}, "not a teleop profile"),
    (doc(version=2), "version 2 is newer than this station reads (1)"),
    (doc(version="1"), "bad version"),
    (doc(deadmn="a"), "unknown key 'deadmn'"),
    (doc(deadman="paddle1"), "deadman: 'paddle1' is not one of"),
    (doc(axes={"linear": {"axis": "throttle"}}), "axes.linear.axis"),
    (doc(axes={"linear": {"axis": "lefty", "deadzone": 1.5}}), "outside 0..0.95"),
    (doc(axes={"linear": {"axis": "lefty", "expo": float("nan")}}), "outside 0..1"),
    (doc(axes={"linear": {"axis": "lefty", "invert": 1}}), "expected true or false"),
    (doc(axes={"wheelie": {"axis": "lefty"}}), "unknown key 'wheelie'"),
    (doc(limits={"normal": {"linear": 300}}), "limits.normal.linear: 300 is outside"),
    (doc(limits={"normal": {"linear": -1}}), "outside"),
    (doc(limits={"normal": {"linear": True}}), "expected a number"),
    (doc(deadman="back"), "button 'back' is both deadman and estop"),
    (doc(deadman="y"), "button 'y' is both deadman and gear drive"),
    (doc(gears={"start": "warp"}), "gears.start"),
    (doc(hand={"buttons": {"start": "fist"}}), "hand.buttons.start"),
    (doc(hand={"poses": {"fist": [100, 100]}}), "expected 5 numbers"),
    (doc(hand={"rate": -5}), "hand.rate"),
    (doc(hand={"close": "lefty"}), "hand.close"),
    (doc(name="../evil"), "bad name"),
])
def test_bad_file_is_refused_with_the_reason_and_default_kept(tmp_path, content, reason):
    write(tmp_path, "bad", content)
    profile, refusal = choose_profile(tmp_path, "bad")
    assert profile is DEFAULT
    assert refusal.startswith("profile refused, default kept: bad.json: ")
    assert reason in refusal
    with pytest.raises(ProfileError, match=r"bad\.json"):
        load_profile(profile_path(tmp_path, "bad"))


def test_huge_or_missing_files_are_refused(tmp_path):
    write(tmp_path, "huge", " " * (FILE_MAX_BYTES + 1))
    assert "larger than" in choose_profile(tmp_path, "huge")[1]
    assert "cannot read" in choose_profile(tmp_path, "absent")[1]
    assert choose_profile(tmp_path, "../../etc/passwd") == (
        DEFAULT, "profile refused, default kept: bad profile name '../../etc/passwd'")


def test_default_needs_no_file(tmp_path):
    assert choose_profile(tmp_path, "default") == (DEFAULT, "")
    assert choose_profile(tmp_path, None) == (DEFAULT, "")


def test_list_profiles(tmp_path):
    assert list_profiles(tmp_path) == ["default"]
    write(tmp_path, "zeta", doc())
    write(tmp_path, "alpha", "broken")  # listed: picking it tells why it is refused
    write(tmp_path, "default", doc(name="default"))
    assert list_profiles(tmp_path) == ["default", "alpha", "zeta"]


def test_an_edited_profile_is_brought_within_the_caps_the_loader_keeps(tmp_path):
    from dataclasses import replace

    from app.teleop.profiles import LIMITS_MAX, Limits, RobotLimits, check_profile, within_caps

    wild = Limits(linear=55.0, lateral=-1.0, angular=float("nan"), steering=9.0,
                  speed=41.0, acceleration=float("inf"))
    edited = replace(DEFAULT, name="edited",
                     axes={**DEFAULT.axes, "linear": replace(DEFAULT.axes["linear"],
                                                             deadzone=2.0, expo=-1.0)},
                     limits=RobotLimits(wild, wild), robots={"rover-1": RobotLimits(wild, wild)})
    with pytest.raises(ProfileError, match="outside"):
        check_profile(edited)
    with pytest.raises(ProfileError):  # nothing the loader would refuse is ever written
        save_profile(tmp_path, edited)
    assert not (tmp_path / "teleop-profiles" / "edited.json").exists()
    capped = within_caps(edited)
    check_profile(capped)
    assert capped.limits.normal == Limits(linear=LIMITS_MAX["linear"], lateral=0.0,
                                          angular=0.0, steering=LIMITS_MAX["steering"],
                                          speed=LIMITS_MAX["speed"], acceleration=0.0)
    assert capped.robots["rover-1"].turbo == capped.limits.normal
    assert (capped.axes["linear"].deadzone, capped.axes["linear"].expo) == (0.95, 0.0)
    assert load_profile(save_profile(tmp_path, capped)) == capped
    assert within_caps(DEFAULT) == DEFAULT
