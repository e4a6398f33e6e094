"""The gamepad thread against SDL's virtual game controller on pygame's own SDL: hot plug,
names, signs and ranges, fresh readings while a stick is held, unplugging, mappings from
the shipped database and from SDL_GAMECONTROLLERCONFIG, and the latency to the callback."""

from __future__ import annotations

import itertools
import statistics
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from app.inputs.gamepad import HEARTBEAT_S, MAPPING_DB, Gamepad
from app.inputs.model import InputState
from tests.inputs.virtual_gamepad import (
    SDL_JOYSTICK_TYPE_UNKNOWN,
    VirtualGamepad,
    mapping_for_guid,
)


class Readings:
    """Every reading the callback got, with the time it got it."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self.got: list[tuple[float, InputState]] = []

    def __call__(self, state: InputState) -> None:
        with self._changed:
            self.got.append((time.monotonic(), state))
            self._changed.notify_all()

    def mark(self) -> int:
        with self._changed:
            return len(self.got)

    def wait(self, predicate: Callable[[InputState], bool], after: int = 0,
             timeout: float = 3.0) -> tuple[float, InputState]:
        """The first reading from index ``after`` on that satisfies ``predicate``."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                for got in self.got[after:]:
                    if predicate(got[1]):
                        return got
                after = len(self.got)
                left = deadline - time.monotonic()
                if left <= 0:
                    last = self.got[-1][1] if self.got else None
                    raise AssertionError(f"no such reading within {timeout} s; last: {last}")
                self._changed.wait(left)


@pytest.fixture
def readings() -> Readings:
    return Readings()


@pytest.fixture
def gamepad(readings: Readings) -> Iterator[Gamepad]:
    pad = Gamepad(readings)
    pad.start()
    assert pad.error is None
    try:
        yield pad
    finally:
        pad.stop()


@pytest.fixture
def plug(gamepad: Gamepad) -> Iterator[Callable[..., VirtualGamepad]]:
    """Plugs virtual pads into the running gamepad thread; pulls them at teardown."""
    plugged: list[VirtualGamepad] = []

    def plug_(name: str = "Virtual gamepad", **kind: int) -> VirtualGamepad:
        plugged.append(VirtualGamepad(name, **kind))
        return plugged[-1]

    try:
        yield plug_
    finally:
        for pad in plugged:
            pad.unplug()


def connected(name: str = "Virtual gamepad") -> Callable[[InputState], bool]:
    return lambda s: s.connected and s.device == name


def test_a_pad_plugged_while_running_is_seen_at_rest(
        gamepad: Gamepad, readings: Readings, plug: Callable[..., VirtualGamepad]) -> None:
    _, before = readings.wait(lambda s: True)
    assert not before.connected and before.axes == {}
    pad = plug()
    _, state = readings.wait(connected())
    assert [p.instance_id for p in gamepad.pads] == [pad.instance_id]
    assert state.axes == {"leftx": 0.0, "lefty": 0.0, "rightx": 0.0, "righty": 0.0,
                          "lefttrigger": 0.0, "righttrigger": 0.0}  # triggers rest at 0
    assert state.buttons == frozenset()


@pytest.mark.parametrize(("axis", "value"), [
    ("leftx", -1.0), ("leftx", 1.0), ("lefty", -1.0), ("lefty", 0.5), ("rightx", -0.25),
    ("righty", 1.0), ("lefttrigger", 1.0), ("lefttrigger", 0.5), ("righttrigger", 0.25)])
def test_each_axis_arrives_by_name_with_sdl_sign_and_range(
        readings: Readings, plug: Callable[..., VirtualGamepad], axis: str, value: float) -> None:
    pad = plug()
    readings.wait(connected())
    pad.set_axis(axis, value)
    _, state = readings.wait(lambda s: abs(s.axes.get(axis, 0.0) - value) < 1e-3)
    others = {name: v for name, v in state.axes.items() if name != axis}
    assert all(v == 0.0 for v in others.values()), others


