"""One reading of an input device: what the gamepad, the keyboard and the on-screen stick
hand to whoever drives (frozen: readings cross threads).

Axis names are SDL's game-controller layout: sticks ``leftx``, ``lefty``, ``rightx``,
``righty`` in -1..1 with SDL's signs (y down is +, so stick up is -1); triggers
``lefttrigger``, ``righttrigger`` normalised to 0..1 (0 at rest). Buttons: ``a``, ``b``,
``x``, ``y``, ``back``, ``guide``, ``start``, ``leftstick``, ``rightstick``,
``leftshoulder``, ``rightshoulder``, ``dpup``, ``dpdown``, ``dpleft``, ``dpright``.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class InputState:
    """One reading of an input device (gamepad, keyboard, on-screen stick)."""

    axes: dict[str, float] = field(default_factory=dict)
    buttons: frozenset[str] = frozenset()
    read_at: float = 0.0  # time.monotonic() of the reading (a stick held still is fresh)
    connected: bool = True
    device: str = ""  # what it is, for the panel ("Xbox Controller", "keyboard")
    # Which device, stable while it stays plugged ("sdl:<instance id>", "keyboard",
    # "on-screen stick"): another id is another device, which must be armed anew.
    device_id: str = ""
    # How long this reading counts as fresh, s (GUI inputs: one period of the GUI's
    # timer); None: the arming machine's own bound. The machine uses the smaller.
    stale_after: float | None = None
