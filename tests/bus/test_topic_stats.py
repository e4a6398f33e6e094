"""Topic statistics as the Topics panel and ``fieldstation topics`` read them: rate and
bandwidth over the last seconds, a stream that stops decaying to zero, and snapshots that
stay as they were taken while the subscriber thread keeps counting."""

from __future__ import annotations

import pytest

from app.bus.stats import RATE_WINDOW_S, TopicCounts, TopicStats

ENCODING = "application/capnp;fleet.Uplink"


def stream(stats: TopicStats, start: float, rate_hz: float, seconds: float,
           size: int = 100) -> float:
    """Records ``rate_hz`` samples of ``size`` bytes for ``seconds``; the last arrival."""
    arrival = start
    for n in range(int(rate_hz * seconds)):
        arrival = start + n / rate_hz
        stats.record(arrival, size, ENCODING)
    return arrival


@pytest.mark.parametrize("rate_hz", [0.5, 1.0, 10.0, 30.0, 1000.0])
def test_a_steady_streams_rate_and_bandwidth(rate_hz: float) -> None:
    stats = TopicStats("fleet/r/uplink/battery")
    last = stream(stats, 1000.25, rate_hz, 12.0, size=200)
    now = last + 0.5 / rate_hz
    assert stats.rate_hz(now) == pytest.approx(rate_hz, rel=0.02)
    assert stats.bandwidth_bps(now) == pytest.approx(200 * rate_hz, rel=0.02)
    assert stats.count == int(rate_hz * 12.0) and stats.type_name == "fleet.Uplink"


def test_a_stream_that_stops_goes_to_zero() -> None:
    stats = TopicStats("k")
    last = stream(stats, 50.0, 10.0, 10.0)
    assert stats.rate_hz(last + 0.05) == pytest.approx(10.0, rel=0.02)
    assert stats.rate_hz(last + 1.0) < 10.0  # no longer "while they keep coming"
    assert stats.rate_hz(last + RATE_WINDOW_S + 1.0) == 0.0
    assert stats.bandwidth_bps(last + RATE_WINDOW_S + 1.0) == 0.0
    assert stats.age_s(last + 3.0) == pytest.approx(3.0)


def test_a_snapshot_keeps_what_it_saw_and_is_taken_again_only_after_a_change() -> None:
    counts = TopicCounts()
    with counts.lock:
        counts.stats_for("a").record(10.0, 8, ENCODING)
        counts.stats_for("b").record(10.0, 8, ENCODING)
    first = counts.stats()
    assert counts.stats()["a"] is first["a"]  # nothing changed: the same snapshot
    with counts.lock:
        counts.stats_for("a").record(10.5, 8, ENCODING)
    second = counts.stats()
    assert second["a"] is not first["a"] and second["b"] is first["b"]
    assert (first["a"].count, second["a"].count) == (1, 2)
    counts.record_error("b", "malformed", "truncated segment")
    third = counts.stats()
    assert third["b"].error_count == 1 and first["b"].error_count == 0
    assert third["b"].last_error == "truncated segment"
    counts.record_error("a", "malformed", "bad pointer")
    counts.record_error("b", "oversized", "too big")
    fourth = counts.stats()
    assert fourth["a"].errors == {"malformed": 1} and third["a"].error_count == 0
    assert fourth["b"].errors == {"malformed": 1, "oversized": 1}
    assert third["b"].errors == {"malformed": 1} and first["b"].error_count == 0
