"""``fieldstation teleop``: driving one robot from a terminal with a game controller.

The terminal has no window focus, so focus never disarms. One status line (arming state,
reason, what is sent, the e-stop) is redrawn in place when the output is a terminal, and
written again only when it changes otherwise (a log, a pipe). Typed lines: ``e`` engages the
e-stop (as does the profile's e-stop button), only ``release`` releases it, ``q`` ends;
Ctrl+C or SIGTERM ends too, always with the stop burst sent. The end of input does not end
it (a service, a pipe, ``< /dev/null``): driving goes on, and the line says once that
commands are no longer read.
"""

from __future__ import annotations

import functools
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from app.teleop.arming import Arming
from app.teleop.model import Motion
from app.teleop.profiles import DEFAULT, Profile, ProfileError, choose_profile, load_profile
from app.teleop.session import SessionStatus, TeleopSession

REFRESH_S = 0.2  # the in-place line, 5 Hz
ENGAGE = ("e", "estop", "e-stop")
RELEASE = "release"
QUIT = ("q", "quit", "exit")
NO_STDIN = "standard input closed: no longer reading commands (Ctrl-C or SIGTERM ends)"


def pick_profile(spec: str | None, folder: Path) -> tuple[Profile, str]:
    """``spec`` is a profile name (a file in the config folder) or a path to a profile
    file; a bad one gives the default and the reason ("" when nothing was refused)."""
    if spec and (spec.endswith(".json") or os.sep in spec or "/" in spec):
        try:
            return load_profile(Path(spec)), ""
        except ProfileError as exc:
            return DEFAULT, f"profile refused, default kept: {exc}"
    return choose_profile(folder, spec)


def _number(value: float) -> str:
    return f"{value:+.2f}"


def describe_motion(motion: Motion | None) -> str:
    if motion is None:
        return "nothing sent"
    parts = [f"{name} {_number(getattr(motion, name))} {unit}"
             for name, unit in (("linear", "m/s"), ("lateral", "m/s"), ("angular", "rad/s"),
                                ("steering", "rad"), ("speed", "m/s"))
             if getattr(motion, name) != 0.0]
    if motion.gear is not None:
        parts.append(f"gear {motion.gear.value}")
    if motion.hand is not None:
        parts.append("hand " + "/".join(f"{f:.0f}" for f in motion.hand) + " %")
    return ", ".join(parts) if parts else "stop"


def status_line(status: SessionStatus) -> str:
    """One line: ``ARMED (reason) | sent: linear +0.50 m/s, angular +0.30 rad/s | ...``.
    Nothing in it changes while nothing changes (no ages, no counters)."""
    teleop = status.teleop
    shown = [f"{teleop.state.name}" + (f" ({teleop.reason})" if teleop.reason else "")]
    sent = describe_motion(teleop.motion) if teleop.state is Arming.ARMED else (
        "stop" if teleop.motion is not None else "nothing sent")
    shown.append(f"sent: {sent}")
    estop = status.estop
    if estop is not None and (estop.engaged or estop.sending):
        shown.append(f"E-STOP {'engaged' if estop.engaged else 'releasing'}"
                     + (" (confirmed)" if estop.confirmed else ""))
    shown.append(f"pad: {teleop.device or 'none'}")
    if teleop.scale < 1.0 and teleop.scale_reason:
        shown.append(f"speed {teleop.scale:.0%}: {teleop.scale_reason}")
    return " | ".join(shown)


@dataclass
class TerminalOptions:
    robot: str
    profile: Profile = DEFAULT
    rate_hz: float = 20.0
    refresh_s: float = REFRESH_S


class TerminalTeleop:
    """The session, the gamepad thread and the typed commands, until ``stop`` is set."""

    def __init__(self, station: Any, options: TerminalOptions, stdin: TextIO,
                 stdout: TextIO, stop: threading.Event | None = None) -> None:
        self.options = options
        self.stop = stop if stop is not None else threading.Event()
        self._stdin = stdin
        self._stdout = stdout
        self._tty = stdout.isatty()
        self._last = ""
        self.session = TeleopSession(station, profile=options.profile,
                                     rate_hz=options.rate_hz, focus_disarms=False)
        self.session.select(options.robot)

    def run(self) -> None:
        from app.inputs.gamepad import Gamepad

        gamepad = Gamepad(functools.partial(self.session.set_input, tick_here=True))
        try:
            gamepad.start()
            if gamepad.error:
                self._say(f"no game controller: {gamepad.error} (typed e-stop still works)")
            threading.Thread(target=self._read_commands, name="teleop-stdin",
                             daemon=True).start()
            self._show_until_stopped()
        finally:
            gamepad.stop()
            self.session.close()  # the stop burst
            self._show(status_line(self.session.status()), final=True)

    def _read_commands(self) -> None:
        try:
            for line in self._stdin:
                word = line.strip().lower()
                if word in ENGAGE:
                    self.session.engage_estop()
                elif word == RELEASE:
                    self.session.release_estop(self.options.robot)
                elif word in QUIT:
                    self.stop.set()
                    return
                elif word:
                    self._say(f"unknown command {word!r}: e = e-stop, release, q = quit")
        except (OSError, ValueError):  # stdin closed under us
            pass
        if not self.stop.is_set():
            self._say(NO_STDIN)

    def _show_until_stopped(self) -> None:
        while True:
            self._show(status_line(self.session.status()))
            if self.stop.wait(self.options.refresh_s):
                return

    def _show(self, line: str, final: bool = False) -> None:
        if self._tty:
            self._stdout.write(f"\r{line}\x1b[K" + ("\n" if final else ""))
        elif line != self._last:
            self._stdout.write(line + "\n")
        self._last = line
        self._stdout.flush()

    def _say(self, message: str) -> None:
        """A message on a line of its own (the status line is redrawn after it)."""
        self._stdout.write(("\r\x1b[K" if self._tty else "") + message + "\n")
        self._stdout.flush()
        self._last = ""
