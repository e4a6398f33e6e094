"""The robots panel's rows, one per robot, and what its search, filter and groups read of
each robot. A row is made again only in the cells whose inputs changed: at a thousand
robots a tick changes a battery and an age here and there, and the rest stays as it was
(the same Row object, which the row model passes over without comparing)."""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from app.render_text import human_age
from app.station.robot_state import ESTOP, FAULT, MINOR, OFFLINE, WARNING, RobotState, robot_state
from app.station.robots import RobotInfo
from app.station.vitals import Fault, RobotVitals
from panels.robot_state import worst_fault
from widgets.battery_gauge import CRITICAL_PCT, WARNING_PCT, level_state
from widgets.status_light import ALARM, ONLINE
from widgets.status_light import OFFLINE as OFFLINE_LIGHT
from widgets.status_light import WARNING as WARNING_LIGHT
from widgets.table import Cell, Row

COLUMNS = ("Status", "Robot", "Model", "Families", "Battery", "Mode", "Last data", "Faults",
           "Control")
WIDTHS = (15, 24, 12, 19, 16, 12, 8, 16, 18)  # characters (the battery: "9 % CRITICAL" and a bar)
STATUS, ROBOT, MODEL, FAMILIES, BATTERY, MODE, AGE, FAULTS, CONTROL = range(len(COLUMNS))
MINE_COLOUR = "#3fb950"
ESTOP_BACKGROUND = "#b62324"
STATE_LIGHTS = {ESTOP: ALARM, FAULT: ALARM, WARNING: WARNING_LIGHT}
DEADLINE_EVERY = 16  # robots made between looks at the clock
# The age of data newer than a second reads as live: a robot heard every second or faster
# keeps the same text, and its row stays as it is between samples (a thousand robots' ages
# written again on every tick made every row anew).
LIVE_AGE = "< 1 s"


@dataclass(frozen=True)
class Facts:
    """What the search, the state filter and the groups read of one robot."""

    haystack: str  # id, name, model and families, lower case
    state: str
    robot: RobotInfo = field(compare=False)  # its battery and age filter and group nothing
    faults: Sequence[Fault] = ()


@dataclass(slots=True)
class _Made:
    """One robot's row and what it was made of."""

    robot: RobotInfo
    faults: Sequence[Fault]
    estop_reason: str
    active: bool
    state: RobotState
    row: Row
    facts: Facts


class RobotRows:
    """Each robot's row and facts, kept from tick to tick."""

    def __init__(self) -> None:
        self._made: dict[str, _Made] = {}
        self.rows: list[Row] = []
        self.facts: dict[str, Facts] = {}
        self.behind = False  # robots' rows are owed: call update again (a deadline passed)
        self._tables: tuple[object, object] | None = None  # the robots and vitals last read
        self._resume = 0  # where in the robots the next update starts after a deadline

    def update(self, robots: Sequence[RobotInfo], vitals: Mapping[str, RobotVitals],
               now: float, active: str | None, deadline: float | None = None) -> set[str]:
        """The rows and facts of ``robots`` at ``now``; returns the ids whose facts changed
        (or are new). With a ``deadline`` (``time.perf_counter()``), the robots whose turn
        had not come by then keep their rows (``behind`` says some are owed); the next call
        starts where this one stopped, whatever tables it brings, so with tables coming
        faster than a whole pass every robot still gets its turn. Given the same robots and
        vitals again, only the rows owed are made. A new robot, and one that becomes or
        stops being the active one, are always made."""
        again = self._tables is not None and robots is self._tables[0] \
            and vitals is self._tables[1]
        self._tables = (robots, vitals)
        count = len(robots)
        start = self._resume if self._resume < count else 0
        fresh: dict[str, _Made] = {}
        changed: set[str] = set()
        late = False
        stopped_at: int | None = None
        done = 0
        for step in range(count):
            index = (start + step) % count
            robot = robots[index]
            was = self._made.get(robot.robot_id)
            if was is not None and was.active == (robot.robot_id == active) and (
                    late or (again and was.robot is robot)):
                if late and stopped_at is None:
                    stopped_at = index
                continue  # owed (late), or made already from these very tables
            fresh[robot.robot_id] = _remade(robot, was, vitals, now, active, changed)
            done += 1
            if deadline is not None and done % DEADLINE_EVERY == 0 \
                    and time.perf_counter() > deadline:
                late = True
        self.behind, self._resume = stopped_at is not None, stopped_at or 0
        made = {robot.robot_id: fresh.get(robot.robot_id) or self._made[robot.robot_id]
                for robot in robots}
        self._made = made
        self.rows = [m.row for m in made.values()]
        self.facts = {robot_id: m.facts for robot_id, m in made.items()}
        return changed


