"""Subscriptions over a real zenoh session on loopback."""

from __future__ import annotations

import threading
import time

import pytest

from app.bus.publisher import Publisher, Traffic
from app.bus.subscription import Subscription
from app.codec.buffers import encode_buffers
from app.codec.errors import MalformedMessage, UnknownType
from app.codec.registry import registry
from tests.bus.helpers import wait_for, wait_until_heard


def battery_uplink(percentage: float) -> bytes:
    msg = registry().struct("fleet.Uplink").new_message(robotId="r1", unixTimeMs=1)
    msg.init("battery").percentage = percentage
    return msg.to_bytes()


def test_ring_keeps_newest_and_counts_drops(robot_and_app) -> None:
    robot, app = robot_and_app
    sub = Subscription(app, "fleet/r1/**", depth=4)
    pub = Publisher(robot, "fleet/r1/uplink/battery", "fleet.Uplink", Traffic.COMMAND)
    wait_until_heard(robot, "fleet/r1/uplink/battery")
    for i in range(10):
        pub.put(battery_uplink(float(i)))
    wait_for(lambda: sub.stats().get("fleet/r1/uplink/battery", None)
             and sub.stats()["fleet/r1/uplink/battery"].count == 10)
    taken = sub.take()
    assert [sub.decode(s).root.battery.percentage for s in taken] == [6.0, 7.0, 8.0, 9.0]
    stats = sub.stats()["fleet/r1/uplink/battery"]
    assert stats.drops == 6
    assert stats.bytes == sum(len(battery_uplink(float(i))) for i in range(10))
    assert stats.type_name == "fleet.Uplink"
    assert sub.take() == []  # nothing new since the last take


def test_rate_is_measured_within_ten_percent(robot_and_app) -> None:
    robot, app = robot_and_app
    sub = Subscription(app, "fleet/r1/uplink/battery")
    pub = Publisher(robot, "fleet/r1/uplink/battery", "fleet.Uplink", Traffic.TELEMETRY)
    wait_until_heard(robot, "fleet/r1/uplink/battery")
    payload = battery_uplink(50.0)
    start = time.monotonic()
    for i in range(100):  # 50 Hz for 2 s, paced against the clock so sleeps do not drift
        pub.put(payload)
        time.sleep(max(0.0, start + (i + 1) / 50 - time.monotonic()))
    stats = wait_for(lambda: sub.stats()["fleet/r1/uplink/battery"].count == 100
                     and sub.stats()["fleet/r1/uplink/battery"])
    # as of the last sample: how long this thread takes to ask again is not the stream's rate
    assert stats.rate_hz(now=stats.last_arrival) == pytest.approx(50, rel=0.10)
    assert stats.age_s() < 0.5


def test_decode_errors_are_counted_on_their_topic(robot_and_app) -> None:
    robot, app = robot_and_app
    sub = Subscription(app, "fleet/r1/**")
    wait_until_heard(robot, "fleet/r1/bad")
    robot.zenoh.put("fleet/r1/bad", b"\x00" * 3, encoding="application/capnp;fleet.Uplink")
    robot.zenoh.put("fleet/r1/odd", battery_uplink(1.0), encoding="application/capnp;fleet.Nope")
    robot.zenoh.put("fleet/r1/good", battery_uplink(1.0), encoding="application/capnp;fleet.Uplink")
    samples = {s.key: s for s in wait_for(lambda: len(sub.stats()) == 3 and sub.take())}
    with pytest.raises(MalformedMessage):
        sub.decode(samples["fleet/r1/bad"])
    with pytest.raises(UnknownType):
        sub.decode(samples["fleet/r1/odd"])
    assert sub.decode(samples["fleet/r1/good"]).root.battery.percentage == 1.0
    stats = sub.stats()
    assert dict(stats["fleet/r1/bad"].errors) == {"malformed": 1}
    assert dict(stats["fleet/r1/odd"].errors) == {"type": 1}
    assert stats["fleet/r1/good"].error_count == 0
    assert "fleet.Nope" in stats["fleet/r1/odd"].last_error


def test_samples_carry_the_publishers_zenoh_timestamp(robot_and_app) -> None:
    robot, app = robot_and_app
    sub = Subscription(app, "fleet/r1/**")
    pub = Publisher(robot, "fleet/r1/uplink/battery", "fleet.Uplink", Traffic.TELEMETRY)
    wait_until_heard(robot, "fleet/r1/uplink/battery")
    pub.put(battery_uplink(3.0))
    (sample,) = wait_for(sub.take)
    assert sample.source_time == pytest.approx(time.time(), abs=2.0)
    assert sample.received >= sample.source_time - 0.5


