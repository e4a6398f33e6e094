"""Which faults the operator acknowledged, per robot, kept in a JSON file of the config dir
so an acknowledgement survives a restart. A fault is one raising: its code and the time the
robot raised it; the same code raised again needs a new acknowledgement."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

log = logging.getLogger(__name__)

FILE_NAME = "fault-acknowledgements.json"
PER_ROBOT_MAX = 1000  # oldest forgotten first

Raising = tuple[str, int]  # (code, raised unix ms)


class FaultAcks:
    def __init__(self, config_dir: Path) -> None:
        self.path = config_dir / FILE_NAME
        self._acks: dict[str, list[Raising]] = self._load()
        self.revision = 0  # counts acknowledgements: what was worked out from them is stale

    def _load(self) -> dict[str, list[Raising]]:
        try:
            data = json.loads(self.path.read_text())
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            log.warning("ignoring unreadable %s: %s", self.path, exc)
            return {}
        acks: dict[str, list[Raising]] = {}
        if isinstance(data, dict):
            for robot, items in data.items():
                if isinstance(robot, str) and isinstance(items, list):
                    acks[robot] = [(str(i[0]), int(i[1])) for i in items
                                   if isinstance(i, list) and len(i) == 2
                                   and isinstance(i[1], int)]
        return acks

    def acknowledged(self, robot_id: str, code: str, raised_ms: int) -> bool:
        return (code, raised_ms) in self._acks.get(robot_id, ())

    def acknowledge(self, robot_id: str, raisings: list[Raising]) -> str:
        """Remembers them; returns why they could not be saved ("" when saved)."""
        known = self._acks.setdefault(robot_id, [])
        known += [r for r in raisings if r not in known]
        del known[:-PER_ROBOT_MAX]
        self.revision += 1
        return self._save()

    def _save(self) -> str:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            scratch = self.path.with_suffix(".tmp")
            scratch.write_text(json.dumps({r: [list(x) for x in items]
                                           for r, items in self._acks.items()}))
            os.replace(scratch, self.path)
        except OSError as exc:
            log.warning("cannot save %s: %s", self.path, exc)
            return f"acknowledgement not saved: {exc.strerror or exc}"
        return ""
