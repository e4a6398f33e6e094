"""Gamepads through SDL's game-controller API (pygame), on a thread of its own.

The thread owns SDL: it initialises it, waits on SDL's event queue with a short timeout and
hands every reading to a callback as an ``InputState`` (the SDL layout's names and signs:
sticks -1..1 with stick up = -1, triggers 0..1 at rest 0). A reading follows each batch of
events at once, and a fresh one comes at least every ``heartbeat`` seconds while the thread
lives, so a stick held still stays fresh and a dead thread goes stale. Pads are told apart
by SDL instance id (device indexes shift on hot plug); the reading comes from the first pad
plugged (or the first whose name or GUID matches ``choose``). Pulling it yields a reading
with ``connected=False``, before any other pad takes over. A reading's ``device_id`` is
``sdl:<instance id>``: a re-plugged pad, or another pad taking over, is another device, and
teleop arms it only after a fresh press of the deadman.

What "fresh" can mean for a pad: a reading is made only for a pad that SDL says is still
attached (``attached()`` is asked again before every reading, heartbeats included), so a
pad the OS removed is never read fresh. SDL cannot tell more: it sends events only when a
value changes, and a pad held still sends none, so a wireless pad that has gone silent
(out of range, battery dead) looks exactly like one held still, its last buttons and axes
included, until the OS drops the connection (Bluetooth's supervision timeout, from well
under a second to 20 s depending on the pad and the host's settings; a USB dongle's own
timeout for its pads). Nothing in SDL 2 reports a pad's last report time. The robot's own
command watchdog and the deadman are the bound on that case; a station that needs less
must use a pad whose link drops fast (a cable, or a dongle with a short timeout).

Mappings: SDL's own, then ``resources/gamecontrollerdb.txt`` (the community database), then
the ``SDL_GAMECONTROLLERCONFIG`` environment variable, each overriding the one before.
pygame is imported on the thread, so importing this module costs nothing.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.inputs.model import InputState
from app.priority import keep_prompt
from app.resources import ROOT

log = logging.getLogger(__name__)

MAPPING_DB = ROOT / "gamecontrollerdb.txt"
HEARTBEAT_S = 0.05
# SDL_GameControllerAxis and SDL_GameControllerButton, in SDL's order (their indexes).
AXES = ("leftx", "lefty", "rightx", "righty", "lefttrigger", "righttrigger")
TRIGGERS = frozenset(("lefttrigger", "righttrigger"))
BUTTONS = ("a", "b", "x", "y", "back", "guide", "start", "leftstick", "rightstick",
           "leftshoulder", "rightshoulder", "dpup", "dpdown", "dpleft", "dpright",
           "misc1", "paddle1", "paddle2", "paddle3", "paddle4", "touchpad")

_DB_VARIABLE = "SDL_GAMECONTROLLERCONFIG_FILE"  # SDL loads this file when it starts
_db_we_set: str | None = None
_owner_lock = threading.Lock()
_owner: Gamepad | None = None


@dataclass(frozen=True)
class Pad:
    """A plugged game controller."""

    instance_id: int
    name: str
    guid: str


def device_id(pad: Pad) -> str:
    """The reading's ``device_id``: SDL's instance id, new on every plug."""
    return f"sdl:{pad.instance_id}"


def gone(pad: Pad | None, now: float) -> InputState:
    """The reading that says ``pad`` (None: any pad) is no longer read."""
    if pad is None:
        return InputState(connected=False, read_at=now)
    return InputState(connected=False, read_at=now, device=pad.name, device_id=device_id(pad))


def normalised(axis: str, raw: int) -> float:
    """An SDL game-controller axis reading (-32768..32767; triggers 0..32767) as
    ``InputState`` carries it: sticks -1..1, triggers 0..1."""
    low = 0.0 if axis in TRIGGERS else -1.0
    return min(max(raw / 32767, low), 1.0)


def prepare_sdl_environment(mapping_db: Path | None = MAPPING_DB) -> None:
    """Set what SDL reads when it starts: no window of its own (Qt owns the screen), pad
    events while another window has focus, and the mapping database file. Values the user
    set in the environment win, a file of their own included."""
    global _db_we_set
    for key, value in (("SDL_VIDEODRIVER", "dummy"),
                       ("SDL_JOYSTICK_ALLOW_BACKGROUND_EVENTS", "1"),
                       ("PYGAME_HIDE_SUPPORT_PROMPT", "1")):
        os.environ.setdefault(key, value)
    current = os.environ.get(_DB_VARIABLE)
    if current is not None and current != _db_we_set:
        return
    if mapping_db is not None and mapping_db.is_file():
        os.environ[_DB_VARIABLE] = _db_we_set = str(mapping_db)
    else:
        os.environ.pop(_DB_VARIABLE, None)
        _db_we_set = None


class Gamepad:
    """The gamepad thread. ``on_reading`` runs on that thread: keep it short, never block.

    One per process (SDL has one event queue): ``start`` refuses a second while one runs.
    ``error`` says why SDL could not start; the thread then sends one disconnected reading
    and ends, so its input goes stale.
    """

    def __init__(self, on_reading: Callable[[InputState], None], *, choose: str = "",
                 heartbeat: float = HEARTBEAT_S, mapping_db: Path | None = MAPPING_DB) -> None:
        self._on_reading = on_reading
        self._choose = choose.strip().lower()
        self._heartbeat = heartbeat
        self._mapping_db = mapping_db
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._thread: threading.Thread | None = None
        self._pads: dict[int, tuple[Any, Pad]] = {}  # by instance id, in plug order
        self.pads: tuple[Pad, ...] = ()  # snapshot for other threads
        self.error: str | None = None
        self.failures = 0  # readings or callbacks that raised (logged)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self, timeout: float = 5.0) -> None:
        """Start the thread; returns once SDL is up (pads present now are reported next)."""
        global _owner
        with _owner_lock:
            if _owner is not None and _owner is not self and _owner.running:
                raise RuntimeError("a gamepad thread already runs: SDL has one event queue")
            if self.running:
                return
            _owner = self
            prepare_sdl_environment(self._mapping_db)
            self._stop.clear()
            self._ready.clear()
            self._thread = threading.Thread(target=self._run, name="gamepad", daemon=True)
            self._thread.start()
        self._ready.wait(timeout)

    def stop(self, timeout: float = 2.0) -> None:
        """Stop the thread (its last reading says disconnected) and release SDL."""
        global _owner
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
        with _owner_lock:
            if _owner is self:
                _owner = None

    def _emit(self, state: InputState) -> None:
        try:
            self._on_reading(state)
        except Exception:
            self.failures += 1
            log.exception("gamepad reading callback failed")

    def _run(self) -> None:
        keep_prompt()  # the operator's stick: never behind the renderer or the decoders
        try:
            import pygame
            import pygame._sdl2.controller as controller

            pygame.display.init()  # SDL's event queue lives in its video subsystem
            controller.init()
        except Exception as exc:
            self.error = f"SDL game controllers unavailable: {exc}"
            log.warning("%s", self.error)
            self._ready.set()
            self._emit(InputState(connected=False, read_at=time.monotonic(), device=""))
            return
        self._ready.set()
        try:
            self._loop(pygame, controller)
        finally:
            active = self._active()
            for pad, _ in self._pads.values():
                pad.quit()
            self._pads.clear()
            self.pads = ()
            controller.quit()
            pygame.joystick.quit()
            pygame.display.quit()
            self._emit(gone(active[1] if active else None, time.monotonic()))

    def _loop(self, pygame: Any, controller: Any) -> None:
        shown: Pad | None = None  # the pad the last reading came from
        next_beat = 0.0
        while not self._stop.is_set():
            try:
                wait_ms = max(1, round((next_beat - time.monotonic()) * 1000))
                events = [pygame.event.wait(wait_ms), *pygame.event.get()]
                self._handle(events, pygame, controller)
                now = time.monotonic()
                if now < next_beat and all(e.type == pygame.NOEVENT for e in events):
                    continue
                active = self._active()
                if active is None:
                    self._emit(gone(shown, now))
                    shown = None
                else:
                    if shown is not None and active[1] != shown:
                        self._emit(gone(shown, now))
                    self._emit(self._read(*active, now))
                    shown = active[1]
                next_beat = now + self._heartbeat
            except Exception:
                self.failures += 1
                log.exception("gamepad thread: reading failed")
                self._stop.wait(self._heartbeat)

    def _handle(self, events: list[Any], pygame: Any, controller: Any) -> None:
        for event in events:
            try:
                self._plug(event, pygame, controller)
            except Exception:  # e.g. a pad gone again before it was opened: the next events
                self.failures += 1  # of the batch (its removal among them) still count
                log.exception("gamepad thread: %s", event)

    def _plug(self, event: Any, pygame: Any, controller: Any) -> None:
        if event.type == pygame.CONTROLLERDEVICEADDED:
            pad = controller.Controller(event.device_index)
            info = Pad(pad.as_joystick().get_instance_id(), pad.name, event.guid)
            if info.instance_id in self._pads:
                return
            self._pads[info.instance_id] = (pad, info)
            log.info("gamepad plugged: %s (GUID %s)", info.name, info.guid)
        elif event.type == pygame.CONTROLLERDEVICEREMOVED:
            entry = self._pads.pop(event.instance_id, None)
            if entry is None:
                return
            entry[0].quit()
            log.info("gamepad unplugged: %s", entry[1].name)
        else:
            if (event.type == pygame.JOYDEVICEADDED
                    and not controller.is_controller(event.device_index)):
                log.warning("joystick with GUID %s has no game-controller mapping: add one "
                            "to SDL_GAMECONTROLLERCONFIG", event.guid)
            return
        self.pads = tuple(info for _, info in self._pads.values())

    def _active(self) -> tuple[Any, Pad] | None:
        for pad, info in self._pads.values():
            chosen = (not self._choose or self._choose in info.name.lower()
                      or self._choose == info.guid.lower())
            if chosen and pad.attached():
                return pad, info
        return None

    @staticmethod
    def _read(pad: Any, info: Pad, now: float) -> InputState:
        axes = {name: normalised(name, pad.get_axis(i)) for i, name in enumerate(AXES)}
        buttons = frozenset(name for i, name in enumerate(BUTTONS) if pad.get_button(i))
        return InputState(axes=axes, buttons=buttons, read_at=now, connected=True,
                          device=info.name, device_id=device_id(info))
