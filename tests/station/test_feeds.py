"""Lanes and consumers on a real zenoh session: a slow or broken key costs only itself,
consumers keep what they asked for across reconnects, decode errors are counted once."""

from __future__ import annotations

import logging
import statistics
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
import zenoh

from app.bus.config import BusConfig
from app.bus.publisher import Publisher, Traffic
from app.bus.session import BusSession
from app.codec.decode import DecodedMessage
from app.codec.registry import registry
from app.convert.registry import converter, unregister
from app.station.feeds import LIGHT_LANE_THREADS
from app.station.interests import Converted, Latest, Stream
from app.station.station import Station
from tests.bus.helpers import wait_for, wait_until_heard

FAST, SLOW = "fleet/r1/fast", "fleet/r1/slow"


def uplink(n: int) -> bytes:
    message = registry().structs["fleet.Uplink"].new_message()
    message.robotId = "r1"
    message.unixTimeMs = n  # the sample's number: the tests look up when it was sent
    message.init("status")
    return message.to_bytes()


@pytest.fixture
def robot(free_endpoint: str) -> Iterator[BusSession]:
    session = BusSession(BusConfig(listen=[free_endpoint]))
    session.declare_token("fleet/r1")  # the station hears robots it has seen
    try:
        yield session
    finally:
        session.close()


@pytest.fixture
def station(free_endpoint: str, robot: BusSession) -> Iterator[Station]:
    station = Station(BusConfig(mode="peer", connect=[free_endpoint]))
    try:
        wait_for(lambda: station.status.session == "online", timeout=10)
        yield station
    finally:
        station.close()


@pytest.fixture
def converters() -> Iterator[Callable[[str, Callable[[DecodedMessage], object]], None]]:
    names: list[str] = []

    def add(name: str, function: Callable[[DecodedMessage], object]) -> None:
        converter(name)(function)
        names.append(name)

    yield add
    for name in names:
        unregister(name)


class Sender:
    """Puts numbered samples on keys at a steady rate from a thread; remembers when."""

    def __init__(self, robot: BusSession, keys: dict[str, float]) -> None:
        self.sent: dict[tuple[str, int], float] = {}
        self._robot = robot
        self._publishers = {k: Publisher(robot, k, "fleet.Uplink", Traffic.TELEMETRY)
                            for k in keys}
        self._periods = {k: 1 / hz for k, hz in keys.items()}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Sender:
        for key in self._publishers:
            wait_until_heard(self._robot, key)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        due = dict.fromkeys(self._periods, time.monotonic())
        n = 0
        while not self._stop.is_set():
            key = min(due, key=due.__getitem__)
            time.sleep(max(0.0, due[key] - time.monotonic()))
            n += 1
            self.sent[(key, n)] = time.perf_counter()
            self._publishers[key].put(uplink(n))
            due[key] += self._periods[key]


def fast_latencies(station: Station, robot: BusSession, slow: bool,
                   converters: Callable[..., None], seconds: float = 2.0) -> list[float]:
    """Latency of the fast key's conversion (put -> converted), while the slow key's
    converter takes 300 ms a sample (or nothing, when ``slow`` is False)."""
    latencies: list[float] = []

    def fast(message: DecodedMessage) -> int:
        latencies.append(time.perf_counter() - sender.sent[(FAST, message.root.unixTimeMs)])
        return int(message.root.unixTimeMs)

    def sleepy(message: DecodedMessage) -> int:
        time.sleep(0.3 if slow else 0.0)
        return int(message.root.unixTimeMs)

    converters(f"test.fast{slow}", fast)
    converters(f"test.sleepy{slow}", sleepy)
    consumer = station.consumer("test")
    consumer.want({Converted(FAST, f"test.fast{slow}"), Converted(SLOW, f"test.sleepy{slow}")})
    with Sender(robot, {FAST: 20, SLOW: 20}) as sender:
        wait_for(lambda: station.feeds.converted.get(Converted(SLOW, f"test.sleepy{slow}")),
                 timeout=5)
        latencies.clear()
        time.sleep(seconds)
    consumer.close()
    return latencies


def test_a_slow_key_does_not_delay_a_fast_one(station, robot, converters) -> None:
    alone = fast_latencies(station, robot, slow=False, converters=converters)
    beside_slow = fast_latencies(station, robot, slow=True, converters=converters)
    assert len(alone) >= 20 and len(beside_slow) >= 20  # ~40 each: 20 Hz for 2 s
    # The slow converter would add ~300 ms to every fast sample if they shared a thread.
    assert statistics.median(beside_slow) < statistics.median(alone) + 0.03
    assert max(beside_slow) < 0.25
    slow_lane = station.feeds.lane_stats()
    assert slow_lane == {}  # the consumer closed: its lanes are gone


