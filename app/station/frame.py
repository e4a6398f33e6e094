"""What the frame clock hands each visible panel once per tick."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from app.bus.stats import TopicStats
from app.station.interests import Converted, ConvertedValue, LaneStats, LatestValue, Series
from app.station.robots import RobotInfo, StationStatus
from app.station.series import SeriesBuffer
from app.station.vitals import RobotVitals


@dataclass
class FrameBatch:
    now: float  # time.monotonic() of the tick
    status: StationStatus
    active_robot: str | None = None
    robots: list[RobotInfo] = field(default_factory=list)
    topics: dict[str, TopicStats] = field(default_factory=dict)
    latest: dict[str, LatestValue] = field(default_factory=dict)
    series: dict[Series, SeriesBuffer] = field(default_factory=dict)
    tables_changed: bool = False  # robots/topics/lanes were refreshed this tick (a few Hz)
    converted: dict[Converted, ConvertedValue] = field(default_factory=dict)
    lanes: dict[str, LaneStats] = field(default_factory=dict)  # per wanted key
    vitals: Mapping[str, RobotVitals] = field(default_factory=dict)  # per robot id
