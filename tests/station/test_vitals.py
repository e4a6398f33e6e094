"""The vitals book on real Cap'n Proto bytes: one normalised view per robot, unknown enum
values kept as numbers, NaN as unknown, faults ordered and moved to history."""

from __future__ import annotations

import math
from typing import Any

from app.codec.decode import decode, encoding_for
from app.codec.registry import registry
from app.station.vitals import VitalsBook

UPLINK = "fleet.Uplink"


def uplink(member: str, sent_ms: int = 1_000_000, **fields: Any) -> Any:
    message = registry().struct(UPLINK).new_message(robotId="r1", unixTimeMs=sent_ms)
    part = message.init(member)
    for name, value in fields.items():
        if isinstance(value, dict):
            target = getattr(part, name)
            for k, v in value.items():
                setattr(target, k, v)
        else:
            setattr(part, name, value)
    return decode(encoding_for(UPLINK), message.to_bytes(), None)


def offer(book: VitalsBook, decoded: Any, at: float, robot: str = "r1") -> bool:
    return book.offer(robot, decoded.type_name, decoded.root, at, received=1001.0)


def test_battery_with_nan_and_an_unknown_enum_value() -> None:
    book = VitalsBook()
    assert offer(book, uplink("battery", percentage=math.nan, voltageV=48.5, currentA=-3.0,
                              temperatureC=math.inf, status=77, health="good",
                              technology="liIon", runtimeRemainingS=600.0,
                              hasRuntimeRemainingS=True), at=5.0)
    battery = book.snapshot()["r1"].battery
    assert battery is not None
    assert battery.percentage is None and battery.temperature_c is None  # unknown, not NaN
    assert battery.voltage_v == 48.5 and battery.current_a == -3.0
    assert battery.status == 77  # a newer robot's status: its number
    assert (battery.health, battery.technology, battery.runtime_s) == ("good", "liIon", 600.0)
    assert battery.at == 5.0
    assert book.snapshot()["r1"].latency_s == 1.0  # received 1001 s, sent at 1000 s


def test_runtime_is_unknown_without_its_flag() -> None:
    book = VitalsBook()
    offer(book, uplink("battery", percentage=50.0, runtimeRemainingS=600.0), at=1.0)
    assert book.snapshot()["r1"].battery.runtime_s is None


def test_status_mission_and_gnss() -> None:
    book = VitalsBook()
    offer(book, uplink("status", mode="teleop", estop=True, estopReason="bumper",
                       uptimeS=12.5, lastCommandSeq=42, activeMissionId="m1",
                       hasActiveMission=True), at=1.0)
    offer(book, uplink("motion", gpsFixType=42, gpsSource="simulated"), at=2.0)
    offer(book, uplink("mission", missionId="m1", name="Survey", status="running",
                       stepIndex=1, stepCount=3, progress=math.nan, hasTarget=True,
                       target={"latDeg": 51.5, "lonDeg": -0.1}, message="on the way"), at=3.0)
    vitals = book.snapshot()["r1"]
    assert vitals.status.mode == "teleop" and vitals.status.estop
    assert vitals.status.estop_reason == "bumper" and vitals.status.last_command_seq == 42
    assert vitals.status.active_mission == "m1"
    assert vitals.gnss.fix_type == 42 and vitals.gnss.source == "simulated"
    mission = vitals.mission
    assert (mission.name, mission.status, mission.step_index, mission.step_count) == (
        "Survey", "running", 1, 3)
    assert mission.progress is None and mission.target == (51.5, -0.1)
    assert vitals.last_at == 3.0


def test_faults_order_critical_first_and_clear_into_history() -> None:
    book = VitalsBook()
    offer(book, uplink("fault", code="A", severity="minor", active=True,
                       raisedUnixTimeMs=3), at=1.0)
    offer(book, uplink("fault", code="B", severity="critical", active=True,
                       raisedUnixTimeMs=1), at=1.1)
    offer(book, uplink("fault", code="C", severity=9, active=True, raisedUnixTimeMs=2), at=1.2)
    faults = book.snapshot()["r1"].faults
    assert [f.code for f in faults] == ["B", "C", "A"]  # unknown severity ranks as major
    assert faults[1].severity == 9 and faults[1].alerts
    seq_b = faults[0].seq
    offer(book, uplink("fault", code="B", severity="critical", active=True,
                       raisedUnixTimeMs=1), at=2.0)  # repeated: the same raising
    assert book.snapshot()["r1"].faults[0].seq == seq_b
    offer(book, uplink("fault", code="B", severity="critical", active=False,
                       raisedUnixTimeMs=1), at=3.0)
    vitals = book.snapshot()["r1"]
    assert [f.code for f in vitals.faults] == ["C", "A"]
    assert [(f.code, f.active, f.cleared_at) for f in vitals.history] == [("B", False, 3.0)]
    offer(book, uplink("fault", code="B", severity="critical", active=True,
                       raisedUnixTimeMs=9), at=4.0)  # raised again: a new raising
    assert book.snapshot()["r1"].faults[0].seq > seq_b


