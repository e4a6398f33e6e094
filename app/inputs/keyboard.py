"""The keyboard as a gamepad: keys held → an ``InputState`` in the SDL layout.

W / Up push the left stick up (``lefty`` -1, forward), S / Down down (+1); A / Left push
the right stick left (``rightx`` -1, turn left), D / Right right (+1). The deadman key
(Space by default) reads as the profile's deadman button held (``leftshoulder``), Shift as
turbo (``rightshoulder``). Keys are plain names, case-insensitive ("w", "Up", "space",
"Shift"), so the view that has focus forwards its key events by name: it should forward no
auto-repeats, and call ``release_all`` when it loses focus (no release comes after that).
A held key stays fresh only while the GUI thread lives: ``reading`` stamps the time it is
asked, with a freshness bound of :data:`GUI_STALE_AFTER_S`, so the view asks on a timer of
:data:`GUI_PERIOD_S` while it has focus as well as on each key, and a frozen GUI thread
stops the robot within one command period.
"""

from __future__ import annotations

import time

from app.inputs.model import InputState

# key -> (axis, direction)
MOTION_KEYS: dict[str, tuple[str, float]] = {
    "w": ("lefty", -1.0), "up": ("lefty", -1.0),
    "s": ("lefty", 1.0), "down": ("lefty", 1.0),
    "a": ("rightx", -1.0), "left": ("rightx", -1.0),
    "d": ("rightx", 1.0), "right": ("rightx", 1.0),
}
AXES = ("leftx", "lefty", "rightx", "righty", "lefttrigger", "righttrigger")
DEVICE_ID = "keyboard"
GUI_PERIOD_S = 0.02  # how often the GUI thread stamps its inputs (keyboard, on-screen stick)
# A GUI input's freshness bound: one command period at 20 Hz. A GUI thread frozen longer
# lets at most one period of motion out.
GUI_STALE_AFTER_S = 0.05


class KeyboardInput:
    """Which mapped keys are held. ``press``/``release`` answer whether the key is one of
    ours (so the view can accept or pass on the event)."""

    def __init__(self, deadman: str = "space", turbo: str = "shift", *,
                 deadman_button: str = "leftshoulder", turbo_button: str = "rightshoulder",
                 device: str = "keyboard") -> None:
        self._buttons = {deadman.lower(): deadman_button, turbo.lower(): turbo_button}
        if set(self._buttons) & set(MOTION_KEYS) or len(self._buttons) < 2:
            raise ValueError(f"deadman {deadman!r} and turbo {turbo!r} must be two keys "
                             "other than the driving keys")
        self._device = device
        self._held: set[str] = set()
        self._focused = True

    def handles(self, key: str) -> bool:
        return key.lower() in MOTION_KEYS or key.lower() in self._buttons

    def press(self, key: str) -> bool:
        key = key.lower()
        if not self.handles(key):
            return False
        self._held.add(key)
        return True

    def release(self, key: str) -> bool:
        key = key.lower()
        self._held.discard(key)
        return self.handles(key)

    def release_all(self) -> None:
        self._held.clear()

    def set_focus(self, focused: bool) -> None:
        """Without focus no key reaches us: nothing is held and the reading says
        disconnected until focus comes back."""
        self._focused = focused
        self.release_all()

    def reading(self, now: float | None = None) -> InputState:
        read_at = time.monotonic() if now is None else now
        if not self._focused:
            return InputState(read_at=read_at, connected=False, device=self._device,
                              device_id=DEVICE_ID, stale_after=GUI_STALE_AFTER_S)
        pushed = {MOTION_KEYS[key] for key in self._held if key in MOTION_KEYS}
        # W and Up together push once; both ways at once cancel out.
        axes = {axis: sum((d for a, d in pushed if a == axis), 0.0) for axis in AXES}
        buttons = frozenset(self._buttons[k] for k in self._held if k in self._buttons)
        return InputState(axes=axes, buttons=buttons, read_at=read_at, connected=True,
                          device=self._device, device_id=DEVICE_ID,
                          stale_after=GUI_STALE_AFTER_S)