def _remade(robot: RobotInfo, was: _Made | None, vitals: Mapping[str, RobotVitals],
            now: float, active: str | None, changed: set[str]) -> _Made:
    """The robot's row and facts now (``was`` where nothing it shows changed); its id goes
    into ``changed`` when its facts did."""
    robot_id = robot.robot_id
    robot_vitals = vitals.get(robot_id)
    faults: Sequence[Fault] = robot_vitals.faults if robot_vitals is not None else ()
    status = robot_vitals.status if robot_vitals is not None else None
    reason = status.estop_reason if status is not None else ""
    is_active = robot_id == active
    if (was is None or was.active != is_active or was.estop_reason != reason
            or not (was.faults is faults or was.faults == faults)
            or not _same_but_data_time(was.robot, robot)):
        now_made = _make(robot, faults, reason, is_active, now, was)
        if was is None or now_made.facts != was.facts:
            changed.add(robot_id)
        return now_made
    was.row, was.robot = _timed(was.row, robot, now), robot  # equal: made from it now
    return was


def _same_but_data_time(old: RobotInfo, new: RobotInfo) -> bool:
    """Equal but for the time of the newest data (the age cell follows it, in _timed)."""
    return old == new or (old.last_data != new.last_data
                          and old == replace(new, last_data=old.last_data))


def _make(robot: RobotInfo, faults: Sequence[Fault], reason: str, active: bool, now: float,
          was: _Made | None) -> _Made:
    """The robot's row, with the cells of ``was`` whose inputs are the same."""
    state = robot_state(robot, faults, WARNING_PCT, CRITICAL_PCT, reason)
    if was is None:
        cells = _cells(robot, now, active, state, faults)
    else:
        old, kept = was.robot, was.row.cells
        same_catalog = old.catalog is robot.catalog and old.online == robot.online
        cells = (
            kept[STATUS] if old.online == robot.online and old.changed == robot.changed
            and was.state == state else _status_cell(robot, now, state),
            kept[ROBOT] if same_catalog and was.active == active else _name_cell(robot, active),
            *((kept[MODEL], kept[FAMILIES]) if same_catalog else _catalog_cells(robot)),
            kept[BATTERY] if old.battery_pct == robot.battery_pct
            else _battery_cell(robot.battery_pct),
            kept[MODE] if old.estop == robot.estop and old.mode == robot.mode
            else _mode_cell(robot),
            kept[AGE],  # (_timed)
            kept[FAULTS] if was.faults is faults else _faults_cell(faults),
            kept[CONTROL] if (old.controlled_by, old.controlled_here) == (
                robot.controlled_by, robot.controlled_here) else _control_cell(robot),
        )
    row = _timed(Row(robot.robot_id, cells, muted=state.state == OFFLINE, highlight=active),
                 robot, now)
    if was is not None and was.row == row:
        row = was.row  # the model passes over the same object without comparing
    facts = (replace(was.facts, state=state.state, robot=robot, faults=faults)
             if was is not None and was.robot.catalog is robot.catalog
             else _facts(robot, state.state, faults))
    return _Made(robot, faults, reason, active, state, row, facts)


def _cells(robot: RobotInfo, now: float, active: bool, state: RobotState,
           faults: Sequence[Fault]) -> tuple[Cell, ...]:
    return (_status_cell(robot, now, state), _name_cell(robot, active), *_catalog_cells(robot),
            _battery_cell(robot.battery_pct), _mode_cell(robot), _age_cell(robot, now),
            _faults_cell(faults), _control_cell(robot))


def _timed(row: Row, robot: RobotInfo, now: float) -> Row:
    """The row with the cells that change with time (how long ago the robot went offline,
    the age of its data) as they read at ``now``."""
    cells = row.cells
    age = _age_cell(robot, now)
    if age.text == cells[AGE].text:
        age = cells[AGE]  # sorted by the age it was when its text was written
    status = _status_cell(robot, now, None) if not robot.online else cells[STATUS]
    if cells[AGE] is age and cells[STATUS] == status:
        return row
    return replace(row, cells=(status, *cells[STATUS + 1:AGE], age, *cells[AGE + 1:]))


def _facts(robot: RobotInfo, state: str, faults: Sequence[Fault]) -> Facts:
    words = (robot.robot_id, robot.name, robot.model, *robot.families)
    return Facts(" ".join(words).lower(), state, robot, faults)


def _status_cell(robot: RobotInfo, now: float, state: RobotState | None) -> Cell:
    """Online (lit by its state; ``state`` None only for an offline robot), or how long ago
    it went offline."""
    if robot.online:
        assert state is not None
        return Cell("online", sort=1.0, light=STATE_LIGHTS.get(state.state, ONLINE),
                    tooltip=f"Online (liveliness token)\n{state.why}")
    ago = human_age(now - robot.changed) if robot.changed else "—"
    return Cell(f"offline {ago} ago" if robot.changed else "offline", sort=0.0,
                light=OFFLINE_LIGHT, tooltip=f"Offline: its liveliness token went away {ago} ago")