def test_messages_keep_unknown_levels() -> None:
    book = VitalsBook()
    offer(book, uplink("message", level="warn", text="low tyre"), at=1.0)
    offer(book, uplink("message", level=7, text="?"), at=2.0)
    assert [(m.level, m.text) for m in book.snapshot()["r1"].messages] == [
        ("warn", "low tyre"), (7, "?")]


def test_capabilities_with_bad_values_become_plain_data() -> None:
    message = registry().struct(UPLINK).new_message(robotId="r1", unixTimeMs=1)
    caps = message.init("capabilities")
    service = caps.init("services", 1)[0]
    service.name, service.type, service.dangerLevel, service.minRole = "x", 5, 9, 8
    sensor = caps.init("sensors", 1)[0]
    sensor.key, sensor.hint, sensor.min, sensor.max = "t", 99, math.nan, 10.0
    sensor.value.number = math.nan
    setting = caps.init("settings", 1)[0]
    setting.key, setting.valueType = "s", 42
    setting.value.int = 500
    decoded = decode(encoding_for(UPLINK), message.to_bytes(), None)
    book = VitalsBook()
    offer(book, decoded, at=1.0)
    got = book.snapshot()["r1"].capabilities
    assert (got.services[0].type, got.services[0].danger, got.services[0].min_role) == (5, 9, 8)
    assert got.sensors[0].hint == 99 and got.sensors[0].min is None
    assert math.isnan(got.sensors[0].value)
    assert got.settings[0].value_type == 42 and got.settings[0].value == 500


def test_bow_interoception_battery_and_errors() -> None:
    def sample(errors: list[str]) -> Any:
        message = registry().struct("bow.InteroceptionSample").new_message()
        battery = message.init("battery")
        battery.percentage, battery.voltage, battery.present = 64.0, 50.0, True
        battery.supplyStatus = "discharging"
        message.error = errors
        return decode(encoding_for("bow.InteroceptionSample"), message.to_bytes(), None)

    book = VitalsBook()
    offer(book, sample(["hip motor hot"]), at=1.0)
    vitals = book.snapshot()["r1"]
    assert vitals.battery.percentage == 64.0 and vitals.battery.source == "bow"
    assert [(f.code, f.source, f.active) for f in vitals.faults] == [
        ("hip motor hot", "interoception", True)]
    offer(book, sample([]), at=2.0)
    vitals = book.snapshot()["r1"]
    assert vitals.faults == () and vitals.history[0].code == "hip motor hot"


def test_the_snapshot_is_replaced_never_mutated() -> None:
    book = VitalsBook()
    before = book.snapshot()
    offer(book, uplink("battery", percentage=10.0), at=1.0)
    assert "r1" not in before and "r1" in book.snapshot()
    assert not offer(book, uplink("object"), at=2.0)  # not a vital


def test_a_snapshot_between_reads_holds_every_robots_newest_vitals() -> None:
    book = VitalsBook()
    first = book.snapshot()
    for n in range(300):  # a depot's samples between two frames
        offer(book, uplink("battery", percentage=float(n % 100)), at=float(n), robot=f"r{n}")
    offer(book, uplink("battery", percentage=55.0), at=400.0, robot="r7")
    taken = book.snapshot()
    assert len(first) == 0 and len(taken) == 300
    assert taken["r7"].battery.percentage == 55.0 and book.get("r7") is taken["r7"]
    assert book.snapshot() is taken  # nothing new: the same frozen snapshot
    offer(book, uplink("battery", percentage=60.0), at=401.0, robot="r7")
    assert taken["r7"].battery.percentage == 55.0  # the old one is never changed
    assert book.snapshot()["r7"].battery.percentage == 60.0
