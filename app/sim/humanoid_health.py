"""The simulated humanoid's internal state: battery, joint heating and scheduled faults."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Battery:
    """A 48 V pack: drains with the current drawn, voltage sags under load."""

    capacity_ah: float = 15.0
    charge_ah: float = 13.5
    idle_current_a: float = 2.5  # computers, sensors, standing balance
    walking_current_a: float = 9.0  # extra at full stride
    full_v: float = 50.4
    empty_v: float = 42.0
    resistance_ohm: float = 0.06
    current_a: float = 0.0

    def step(self, dt: float, effort: float) -> None:
        """effort 0 standing .. 1 walking at full stride."""
        self.current_a = self.idle_current_a + self.walking_current_a * effort
        self.charge_ah = max(0.0, self.charge_ah - self.current_a * dt / 3600.0)

    @property
    def fraction(self) -> float:
        return self.charge_ah / self.capacity_ah

    @property
    def voltage(self) -> float:
        open_circuit = self.empty_v + (self.full_v - self.empty_v) * self.fraction
        return open_circuit - self.resistance_ohm * self.current_a


@dataclass(frozen=True)
class Fault:
    text: str
    joint: str | None = None  # the joint reported unhealthy while the fault lasts
    temperature_c: float | None = None  # that joint's temperature during the fault
    darkens_camera: bool = False


FAULTS = (
    Fault("E201 left_knee: motor over temperature", "left_knee", 78.0),
    Fault("E310 head_camera: auto-exposure lost, image dark", darkens_camera=True),
    Fault("E114 right_index_pip: encoder noise above threshold", "right_index_pip"),
)


@dataclass(frozen=True)
class FaultSchedule:
    """One fault at a time, in turn: each appears ``first_s`` + k·``period_s`` after start
    and clears ``duration_s`` later."""

    first_s: float = 25.0
    period_s: float = 40.0
    duration_s: float = 8.0

    def active(self, uptime_s: float) -> Fault | None:
        if uptime_s < self.first_s:
            return None
        cycle, into = divmod(uptime_s - self.first_s, self.period_s)
        return FAULTS[int(cycle) % len(FAULTS)] if into < self.duration_s else None


class JointHeat:
    """Winding temperatures that settle towards a level set by the torque each joint holds."""

    def __init__(
        self,
        max_torque: np.ndarray,
        ambient_c: float = 30.0,
        rise_c: float = 25.0,  # above ambient at sustained full torque
        time_constant_s: float = 20.0,
    ) -> None:
        self.max_torque = max_torque
        self.ambient_c = ambient_c
        self.rise_c = rise_c
        self.time_constant_s = time_constant_s
        self.temperature_c = np.full(len(max_torque), ambient_c)

    def step(self, dt: float, torque: np.ndarray) -> None:
        load = np.abs(torque) / self.max_torque
        settle = self.ambient_c + self.rise_c * load * load
        self.temperature_c += (settle - self.temperature_c) * min(1.0, dt / self.time_constant_s)
