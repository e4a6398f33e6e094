"""Command authority between stations on real zenoh: one holder, seen alike by all,
taken, refused, released, taken over, asked for, and raced for."""

from __future__ import annotations

import queue
import random
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from app.bus.config import BusConfig
from app.bus.control import Claim, holder, parse_claim
from app.bus.session import BusSession
from app.station.identity import StationIdentity
from app.station.station import Station
from tests.bus.helpers import wait_for
from tests.conftest import free_port

ROBOT = "rover-1"


@pytest.fixture
def router(open_session: Callable[..., BusSession]) -> str:
    """The endpoint of the depot's router."""
    endpoint = f"tcp/127.0.0.1:{free_port()}"
    open_session(mode="router", listen=[endpoint])
    return endpoint


@pytest.fixture
def stations(router: str) -> Iterator[Callable[..., Station]]:
    """Stations on one zenoh fabric: clients of one router, as at a depot."""
    made: list[Station] = []

    def make(name: str, role: str = "operator") -> Station:
        station = Station(BusConfig(mode="client", connect=[router]),
                          identity=StationIdentity.new(name), role=role)
        made.append(station)
        wait_for(lambda: station.bus is not None, 5)
        return station

    try:
        yield make
    finally:
        for station in reversed(made):
            station.close()


def connected(a: Station, b: Station) -> None:
    """Until each sees the other's claims: a claim of a probe robot seen both ways."""
    for one, other in ((a, b), (b, a)):
        assert one.authority.take("probe") == ""
        wait_for(lambda o=other, n=one: (h := o.authority.control("probe").holder) is not None
                 and h.station_id == n.identity.station_id, 5)
        one.authority.release("probe")
        wait_for(lambda o=other: o.authority.control("probe").holder is None, 5)


def test_the_rule_picks_the_highest_generation_then_the_earliest_claim() -> None:
    early = Claim(ROBOT, 0, 100, "b", "operator", "B")
    late = Claim(ROBOT, 0, 200, "a", "operator", "A")
    tie = Claim(ROBOT, 0, 100, "a", "operator", "A")
    over = Claim(ROBOT, 1, 900, "c", "owner", "C")
    assert holder([late, early]) == early
    assert holder([early, tie]) == tie  # the same instant: the lower station id
    assert holder([early, late, over]) == over
    assert holder([]) is None


def test_a_claim_key_round_trips_with_any_name_and_bad_keys_are_no_claim() -> None:
    claim = Claim(ROBOT, 2, 1_700_000_000_000_000_000, "ab12", "operator",
                  "Ana María / depot #2 *")
    key = claim.key("fleet")
    assert "*" not in key and "#" not in key and key.count("/") == 7
    assert parse_claim(key, "fleet") == claim
    for bad in ("fleet/rover-1/control/x/1/ab/operator/A", "fleet/rover-1/control/1/1/a.b/o/A",
                "fleet/rover-1/control/request", "other/rover-1/control/1/1/ab/o/A"):
        assert parse_claim(bad, "fleet") is None


def test_one_station_takes_control_the_other_sees_it_and_is_refused(
        stations: Callable[..., Station]) -> None:
    a, b = stations("Ana"), stations("Bo")
    connected(a, b)
    assert a.authority.take(ROBOT) == ""
    assert a.authority.control(ROBOT).mine
    seen = wait_for(lambda: b.authority.control(ROBOT).holder, 5)
    assert seen.name == "Ana" and seen.station_id == a.identity.station_id
    assert b.authority.control(ROBOT).refusal == "controlled by Ana (operator)"
    assert b.authority.take(ROBOT) == "controlled by Ana (operator)"
    a.authority.release(ROBOT)
    wait_for(lambda: b.authority.control(ROBOT).holder is None, 5)
    assert b.authority.take(ROBOT) == ""


def test_a_takeover_needs_the_owner_role_and_the_holder_loses_at_once(
        stations: Callable[..., Station]) -> None:
    a, b, c = stations("Ana"), stations("Bo"), stations("Cy", role="owner")
    connected(a, c)
    connected(b, c)
    assert a.authority.take(ROBOT) == ""
    wait_for(lambda: b.authority.control(ROBOT).holder and c.authority.control(ROBOT).holder, 5)
    assert "owner role" in b.authority.take(ROBOT, takeover=True)
    assert c.authority.take(ROBOT, takeover=True) == ""
    lost = wait_for(lambda: a.authority.control(ROBOT).lost, 5)
    assert lost == "control taken by Cy (owner)"
    assert not a.authority.control(ROBOT).mine
    wait_for(lambda: (h := b.authority.control(ROBOT).holder) is not None and h.name == "Cy", 5)