def _name_cell(robot: RobotInfo, active: bool) -> Cell:
    name = robot.name if robot.name == robot.robot_id else f"{robot.name} ({robot.robot_id})"
    return Cell(name, tooltip=f"Robot id: {robot.robot_id}"
                + ("\nActive robot: commands go to it" if active else ""))


def _catalog_cells(robot: RobotInfo) -> tuple[Cell, Cell]:
    """Model and families; a robot that serves no catalog, or one that lists nothing, says
    so (its topics are then learnt by listening)."""
    waiting = "…" if robot.online and robot.catalog is None else "—"
    catalog = robot.catalog
    if catalog is not None and catalog.discovered:
        why = (f"{robot.robot_id} serves no catalog (fleet/{robot.robot_id}/catalog): its "
               "topics were learnt by listening")
        return (Cell("no catalog", colour=WARNING_LIGHT, tooltip=why),
                Cell(", ".join(robot.families) or waiting, tooltip=why))
    if catalog is not None and not catalog.topics:
        why = f"{robot.robot_id}'s catalog lists no topics: they are learnt by listening"
        return (Cell(robot.model or waiting, tooltip=why),
                Cell("catalog lists no topics", colour=WARNING_LIGHT, tooltip=why))
    return Cell(robot.model or waiting), Cell(", ".join(robot.families) or waiting)


def _battery_cell(percent: float | None) -> Cell:
    if percent is None:
        return Cell("—", sort=-1.0)
    if not math.isfinite(percent):
        return Cell("invalid", sort=-1.0, colour=ALARM,
                    tooltip=f"The robot reported a battery level of {percent}")
    state, _ = level_state(percent, WARNING_PCT, CRITICAL_PCT)
    # Sorted and drawn by the whole percent it reads (a percent is a pixel of the bar): a
    # battery draining by hundredths leaves the row as it is.
    shown = float(round(percent))
    text = f"{shown:.0f} %" if state == "OK" else f"{shown:.0f} % {state}"
    return Cell(text, sort=shown, value=shown,
                tooltip=f"Battery {shown:.0f} %: {state} (warning at {WARNING_PCT:g} %, "
                        f"critical at {CRITICAL_PCT:g} %)")


def _control_cell(robot: RobotInfo) -> Cell:
    """Who controls the robot: this station ("you"), another, or nobody."""
    if robot.controlled_here:
        return Cell("you", sort="0", colour=MINE_COLOUR, bold=True,
                    tooltip=f"This station controls {robot.robot_id}")
    if robot.controlled_by:
        return Cell(robot.controlled_by, sort="1" + robot.controlled_by, colour=WARNING_LIGHT,
                    tooltip=f"{robot.controlled_by} controls {robot.robot_id}: this station "
                            "views it, and may e-stop it")
    return Cell("—", sort="2", tooltip="Nobody controls it: commanding it takes control")


def _mode_cell(robot: RobotInfo) -> Cell:
    if robot.estop:
        text = "E-STOP" + (f" · {robot.mode}" if robot.mode else "")
        return Cell(text, sort="0" + text, colour="#ffffff", background=ESTOP_BACKGROUND,
                    bold=True, light=ALARM, tooltip="Emergency stop engaged")
    return Cell(robot.mode or "—", sort="1" + robot.mode)


def _age_cell(robot: RobotInfo, now: float) -> Cell:
    """The age of the robot's newest data: live under a second, then as human_age says
    it; sorted newest first. _timed keeps the cell while its text reads the same, so its
    sort value is the age within the span of its text, and changes only with it."""
    if robot.last_data is None:
        return Cell(human_age(None), sort=math.inf, numeric=True)
    age = max(0.0, now - robot.last_data)
    return Cell(LIVE_AGE if age < 1.0 else human_age(age), sort=age, numeric=True)


def _faults_cell(faults: Sequence[Fault]) -> Cell:
    """The most severe active fault, and how many more; sorts most severe first."""
    worst = worst_fault(faults)
    if worst is None:
        return Cell("—", sort=1e9)
    active = [f for f in faults if f.active]
    more = f" +{len(active) - 1}" if len(active) > 1 else ""
    lines = "\n".join(f"{str(f.severity).upper()} {f.code}: {f.message}" for f in active)
    return Cell(f"{worst.code}{more}", sort=worst.rank * 1000.0 - len(active),
                colour=ALARM if worst.alerts else WARNING_LIGHT if worst.rank == MINOR else "",
                bold=worst.rank == 0, tooltip=lines)
