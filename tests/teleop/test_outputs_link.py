"""The link monitor's verdicts and the command round trip from the lastCommandSeq echo."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field

import pytest

from app.bus.catalog import Catalog, TopicInfo
from app.station.robots import RobotInfo, newest_data
from app.station.vitals import RobotVitals, Status
from app.teleop.arming import ArmingConfig
from app.teleop.link import LinkMonitor, RoundTrip


@dataclass
class FakeVitals:
    robots: dict[str, RobotVitals] = field(default_factory=dict)

    def snapshot(self) -> Mapping[str, RobotVitals]:
        return dict(self.robots)


@dataclass
class FakeStation:
    infos: list[RobotInfo] = field(default_factory=list)
    arrivals: dict[str, float] = field(default_factory=dict)
    vitals: FakeVitals = field(default_factory=FakeVitals)
    root: str = "fleet"
    playback: bool = False

    def robots(self) -> list[RobotInfo]:  # as the station makes them: newest data per robot
        last = newest_data(self.arrivals, self.infos, self.root)
        return [dataclasses.replace(r, last_data=last.get(r.robot_id)) for r in self.infos]

    def robot(self, robot_id: str) -> RobotInfo | None:
        return next((r for r in self.robots() if r.robot_id == robot_id), None)


def status(seq: int, at: float, estop: bool = False) -> Status:
    return Status("teleop", estop, "", 1.0, seq, None, at)


def test_no_robot_selected() -> None:
    link = LinkMonitor(FakeStation()).check(10.0)
    assert (link.selected, link.live, link.reason) == (None, False, "no robot selected")


def test_a_robot_in_a_playing_log_is_never_a_live_link() -> None:
    station = FakeStation([RobotInfo("rover-1", online=True)], {"fleet/rover-1/uplink/x": 9.9},
                          playback=True)
    monitor = LinkMonitor(station)
    monitor.select("rover-1")
    link = monitor.check(10.0)
    assert not link.live
    assert "commands are disabled" in link.reason
    station.playback = False
    assert monitor.check(10.0).live


def test_offline_no_data_stale_and_live() -> None:
    station = FakeStation([RobotInfo("rover-1", online=False)])
    monitor = LinkMonitor(station, data_age_limit_s=1.0)
    monitor.select("rover-1")
    assert monitor.check(10.0).reason == "rover-1 is offline"
    station.infos = [RobotInfo("rover-1", online=True)]
    assert monitor.check(10.0).reason == "no data from rover-1 yet"
    station.arrivals = {"fleet/rover-1/uplink/motion": 8.5, "fleet/rover-2/uplink/motion": 9.9}
    stale = monitor.check(10.0)
    assert not stale.live and stale.reason == "no data from rover-1 for 1.5 s"
    assert stale.data_age_s == pytest.approx(1.5)
    station.arrivals["fleet/rover-1/lidar/points"] = 9.8
    live = monitor.check(10.0)
    assert live.live and live.online and live.reason == ""
    assert live.data_age_s == pytest.approx(0.2) and live.selected == "rover-1"


def test_our_own_commands_do_not_keep_the_link_fresh() -> None:
    """The station hears what the app publishes under the robot's keys."""
    listed = Catalog("humanoid-1", commands=[TopicInfo("fleet/humanoid-1/motor",
                                                       "bow.MotorSample")])
    station = FakeStation([RobotInfo("humanoid-1", online=True, catalog=listed)], {
        "fleet/humanoid-1/proprioception": 5.0,
        "fleet/humanoid-1/motor": 9.95,
        "fleet/humanoid-1/command/teleop": 9.95,
    })
    monitor = LinkMonitor(station)
    monitor.select("humanoid-1")
    link = monitor.check(10.0)
    assert link.data_age_s == pytest.approx(5.0) and not link.live


def test_latency_and_round_trip_come_from_the_vitals() -> None:
    station = FakeStation([RobotInfo("rover-1", online=True)],
                          {"fleet/rover-1/uplink/status": 9.9})
    monitor = LinkMonitor(station)
    monitor.select("rover-1")
    assert monitor.check(10.0).round_trip_s is None
    monitor.sent(100, 10.00)
    monitor.sent(101, 10.05)
    monitor.sent(102, 10.10)
    station.vitals.robots["rover-1"] = RobotVitals("rover-1", status=status(101, 10.12),
                                                   latency_s=0.004)
    link = monitor.check(10.2)
    assert link.latency_s == 0.004
    assert link.round_trip_s == pytest.approx(0.07)  # seq 101, the newest echoed
    monitor.select("rover-2")
    monitor.select("rover-1")
    assert monitor.round_trip.last_s is None  # a new selection starts afresh


def test_round_trip_reads_each_status_once_and_skips_older_echoes() -> None:
    trip = RoundTrip()
    for seq in range(1, 6):
        trip.sent(seq, seq * 0.05)
    assert trip.observe(0, 0.06) is None  # echoes a command from before: unknown yet
    assert trip.observe(3, 0.2) == pytest.approx(0.05)
    assert trip.observe(3, 0.2) == pytest.approx(0.05)  # the same status again
    assert trip.observe(3, 0.9) == pytest.approx(0.05)  # no newer echo: the last one stays
    assert trip.observe(5, 0.3) == pytest.approx(0.05)
    trip.sent(2, 1.0)  # seqs went back (a restarted sequence): older entries are dropped
    assert trip.observe(2, 1.02) == pytest.approx(0.02)


def test_the_link_is_live_for_as_long_as_driving_is_allowed() -> None:
    """The panel's "live" and the arming machine's "link lost" agree: 0.7 s old is both."""
    station = FakeStation([RobotInfo("rover-1", online=True)],
                          {"fleet/rover-1/uplink/motion": 9.3})
    monitor = LinkMonitor(station)
    monitor.select("rover-1")
    link = monitor.check(10.0)
    assert not link.live and "0.7 s" in link.reason
    assert ArmingConfig().link_age_s < 0.7