def test_a_converter_that_always_raises_is_counted_logged_and_costs_nothing_else(
        station, robot, converters, caplog) -> None:
    def broken(message: DecodedMessage) -> None:
        raise RuntimeError("converter bug")

    converters("test.broken", broken)
    converters("test.number", lambda m: int(m.root.unixTimeMs))
    consumer = station.consumer("test")
    bad, good = Converted(SLOW, "test.broken"), Converted(FAST, "test.number")
    consumer.want({bad, good, Latest(SLOW)})
    with caplog.at_level(logging.ERROR), Sender(robot, {FAST: 30, SLOW: 30}):
        wait_for(lambda: station.feeds.lane_stats().get(SLOW, None) and
                 station.feeds.lane_stats()[SLOW].errors >= 5, timeout=10)
        first = station.feeds.converted[good].value
        wait_for(lambda: station.feeds.converted[good].value >= first + 10, timeout=5)
    value = station.feeds.converted[bad]
    assert value.value is None and "converter bug" in value.error
    assert station.incidents.count >= 5
    assert "converter bug" in station.incidents.recent()[-1].what
    assert any("converter test.broken" in r.getMessage() for r in caplog.records)
    assert station.feeds.latest[SLOW].type_name == "fleet.Uplink"  # same key, other use: fine
    assert station.feeds.converted[good].error == ""
    wait_for(lambda: station.status.internal_errors >= 5, timeout=3)
    consumer.close()


def test_a_consumer_keeps_receiving_across_a_reconnect(free_endpoint, station, robot) -> None:
    got: list[str] = []
    consumer = station.consumer("recorder", on_sample=lambda d: got.append(d.sample.key))
    consumer.want({Stream("fleet/*/fast")})
    with Sender(robot, {FAST: 50}):
        wait_for(lambda: len(got) >= 10, timeout=5)
    other_endpoint = free_endpoint.rsplit(":", 1)[0] + f":{_free_port()}"
    second = BusSession(BusConfig(listen=[other_endpoint]))
    second.declare_token("fleet/r2")
    try:
        station.reconnect(BusConfig(mode="peer", connect=[other_endpoint]))
        wait_for(lambda: station.bus is not None and station.status.session == "online"
                 and other_endpoint in station.status.endpoints, timeout=10)
        before = len(got)
        key = "fleet/r2/fast"
        with Sender(second, {key: 50}):
            wait_for(lambda: got.count(key) >= 10, timeout=10)
        assert len(got) > before and consumer.interests == {Stream("fleet/*/fast")}
    finally:
        consumer.close()
        second.close()


def test_decode_errors_are_counted_once_wanted_or_not(station, robot) -> None:
    wanted, unwanted = "fleet/r1/wanted", "fleet/r1/unwanted"
    station.set_interests({Latest(wanted)})
    garbage = {k: robot.zenoh.declare_publisher(  # blocking: a loaded machine drops none
        k, encoding="application/capnp;fleet.Uplink",
        congestion_control=zenoh.CongestionControl.BLOCK) for k in (wanted, unwanted)}
    try:
        for key in garbage:
            wait_until_heard(robot, key)
        for _ in range(5):
            for publisher in garbage.values():
                publisher.put(b"\x00\x00\x00\x00\xff\xff\x00\x00 not capnp")
            time.sleep(0.6)  # unwanted small keys are checked twice a second
        topics = wait_for(lambda: (t := station.topics()).get(unwanted) is not None
                          and t[unwanted].error_count > 0 and wanted in t
                          and 0 < t[wanted].count == t[wanted].error_count and t,
                          timeout=5)  # every sample decoded once on its lane, and failed
        arrived = topics[wanted].count  # all five, unless a loaded machine dropped some
        assert 1 <= topics[unwanted].error_count <= 5
        assert topics[wanted].errors["malformed"] == arrived
    finally:
        for publisher in garbage.values():
            publisher.undeclare()


def _free_port() -> int:
    from tests.conftest import free_port

    return free_port()


def test_converter_options_reach_the_converter_and_prompt_values_wake_the_display(
        station, robot, converters) -> None:
    converters("test.scaled", lambda m, factor=1: int(m.root.unixTimeMs) * factor)
    woken = threading.Event()
    station.feeds.set_waker(woken.set)
    consumer = station.consumer("test")
    plain_interest = Converted(FAST, "test.scaled")
    scaled = Converted(FAST, "test.scaled", options=(("factor", 1000),), prompt=True)
    consumer.want({plain_interest})
    try:
        with Sender(robot, {FAST: 30}):
            wait_for(lambda: plain_interest in station.feeds.converted, timeout=10)
            time.sleep(0.2)
            assert not woken.is_set()  # a steady value does not hurry the display
            consumer.want({plain_interest, scaled})
            wait_for(lambda: station.feeds.converted.get(scaled) is not None and
                     station.feeds.converted[scaled].value is not None, timeout=10)
            assert woken.wait(1)
            value = station.feeds.converted[scaled].value
            assert value >= 1000 and value % 1000 == 0
    finally:
        station.feeds.set_waker(None)
        consumer.close()


