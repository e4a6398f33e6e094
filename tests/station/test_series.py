"""SeriesBuffer: points kept in time order, read by window or by what is new, across threads."""

from __future__ import annotations

import threading

import numpy as np

from app.station.series import SeriesBuffer


def test_points_stay_in_time_order_and_non_finite_ones_are_dropped() -> None:
    buffer = SeriesBuffer()
    for t in (1.0, 2.0, 4.0, 3.0, float("nan"), 5.0, 0.5):
        buffer.append(t, t * 10)
    buffer.append(6.0, float("inf"))
    t, y = buffer.arrays()
    assert list(t) == [0.5, 1.0, 2.0, 3.0, 4.0, 5.0] and list(y) == list(t * 10)
    assert len(buffer) == 6
    buffer.extend(np.array([8.0, 2.5, np.nan, 7.0]), np.array([80.0, 25.0, 1.0, np.inf]))
    t, y = buffer.arrays()
    assert list(t) == [0.5, 1.0, 2.0, 2.5, 3.0, 4.0, 5.0, 8.0] and y[3] == 25.0


def test_a_window_is_a_slice_with_one_neighbour_each_side() -> None:
    buffer = SeriesBuffer()
    buffer.extend(np.arange(100.0), np.arange(100.0))
    t, _, _ = buffer.window(10.5, 20.5)
    assert t[0] == 10 and t[-1] == 21 and len(t) == 12
    t, _, _ = buffer.window(200, 300)
    assert list(t) == [99.0]
    t, _, _ = buffer.window(-50, -10)
    assert list(t) == [0.0]


def test_since_hands_out_only_what_is_new_or_asks_for_a_fresh_read() -> None:
    buffer = SeriesBuffer()
    buffer.extend(np.arange(10.0), np.zeros(10))
    version = buffer.version
    _, _, cursor = buffer.window(0, 100)
    buffer.append(10.0, 1.0)
    buffer.append(11.0, 2.0)
    assert buffer.version > version
    t, y, cursor = buffer.since(cursor, 100)
    assert list(t) == [10.0, 11.0] and list(y) == [1.0, 2.0]
    t, _, cursor = buffer.since(cursor, 100)
    assert len(t) == 0
    # past the reader's range: one neighbour, then nothing more
    buffer.extend(np.array([200.0, 201.0, 202.0]), np.zeros(3))
    t, _, cursor = buffer.since(cursor, 100)
    assert list(t) == [200.0]
    buffer.append(203.0, 0.0)
    t, _, cursor = buffer.since(cursor, 100)
    assert len(t) == 0
    buffer.append(5.5, 0.0)  # late: inserted in order, points the reader has moved
    assert buffer.since(cursor, 1000) is None
    t, _, _ = buffer.window(5, 6)
    assert list(t) == [4.0, 5.0, 5.5, 6.0, 7.0]


def test_at_capacity_the_oldest_half_goes_and_readers_read_again() -> None:
    buffer = SeriesBuffer(capacity=100)
    buffer.extend(np.arange(100.0), np.arange(100.0))
    _, _, cursor = buffer.window(0, 1000)
    buffer.append(100.0, 100.0)
    assert len(buffer) == 51
    t, y = buffer.arrays()
    assert t[0] == 50 and t[-1] == 100 and (t == y).all()
    t, _, cursor = buffer.since(cursor, 1000)  # what it has stays valid ...
    assert list(t) == [100.0]
    buffer.extend(np.arange(1000.0, 1300.0), np.zeros(300))  # more than it holds
    t, _ = buffer.arrays()
    assert len(t) == 100 and t[0] == 1200 and t[-1] == 1299
    buffer.extend(np.arange(2000.0, 2100.0), np.zeros(100))
    assert buffer.since(cursor, 1e9) is None  # ... until points it has not read were dropped


def test_readers_never_see_torn_data_while_the_writer_appends() -> None:
    buffer = SeriesBuffer(capacity=5_000)
    done = threading.Event()

    def write() -> None:
        for i in range(40_000):
            t = i * 0.01 - (0.015 if i % 97 == 0 else 0.0)  # now and then a late one
            buffer.append(t, t * 2)
        done.set()

    writer = threading.Thread(target=write)
    writer.start()
    problems = 0
    cursor = None
    while not done.is_set():
        t, y, new_cursor = buffer.window(50.0, 150.0)
        problems += int((np.diff(t) < 0).any() or not np.allclose(y, 2 * t))
        if cursor is not None:
            got = buffer.since(cursor, 1e9)
            if got is not None:
                problems += int((np.diff(got[0]) < 0).any() or not np.allclose(got[1],
                                                                             2 * got[0]))
        cursor = new_cursor
    writer.join()
    assert problems == 0
    t, _ = buffer.arrays()
    assert (np.diff(t) >= 0).all() and len(t) <= 5_000