@pytest.mark.parametrize("granted", [True, False])
def test_a_request_is_answered_by_the_holder(
        stations: Callable[..., Station], granted: bool) -> None:
    a, b = stations("Ana"), stations("Bo")
    connected(a, b)
    asked: list[str] = []

    def ask_operator(robot: str, who: str, answer: Callable[[bool], None]) -> None:
        asked.append(f"{robot}: {who}")
        answer(granted)

    a.authority.on_request(ask_operator)
    assert a.authority.take(ROBOT) == ""
    wait_for(lambda: b.authority.control(ROBOT).holder, 5)
    result = b.authority.request(ROBOT, timeout_s=5)
    assert asked == [f"{ROBOT}: Bo (operator)"]
    if granted:
        assert result == ""
        assert b.authority.control(ROBOT).mine
        wait_for(lambda: (h := a.authority.control(ROBOT).holder) is not None
                 and h.name == "Bo", 5)
    else:
        assert result == "Ana (operator) declined"
        assert a.authority.control(ROBOT).mine


def test_a_request_nobody_answers_says_so(stations: Callable[..., Station]) -> None:
    a, b = stations("Ana"), stations("Bo")
    connected(a, b)
    unanswered: list[Callable[[bool], None]] = []  # the question stays open: nobody there
    a.authority.on_request(lambda robot, who, answer: unanswered.append(answer))
    assert a.authority.take(ROBOT) == ""
    wait_for(lambda: b.authority.control(ROBOT).holder, 5)
    assert b.authority.request(ROBOT, timeout_s=1) == "no answer from Ana (operator) within 1 s"
    assert len(unanswered) == 1


def test_two_stations_taking_at_the_same_instant_end_with_one_holder_both_agree_on(
        stations: Callable[..., Station]) -> None:
    a, b = stations("Ana"), stations("Bo")
    connected(a, b)
    rng = random.Random(7)
    for round_ in range(12):
        robot = f"race-{round_}"
        results: dict[str, str] = {}
        go = threading.Barrier(2)

        def take(station: Station, delay: float, robot: str = robot,
                 results: dict[str, str] = results, go: threading.Barrier = go) -> None:
            go.wait()
            threading.Event().wait(delay)
            results[station.identity.name] = station.authority.take(robot)

        threads = [threading.Thread(target=take, args=(s, rng.uniform(0, 0.05)))
                   for s in (a, b)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(10)
        winners = [name for name, why in results.items() if why == ""]
        assert len(winners) == 1, results
        winner = a if winners == ["Ana"] else b
        for station in (a, b):
            wait_for(lambda s=station, r=robot, w=winner.identity.station_id:
                     (h := s.authority.control(r).holder) is not None and h.station_id == w, 5)
        assert [s.authority.control(robot).mine for s in (a, b)].count(True) == 1
        winner.authority.release(robot)


class RacingStation:
    """tests/station/racing_station.py in a process of its own: what it prints, line by line."""

    def __init__(self, endpoint: str, name: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.station.racing_station", endpoint, name],
            cwd=Path(__file__).resolve().parents[2], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, text=True)
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.station_id = self.said("ready")[0]

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.strip())

    def tell(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def said(self, first: str, timeout_s: float = 20.0) -> list[str]:
        """The words after ``first`` of the next line it prints (which must start so)."""
        line = self.lines.get(timeout=timeout_s)
        words = line.split(" ", 2)
        assert words[0] == first, line
        return words[1:]

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(10)


def test_two_stations_in_two_processes_racing_for_control_end_with_one_holder_both_agree_on(
        stations: Callable[..., Station], router: str) -> None:
    ana = stations("Ana")
    bo = RacingStation(router, "Bo")
    try:
        # each sees the other's claims before the race: Ana's probe claim refuses Bo's
        assert ana.authority.take("probe") == ""
        bo.tell(f"take probe {time.time()}")
        assert bo.said("took") == ["probe", "controlled by Ana (operator)"]
        assert bo.said("holder") == ["probe", ana.identity.station_id]
        ana.authority.release("probe")
        rng = random.Random(11)
        wins = {"Ana": 0, "Bo": 0}
        for round_ in range(10):
            robot = f"race-{round_}"
            at = time.time() + 0.3  # the same instant for both, give or take 50 ms
            bo.tell(f"take {robot} {at + rng.uniform(0, 0.05)}")
            time.sleep(max(0.0, at + rng.uniform(0, 0.05) - time.time()))
            ana_took = ana.authority.take(robot) == ""
            robot_said, bo_why = bo.said("took")
            assert robot_said == robot
            assert ana_took != (bo_why == "ok"), (ana_took, bo_why)  # exactly one holder
            winner = ana.identity.station_id if ana_took else bo.station_id
            assert bo.said("holder") == [robot, winner]  # as Bo sees it
            wait_for(lambda r=robot, w=winner: (h := ana.authority.control(r).holder)
                     is not None and h.station_id == w, 5)  # as Ana sees it
            wins["Ana" if ana_took else "Bo"] += 1
            if ana_took:
                ana.authority.release(robot)
            else:
                bo.tell(f"release {robot}")
                assert bo.said("released") == [robot]
        assert sum(wins.values()) == 10
    finally:
        bo.close()
