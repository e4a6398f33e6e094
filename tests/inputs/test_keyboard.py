"""The keyboard mapping: driving keys to stick axes with SDL's signs, the deadman and turbo
keys to the profile's buttons, focus loss releasing everything."""

from __future__ import annotations

import pytest

from app.inputs.keyboard import DEVICE_ID, GUI_PERIOD_S, GUI_STALE_AFTER_S, KeyboardInput


def axes_of(keyboard: KeyboardInput) -> dict[str, float]:
    return {k: v for k, v in keyboard.reading().axes.items() if v}


@pytest.mark.parametrize(("key", "axis", "value"), [
    ("w", "lefty", -1.0), ("Up", "lefty", -1.0), ("s", "lefty", 1.0), ("Down", "lefty", 1.0),
    ("a", "rightx", -1.0), ("Left", "rightx", -1.0), ("D", "rightx", 1.0),
    ("right", "rightx", 1.0)])
def test_driving_keys_push_the_sticks_with_sdl_signs(key: str, axis: str, value: float) -> None:
    keyboard = KeyboardInput()
    assert keyboard.press(key)
    assert axes_of(keyboard) == {axis: value}
    assert keyboard.release(key)
    assert axes_of(keyboard) == {}


def test_a_reading_has_the_whole_layout_at_rest() -> None:
    state = KeyboardInput().reading(now=12.5)
    assert state.axes == dict.fromkeys(
        ("leftx", "lefty", "rightx", "righty", "lefttrigger", "righttrigger"), 0.0)
    assert all(type(v) is float for v in state.axes.values())
    assert state.buttons == frozenset() and state.connected and state.read_at == 12.5
    assert state.device == "keyboard"


def test_forward_and_turn_combine_and_opposites_cancel() -> None:
    keyboard = KeyboardInput()
    for key in ("w", "Up", "a"):
        keyboard.press(key)
    assert axes_of(keyboard) == {"lefty": -1.0, "rightx": -1.0}  # W and Up push once
    keyboard.press("s")
    assert axes_of(keyboard) == {"rightx": -1.0}
    keyboard.release("w")
    assert axes_of(keyboard) == {"rightx": -1.0}  # Up still held against S
    keyboard.release("Up")
    assert axes_of(keyboard) == {"lefty": 1.0, "rightx": -1.0}


def test_deadman_and_turbo_keys_read_as_the_profile_buttons() -> None:
    keyboard = KeyboardInput()
    keyboard.press("Space")
    assert keyboard.reading().buttons == {"leftshoulder"}
    keyboard.press("Shift")
    assert keyboard.reading().buttons == {"leftshoulder", "rightshoulder"}
    keyboard.release("space")
    assert keyboard.reading().buttons == {"rightshoulder"}


def test_the_deadman_key_and_buttons_are_configurable() -> None:
    keyboard = KeyboardInput(deadman="Control", deadman_button="a", turbo="e")
    assert not keyboard.press("space")
    keyboard.press("control")
    keyboard.press("E")
    assert keyboard.reading().buttons == {"a", "rightshoulder"}


@pytest.mark.parametrize(("deadman", "turbo"), [("w", "shift"), ("space", "Up"),
                                                 ("space", "Space")])
def test_a_deadman_or_turbo_on_a_driving_key_or_on_one_key_is_refused(
        deadman: str, turbo: str) -> None:
    with pytest.raises(ValueError, match="two keys"):
        KeyboardInput(deadman=deadman, turbo=turbo)


def test_other_keys_are_not_ours() -> None:
    keyboard = KeyboardInput()
    assert not keyboard.press("q")
    assert not keyboard.release("F1")
    assert not keyboard.handles("Escape")
    assert keyboard.reading().buttons == frozenset() and axes_of(keyboard) == {}


def test_losing_focus_releases_everything_and_reads_disconnected() -> None:
    keyboard = KeyboardInput()
    keyboard.press("w")
    keyboard.press("space")
    keyboard.set_focus(False)
    state = keyboard.reading()
    assert not state.connected and state.axes == {} and state.buttons == frozenset()
    keyboard.set_focus(True)
    state = keyboard.reading()
    assert state.connected and state.buttons == frozenset()  # no key held over
    assert axes_of(keyboard) == {}


def test_a_held_key_reads_fresh_each_time() -> None:
    keyboard = KeyboardInput()
    keyboard.press("w")
    first, second = keyboard.reading(now=1.0), keyboard.reading(now=1.05)
    assert second.read_at > first.read_at and second.axes == first.axes


def test_a_reading_is_the_keyboard_and_fresh_for_one_gui_period() -> None:
    keyboard = KeyboardInput(device="Keyboard (drive view)")
    for focused in (True, False):
        keyboard.set_focus(focused)
        state = keyboard.reading(now=3.0)
        assert state.device_id == DEVICE_ID == "keyboard"
        assert state.stale_after == GUI_STALE_AFTER_S == 0.05
    assert GUI_PERIOD_S < GUI_STALE_AFTER_S  # a live GUI thread stamps within the bound