def test_buttons_arrive_by_sdl_name_while_held(
        readings: Readings, plug: Callable[..., VirtualGamepad]) -> None:
    pad = plug()
    readings.wait(connected())
    pad.press("leftshoulder")
    pad.press("dpup")
    readings.wait(lambda s: s.buttons == {"leftshoulder", "dpup"})
    pad.release("dpup")
    readings.wait(lambda s: s.buttons == {"leftshoulder"})


def test_a_stick_held_still_keeps_fresh_readings(
        readings: Readings, plug: Callable[..., VirtualGamepad]) -> None:
    pad = plug()
    readings.wait(connected())
    pad.set_axis("lefty", -1.0)
    pad.press("leftshoulder")
    start = readings.mark()
    readings.wait(lambda s: s.axes.get("lefty") == -1.0, after=start)
    time.sleep(0.6)
    held = [s for _, s in readings.got[start:] if s.axes.get("lefty") == -1.0]
    assert len(held) >= 6
    gaps = [b.read_at - a.read_at for a, b in itertools.pairwise(held)]
    assert max(gaps) < HEARTBEAT_S + 0.05, gaps
    assert all(s.connected and "leftshoulder" in s.buttons for s in held)


def test_unplugging_yields_a_disconnected_reading_and_replugging_comes_back(
        gamepad: Gamepad, readings: Readings, plug: Callable[..., VirtualGamepad]) -> None:
    pad = plug()
    readings.wait(connected())
    pad.set_axis("lefty", -1.0)
    pad.press("leftshoulder")
    readings.wait(lambda s: "leftshoulder" in s.buttons)
    start = readings.mark()
    pad.unplug()
    _, gone = readings.wait(lambda s: not s.connected, after=start)
    assert gone.device == "Virtual gamepad"
    assert gone.axes == {} and gone.buttons == frozenset()
    time.sleep(0.2)
    after = [s for _, s in readings.got[start:]]
    assert len(after[after.index(gone):]) >= 3
    assert not any(s.connected for s in after[after.index(gone):])
    assert gamepad.pads == ()

    again = plug()
    _, back = readings.wait(connected(), after=readings.mark())
    assert again.instance_id != pad.instance_id
    # another plug is another device: teleop arms it only after a fresh press
    assert (gone.device_id, back.device_id) == (f"sdl:{pad.instance_id}",
                                                f"sdl:{again.instance_id}")
    assert [p.instance_id for p in gamepad.pads] == [again.instance_id]


def test_a_second_pad_takes_over_only_after_a_disconnected_reading(
        readings: Readings, plug: Callable[..., VirtualGamepad]) -> None:
    first = plug("First pad")
    readings.wait(connected("First pad"))
    second = plug("Second pad")
    second.press("leftshoulder")
    time.sleep(0.15)
    assert {s.device for _, s in readings.got if s.connected} == {"First pad"}
    start = readings.mark()
    first.unplug()
    readings.wait(connected("Second pad"), after=start)
    devices = [(s.connected, s.device) for _, s in readings.got[start:]]
    assert devices.index((False, "First pad")) < devices.index((True, "Second pad"))


def test_a_chosen_pad_is_read_and_no_other(readings: Readings) -> None:
    gamepad = Gamepad(readings, choose="second")
    gamepad.start()
    try:
        first = VirtualGamepad("First pad")
        second = VirtualGamepad("Second pad")
        readings.wait(connected("Second pad"))
        second.unplug()
        readings.wait(lambda s: not s.connected, after=readings.mark())
        time.sleep(0.15)
        assert not any(s.connected for _, s in readings.got[-3:])  # the first is not taken
        first.unplug()
    finally:
        gamepad.stop()


def test_a_stopped_thread_says_disconnected_and_then_goes_silent(
        readings: Readings) -> None:
    gamepad = Gamepad(readings)
    gamepad.start()
    pad = VirtualGamepad()
    readings.wait(connected())
    gamepad.stop()
    assert not gamepad.running
    last = readings.got[-1][1]
    assert not last.connected and last.device == "Virtual gamepad"
    count = readings.mark()
    time.sleep(3 * HEARTBEAT_S)
    assert readings.mark() == count  # silent: teleop sees the input go stale
    del pad  # detached with SDL's joystick subsystem


