"""The rover's battery: a 13-cell Li-ion pack that drains with motion and charges at rest."""

from __future__ import annotations

import math
from dataclasses import dataclass

CELLS = 13
CAPACITY_AH = 20.0
INTERNAL_OHM = 0.08  # pack resistance: terminal voltage sags under load, rises on charge
ELECTRONICS_A = 1.2  # computer, radios and sensors, drawn whenever the pack is not charging
DRIVE_A_PER_MPS = 9.0
TURN_A_PER_RPS = 3.0
CHARGE_A = 6.0
TAPER_FROM_PCT = 90.0  # constant-voltage phase: the charge current tapers off
CHARGE_DELAY_S = 3.0  # stopped this long before charging, so teleop pauses do not flap
AMBIENT_C = 22.0
HEAT_C_PER_A2 = 0.08  # steady-state temperature rise per ampere squared
THERMAL_TAU_S = 60.0


@dataclass
class Battery:
    percentage: float = 78.0
    temperature_c: float = AMBIENT_C + 2.0
    current_a: float = 0.0  # negative = discharging
    status: str = "discharging"  # fleet.PowerSupplyStatus enumerant
    charge_when_idle: bool = True
    speedup: float = 1.0  # scales only the state of charge (tests); heat stays real-time
    charge_delay_s: float = CHARGE_DELAY_S
    _moved_at: float = -math.inf

    def step(self, now: float, dt: float, linear: float, angular: float) -> None:
        if linear != 0.0 or angular != 0.0:
            self._moved_at = now
        if self.charge_when_idle and now - self._moved_at >= self.charge_delay_s:
            if self.percentage >= 100.0:
                self.current_a, self.status = 0.0, "full"
            else:
                taper = (100.0 - self.percentage) / (100.0 - TAPER_FROM_PCT)
                self.current_a, self.status = CHARGE_A * min(1.0, max(0.1, taper)), "charging"
        else:
            draw = ELECTRONICS_A + DRIVE_A_PER_MPS * abs(linear) + TURN_A_PER_RPS * abs(angular)
            self.current_a = -draw
            self.status = "discharging"
        ah = self.current_a * dt * self.speedup / 3600.0
        self.percentage = min(100.0, max(0.0, self.percentage + 100.0 * ah / CAPACITY_AH))
        target_c = AMBIENT_C + HEAT_C_PER_A2 * self.current_a**2
        self.temperature_c += (target_c - self.temperature_c) * min(1.0, dt / THERMAL_TAU_S)

    @property
    def empty(self) -> bool:
        return self.percentage <= 0.0

    @property
    def voltage_v(self) -> float:
        open_circuit = CELLS * (3.3 + 0.9 * self.percentage / 100.0)
        return open_circuit + self.current_a * INTERNAL_OHM

    @property
    def health(self) -> str:
        if self.temperature_c > 55.0:
            return "overheat"
        if self.temperature_c < 0.0:
            return "cold"
        return "good"

    def runtime_remaining_s(self) -> float | None:
        """Wall-clock seconds left at the present draw, or None when not discharging."""
        if self.current_a >= 0.0:
            return None
        remaining_ah = CAPACITY_AH * self.percentage / 100.0
        return remaining_ah / -self.current_a * 3600.0 / self.speedup