@contextmanager
def five_behind_a_held_sample(station: Station, robot: BusSession, holding: threading.Event,
                              gate: threading.Event) -> Iterator[None]:
    """Sample 0 on FAST until a slow reader holds the lane with it (sent again until it
    does: a publisher just declared may not be matched yet), then 1 to 5, which the station
    hears and queues behind it; then the reader is let go (``gate``)."""
    wait_until_heard(robot, FAST)
    publisher = Publisher(robot, FAST, "fleet.Uplink", Traffic.COMMAND)
    try:
        wait_for(lambda: holding.is_set()
                 or (publisher.put(uplink(0)) > 0 and holding.wait(0.05)), timeout=5)
        heard = station.topics()[FAST].count
        for n in range(1, 6):
            publisher.put(uplink(n))
        wait_for(lambda: station.topics()[FAST].count >= heard + 5, timeout=5)  # all queued
        gate.set()
        yield
    finally:
        gate.set()
        publisher.close()


def test_a_stream_consumer_is_told_which_samples_a_newer_one_already_follows(
        station, robot) -> None:
    seen: list[tuple[int, bool]] = []
    holding = threading.Event()
    gate = threading.Event()

    def slow_reader(delivery) -> None:
        holding.set()
        gate.wait(5)  # the first sample holds the lane while the rest queue up behind it
        seen.append((int(delivery.message().root.unixTimeMs), delivery.superseded))

    consumer = station.consumer("test", on_sample=slow_reader)
    consumer.want({Stream(FAST)})
    try:
        with five_behind_a_held_sample(station, robot, holding, gate):
            wait_for(lambda: bool(seen) and seen[-1][0] == 5, timeout=5)
    finally:
        consumer.close()
    numbers = [n for n, _ in seen]
    first = numbers.count(0)  # the first sample, maybe sent more than once
    assert numbers == [0] * first + list(range(1, 6))  # every sample, in order
    assert seen[-1] == (5, False)  # the newest is never skipped
    assert any(superseded for _, superseded in seen[1:-1])


def test_a_newest_stream_takes_the_newest_sample_when_its_turn_comes_an_every_stream_all(
        station, robot) -> None:
    every: list[int] = []
    newest: list[int] = []
    holding = threading.Event()
    gate = threading.Event()

    def slow_reader(delivery) -> None:
        holding.set()
        gate.wait(5)  # the first sample holds the lane while the rest arrive behind it
        every.append(int(delivery.message().root.unixTimeMs))

    reader = station.consumer("events", on_sample=slow_reader)
    reader.want({Stream(FAST)})
    state = station.consumer("state", on_sample=lambda d: newest.append(
        int(d.message().root.unixTimeMs)))
    state.want({Stream(FAST, "fleet.Uplink", newest=True)})
    try:
        with five_behind_a_held_sample(station, robot, holding, gate):
            wait_for(lambda: bool(every) and every[-1] == 5 and bool(newest)
                     and newest[-1] == 5, timeout=5)
    finally:
        reader.close()
        state.close()
    first = every.count(0)  # the first sample, maybe sent more than once
    assert every == [0] * first + list(range(1, 6))  # every sample, in order
    assert newest == [0] * newest.count(0) + [5]  # the state: the newest, once caught up


def test_a_key_a_panel_wants_first_still_reaches_the_streams_on_expressions(
        station, robot) -> None:
    """The vitals' streams on ``fleet/*/uplink/...`` and a panel's Latest on one of those
    keys, wanted before its first sample: the key's lane serves both (it used to serve only
    the panel when the panel's interest made the lane, so a robot's status never reached
    the vitals: the goal tool waited for an acknowledgement forever)."""
    heard: list[int] = []
    watcher = station.consumer("watcher", on_sample=lambda d: heard.append(
        d.message().root.unixTimeMs))
    watcher.want({Stream("fleet/*/fast", "fleet.Uplink")})
    panel = station.consumer("panel")
    panel.want({Latest(FAST)})  # the lane is made now, before any sample
    with Sender(robot, {FAST: 20}):
        wait_for(lambda: FAST in station.feeds.latest and len(heard) >= 3, timeout=5)
    panel.close()
    watcher.close()


def test_the_lanes_of_a_hundred_light_keys_share_a_few_threads(station, robot) -> None:
    """A thread per key made the window wait its turn at the GIL behind hundreds of them
    with a fleet online; light keys now share the hub's few threads, in order per key."""
    keys = [f"fleet/r1/key{i}" for i in range(100)]
    heard: dict[str, list[int]] = {}
    consumer = station.consumer("test", on_sample=lambda d: heard.setdefault(
        d.sample.key, []).append(d.message().root.unixTimeMs))
    consumer.want({Stream("fleet/r1/*", "fleet.Uplink")})
    threads_before = threading.active_count()
    sent = 0

    def every_key_heard() -> bool:
        nonlocal sent
        sent += 1
        for key in keys:
            robot.zenoh.put(key, uplink(sent), encoding="application/capnp;fleet.Uplink")
        return len(heard) == len(keys)

    try:
        wait_for(every_key_heard, timeout=10)
        wait_for(lambda: all(heard[k][-1] == sent for k in keys), timeout=5)
    finally:
        consumer.close()
    assert threading.active_count() <= threads_before + LIGHT_LANE_THREADS
    assert all(numbers == sorted(numbers) for numbers in heard.values())  # in order per key