def test_only_one_gamepad_thread_per_process(gamepad: Gamepad) -> None:
    with pytest.raises(RuntimeError, match="one event queue"):
        Gamepad(lambda s: None).start()


def test_a_raw_joystick_becomes_a_pad_through_sdl_gamecontrollerconfig(
        readings: Readings, monkeypatch: pytest.MonkeyPatch) -> None:
    gamepad = Gamepad(readings)
    gamepad.start()
    raw = VirtualGamepad("Raw stick", kind=SDL_JOYSTICK_TYPE_UNKNOWN)
    time.sleep(0.15)
    assert gamepad.pads == ()  # no mapping: not a game controller
    raw.unplug()
    gamepad.stop()

    monkeypatch.setenv("SDL_GAMECONTROLLERCONFIG",
                       f"{raw.guid},Mapped stick,leftx:a0,lefty:a1,a:b0,leftshoulder:b9,")
    gamepad.start()
    try:
        raw = VirtualGamepad("Raw stick", kind=SDL_JOYSTICK_TYPE_UNKNOWN)
        readings.wait(connected("Mapped stick"))
        raw.set_axis("lefty", -1.0)
        raw.press("leftshoulder")  # its button 9, mapped to leftshoulder above
        readings.wait(lambda s: s.axes.get("lefty") == -1.0 and s.buttons == {"leftshoulder"})
        raw.unplug()
    finally:
        gamepad.stop()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="checks the Linux entries")
def test_sdl_holds_the_shipped_database_mappings(gamepad: Gamepad) -> None:
    lines = [line.strip() for line in MAPPING_DB.read_text().splitlines()
             if line.endswith("platform:Linux,") and "hint:" not in line]
    assert len(lines) > 200
    wrong = [line for line in lines
             if len(line.split(",")[0]) == 32 and mapping_for_guid(line.split(",")[0]) != line]
    assert wrong == []


def test_without_the_database_sdl_keeps_only_its_own(readings: Readings, tmp_path: Path) -> None:
    line = next(line.strip() for line in MAPPING_DB.read_text().splitlines()
                if line.endswith(f"platform:{_sdl_platform()},") and "hint:" not in line)
    for mapping_db, expected in ((tmp_path / "absent.txt", False), (MAPPING_DB, True)):
        gamepad = Gamepad(readings, mapping_db=mapping_db)
        gamepad.start()
        try:
            assert (mapping_for_guid(line.split(",")[0]) == line) is expected
        finally:
            gamepad.stop()


def _sdl_platform() -> str:
    return {"linux": "Linux", "darwin": "Mac OS X", "win32": "Windows"}[sys.platform]


def test_latency_from_the_pad_to_the_callback(
        readings: Readings, plug: Callable[..., VirtualGamepad],
        record_property: Callable[[str, object], None]) -> None:
    pad = plug()
    readings.wait(connected())
    latencies = []
    for i in range(200):
        value = (i % 10 + 1) / 10 * (1 if i % 2 else -1)  # never the value before
        start = readings.mark()
        sent = time.monotonic()
        pad.set_axis("leftx", value)
        got, _ = readings.wait(lambda s, v=value: abs(s.axes.get("leftx", 9) - v) < 1e-3,
                               after=start)
        latencies.append((got - sent) * 1000)
        time.sleep(0.002)
    latencies.sort()
    p50, p99 = statistics.median(latencies), latencies[int(len(latencies) * 0.99) - 1]
    record_property("gamepad_latency_ms", {"p50": round(p50, 2), "p99": round(p99, 2)})
    print(f"SetVirtualAxis -> callback: p50 {p50:.2f} ms, p99 {p99:.2f} ms")
    assert p50 < 10.0
    assert p99 < 50.0