def test_a_drained_subscription_hands_on_every_sample_in_order_on_one_thread(
        robot_and_app) -> None:
    robot, app = robot_and_app
    heard: list[tuple[str, float, str]] = []

    def route(key: str, encoding: str, size: int):
        return lambda sample: heard.append(
            (sample.key, sub.decode(sample).root.battery.percentage,
             threading.current_thread().name))

    sub = Subscription(app, (), route=route, drain=True)
    battery, camera = "fleet/r1/uplink/battery", "fleet/r1/camera"
    sub.listen([battery, camera], prompt=[camera])
    try:
        pubs = {key: Publisher(robot, key, "fleet.Uplink", Traffic.COMMAND)
                for key in (battery, camera)}
        wait_until_heard(robot, battery)
        wait_until_heard(robot, camera)
        for i in range(300):
            pubs[battery].put(battery_uplink(float(i)))
        pubs[camera].put(battery_uplink(1.0))
        wait_for(lambda: len(heard) == 301)
        batteries = [(v, thread) for key, v, thread in heard if key == battery]
        assert [v for v, _ in batteries] == [float(i) for i in range(300)]
        assert {thread for _, thread in batteries} == {"subscription drain"}
        assert [thread for key, _, thread in heard if key == camera] != ["subscription drain"]
        sub.listen([camera])  # the battery's subscriber goes: nothing more of it is heard
        pubs[battery].put(battery_uplink(500.0))
        pubs[camera].put(battery_uplink(2.0))
        wait_for(lambda: (camera, 2.0) in [h[:2] for h in heard])
        assert (battery, 500.0) not in [h[:2] for h in heard]
    finally:
        sub.close()


def test_a_replan_delivers_what_waited_in_the_rings_of_the_subscribers_that_go(
        robot_and_app, monkeypatch: pytest.MonkeyPatch) -> None:
    # A drain thread held up (a loaded machine) leaves samples in a ring; when a re-plan
    # lets its subscriber go they are still delivered, once, in order.
    monkeypatch.setattr("app.bus.drain.DRAIN_PERIOD_S", 3600.0)  # the thread never runs
    robot, app = robot_and_app
    battery = "fleet/r1/uplink/battery"
    heard: list[float] = []
    sub = Subscription(app, (), drain=True, route=lambda *_: lambda sample: heard.append(
        sub.decode(sample).root.battery.percentage))
    sub.listen(["fleet/r1/**"])
    probe: list[float] = []
    app.declare_subscriber(battery, lambda _sample: probe.append(0.0))
    try:
        pub = Publisher(robot, battery, "fleet.Uplink", Traffic.COMMAND)
        wait_until_heard(robot, battery)
        for i in range(5):
            pub.put(battery_uplink(float(i)))
        wait_for(lambda: len(probe) == 5)  # in the ring too: the session dispatched them
        assert heard == []
        sub.listen([battery])
        assert heard == [0.0, 1.0, 2.0, 3.0, 4.0]
        for i in range(5, 8):
            pub.put(battery_uplink(float(i)))
        wait_for(lambda: len(probe) == 8)
        sub.listen([])
        assert heard == [float(i) for i in range(8)]
    finally:
        sub.close()


def test_a_sample_said_in_the_process_is_counted_and_handed_on_as_it_is(
        robot_and_app) -> None:
    _, app = robot_and_app
    heard = []
    wanted = "fleet/r1/points"

    def route(key: str, encoding: str, size: int):
        return heard.append if key == wanted else None

    sub = Subscription(app, [wanted], route=route, drain=True)
    try:
        payload, attachment = battery_uplink(50.0), encode_buffers([bytes(range(256)) * 4096])
        for _ in range(3):
            sub.offer(wanted, "application/capnp;fleet.Uplink", payload, attachment)
        sub.offer("fleet/r1/elsewhere", "application/capnp;fleet.Uplink", payload, None)
        assert len(heard) == 3  # on the offering thread, in order
        assert heard[0].payload is payload and heard[0].attachment is attachment  # no copy
        assert [s.seq for s in heard] == sorted({s.seq for s in heard})
        assert sub.decode(heard[-1]).root.battery.percentage == 50.0
        stats = sub.stats()
        assert stats[wanted].count == 3 and stats["fleet/r1/elsewhere"].count == 1
        assert stats[wanted].copied_bytes == 3 * (len(payload) + len(attachment))
        assert stats["fleet/r1/elsewhere"].copied_bytes == 0  # counted, not handed on
        assert stats[wanted].type_name == "fleet.Uplink"
    finally:
        sub.close()
    sub.offer(wanted, "application/capnp;fleet.Uplink", payload, attachment)
    assert len(heard) == 3  # closed: nothing more
