"""The operator's devices, owned by the window: the input source (a gamepad on SDL's thread,
the keyboard, the on-screen stick), the teleop profile, and the readings they hand the
window's teleop session.

Driving never depends on which docks are open: the gamepad thread, and with it the pad's
e-stop button, lives as long as the window. The source "auto" (the default) drives with a
plugged pad, else with the keyboard. Readings of the GUI's own inputs (keyboard, on-screen
stick) are stamped by a GUI timer every 20 ms and are fresh for one command period only, so
a frozen GUI thread keeps a held key driving for at most one more period.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal

from app.choices import read_choice, write_choice
from app.inputs.keyboard import GUI_PERIOD_S, GUI_STALE_AFTER_S, KeyboardInput
from app.inputs.model import InputState
from app.teleop.profiles import AXES, DEFAULT, Profile, choose_profile

if TYPE_CHECKING:
    from app.inputs.gamepad import Gamepad
    from app.teleop.session import TeleopSession

SOURCES = {"auto": "Automatic", "gamepad": "Gamepad", "keyboard": "Keyboard",
           "stick": "On-screen stick"}
STICK_DEVICE = "on-screen stick"
CHOICE_FILE = "teleop-input.json"  # the input chosen, kept across layouts and restarts


class Operator(QObject):
    """The window's input devices; ``changed`` fires when the source or profile changes."""

    changed = Signal()

    def __init__(self, session: Callable[[], TeleopSession], config_dir: Path,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._session = session
        self._config_dir = config_dir
        self.profile: Profile = DEFAULT
        saved = read_choice(config_dir, CHOICE_FILE, "source")
        self.source = saved if saved in SOURCES else "auto"
        self.gamepad: Gamepad | None = None
        self.gamepad_error = ""
        self.keyboard = KeyboardInput()
        self.keyboard.set_focus(False)
        self._lock = threading.Lock()  # readings arrive on the gamepad's thread
        self._input: InputState | None = None
        self._ranges: dict[str, list[float]] = {}
        self._stick_xy = (0.0, 0.0)
        self._stick_deadman = False
        self._keyboard_focused = False
        self._pad_buttons: frozenset[str] = frozenset()
        self._closed = False
        self._timer = QTimer(self)
        self._timer.setInterval(round(GUI_PERIOD_S * 1000))
        self._timer.timeout.connect(self.feed)
        self._timer.start()

    # -- life ----------------------------------------------------------------------------
    def start_gamepad(self) -> None:
        """Starts the gamepad thread (the window calls it once it has painted)."""
        if self._closed or self.gamepad is not None:
            return
        from app.inputs.gamepad import Gamepad

        gamepad = Gamepad(self._pad_reading)
        try:
            gamepad.start()
        except RuntimeError as exc:  # another window of this process holds SDL
            self.gamepad_error = f"Gamepad: {exc}"
        else:
            self.gamepad = gamepad
            self.gamepad_error = gamepad.error or ""
        self.changed.emit()

    def shutdown(self) -> None:
        """The devices go; the robot gets the stops of a lost input."""
        self._closed = True
        self._timer.stop()
        if self.gamepad is not None:
            self.gamepad.stop()
            self.gamepad = None
        self._hand(None)

    # -- the source ----------------------------------------------------------------------
    def set_source(self, source: str) -> None:
        if source not in SOURCES or source == self.source or self._closed:
            return
        self.source = source
        self._stick_deadman = False
        self._stick_xy = (0.0, 0.0)
        self.keyboard.release_all()
        self._hand(None)  # a source change is a lost device: the deadman must be pressed anew
        self.feed()
        write_choice(self._config_dir, CHOICE_FILE, "source", source)
        self.changed.emit()

    def pads(self) -> tuple[str, ...]:
        """The names of the pads plugged."""
        gamepad = self.gamepad
        return tuple(pad.name for pad in gamepad.pads) if gamepad is not None else ()

    def driving_source(self) -> str:
        """The device that drives now: "auto" is the pad when one is plugged, else the
        keyboard."""
        if self.source != "auto":
            return self.source
        gamepad = self.gamepad
        return "gamepad" if gamepad is not None and gamepad.pads else "keyboard"

    # -- the GUI's inputs ----------------------------------------------------------------
    def feed(self) -> None:
        """A reading of the keyboard or the on-screen stick (the GUI timer asks every 20 ms:
        each is proof that the GUI thread is alive)."""
        if self._closed:
            return
        source = self.driving_source()
        if source == "keyboard":
            self._hand(self.keyboard.reading())
        elif source == "stick":
            x, y = self._stick_xy
            buttons = frozenset((self.profile.deadman,)) if self._stick_deadman \
                else frozenset()
            axes = {axis: 0.0 for axis in AXES} | {"lefty": y, "rightx": x}
            self._hand(InputState(axes=axes, buttons=buttons, read_at=time.monotonic(),
                                  device=STICK_DEVICE, device_id=STICK_DEVICE,
                                  stale_after=GUI_STALE_AFTER_S))

    def set_stick(self, x: float, y: float) -> None:
        self._stick_xy = (x, y)
        self.feed()

    def set_stick_deadman(self, held: bool) -> None:
        self._stick_deadman = held
        self.feed()

    def press_key(self, key: str) -> bool:
        """A key pressed where the keyboard drives; whether it is one of the keyboard's."""
        handled = self.keyboard.press(key)
        if handled:
            self.feed()
        return handled

    def release_key(self, key: str) -> bool:
        handled = self.keyboard.release(key)
        if handled:
            self.feed()
        return handled

    def set_keyboard_focus(self, focused: bool) -> None:
        self._keyboard_focused = focused
        self.keyboard.set_focus(focused)
        self.feed()

    def _pad_reading(self, state: InputState) -> None:
        """Every reading of the gamepad thread: handed on while the pad is what drives;
        otherwise only its e-stop button counts (a plugged pad's e-stop always works)."""
        previous, self._pad_buttons = self._pad_buttons, state.buttons
        if self.driving_source() == "gamepad":
            self._hand(state, pad_thread=True)
            return
        button = self.profile.estop
        if button is not None and button in state.buttons and button not in previous:
            self._session().engage_estop()

    # -- the profile ---------------------------------------------------------------------
    def choose_profile(self, name: str) -> str:
        """Uses the named profile; the reason it was refused ("" when it was not)."""
        profile, reason = choose_profile(self._config_dir, name)
        self.use_profile(profile)
        return reason

    def use_profile(self, profile: Profile) -> None:
        if (profile.deadman, profile.turbo) != (self.profile.deadman, self.profile.turbo):
            self.keyboard = KeyboardInput(deadman_button=profile.deadman,
                                          turbo_button=profile.turbo or "rightshoulder")
            self.keyboard.set_focus(self._keyboard_focused)
        self.profile = profile
        self._session().controller.set_profile(profile)
        self.feed()
        self.changed.emit()

    # -- what the panel shows ------------------------------------------------------------
    def latest(self) -> InputState | None:
        with self._lock:
            return self._input

    def ranges(self) -> dict[str, tuple[float, float]]:
        with self._lock:
            return {axis: (low, high) for axis, (low, high) in self._ranges.items()}

    def reset_ranges(self) -> None:
        with self._lock:
            self._ranges.clear()

    def _keep(self, state: InputState | None) -> None:
        with self._lock:
            self._input = state
            for axis, value in (state.axes.items() if state is not None else ()):
                seen = self._ranges.setdefault(axis, [value, value])
                seen[0], seen[1] = min(seen[0], value), max(seen[1], value)

    def _hand(self, state: InputState | None, *, pad_thread: bool = False) -> None:
        self._keep(state)
        self._session().set_input(state, tick_here=pad_thread)

