"""Roles granted by the router's access control, end to end on loopback: a router started
from the shipped sample (resources/zenoh/router-tls-acl.json5), with TLS and passwords as
test_security.py builds them; a robot and stations of each role as its clients, each with
the shipped client sample and its own user name.

A refused message never arrives, so each test fences it: the refused message is sent, then
an allowed one that reaches the same receiver after it (from the same session on the same
link, or a catalog query the robot answers: the router handles a link's messages in order
and forwards a put, at a priority no lower than the query's, before it). The allowed one
arrives; the refused one has not."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from app.bus.catalog import Catalog, fetch, serve
from app.bus.config import BusConfig
from app.bus.control import Claim, claims_expr
from app.bus.keys import command_key, command_keys
from app.bus.outbox import Outbox
from app.bus.session import BusSession
from app.codec.decode import decode, encoding_for
from app.codec.registry import registry
from app.station.commands import Commander
from tests.bus.depot import Depot, make_depot
from tests.bus.helpers import wait_for, wait_until_heard

ROBOT = "rover-1"
ACL_SAMPLE = "router-tls-acl.json5"
STATION_USER = 'user: "station", password: "station-password"'
TIMEOUT_S = 10.0


@dataclass
class Robot:
    """A robot's session: it hears every key a service call may come on and serves its
    catalog (what the fences ask for)."""

    session: BusSession
    heard: list[tuple[str, str]] = field(default_factory=list)  # (key, service name)

    def calls(self) -> list[tuple[str, str]]:
        return list(self.heard)

    def hear(self, sample: Any) -> None:
        command = decode(encoding_for("fleet.Command"), bytes(sample.payload)).root
        self.heard.append((str(sample.key_expr), command.service.name))


@pytest.fixture
def depot(tmp_path: Path) -> Iterator[Depot]:
    """A depot whose router enforces the shipped access control."""
    depot = make_depot(tmp_path)
    router = BusSession(BusConfig(config_file=depot.config("router", "acl-router",
                                                           sample=ACL_SAMPLE)))
    try:
        yield depot
    finally:
        router.close()


@pytest.fixture
def connect(depot: Depot, open_session: Callable[..., BusSession]
            ) -> Callable[[str], BusSession]:
    """Opens a client session of the depot as ``user`` ("robot", or a station's user);
    closed at teardown (conftest's open_session)."""
    def open_(user: str) -> BusSession:
        if user == "robot":
            return open_session(config_file=depot.config("robot"))
        return open_session(config_file=depot.config("station", user, **{
            STATION_USER: f'user: "{user}", password: "{user}-password"'}))

    return open_


@pytest.fixture
def robot(connect: Callable[[str], BusSession]) -> Robot:
    robot = Robot(connect("robot"))
    for key in command_keys(ROBOT, "service"):
        robot.session.declare_subscriber(key, robot.hear)
    serve(robot.session, Catalog(ROBOT, "Rover"))
    return robot


def call(session: BusSession, name: str, min_role: str = "operator") -> None:
    """Calls the robot's trigger service ``name`` (needing ``min_role``) as the station
    sends it, once the session knows the robot listens."""
    def fill(service: Any) -> None:
        service.name, service.trigger = name, None

    wait_until_heard(session, command_key(ROBOT, "service", min_role=min_role),
                     timeout=TIMEOUT_S)
    Commander(Outbox(lambda: session)).send(ROBOT, "service", name, fill, min_role)


def service_call(name: str) -> bytes:
    """A fleet.Command calling the trigger service ``name``."""
    message = registry().struct("fleet.Command").new_message(robotId=ROBOT)
    service = message.init("service")
    service.name, service.trigger = name, None
    return message.to_bytes()


def fence(session: BusSession) -> None:
    """Returns once the robot has answered ``session``'s catalog query: whatever the
    session sent before it has reached the robot, or been dropped by the router."""
    assert fetch(session, ROBOT, timeout_s=TIMEOUT_S) is not None


def test_a_viewers_command_is_dropped_by_the_router_and_an_operators_arrives(
        connect: Callable[[str], BusSession], robot: Robot) -> None:
    viewer, operator = connect("viewer"), connect("ana-operator")
    call(viewer, "horn")
    fence(viewer)
    call(operator, "horn")
    service = command_key(ROBOT, "service")
    wait_for(lambda: robot.calls() == [(service, "horn")], timeout=TIMEOUT_S,
             why=robot.calls)


def test_an_admin_service_goes_on_its_admin_key_which_an_operator_may_not_put(
        connect: Callable[[str], BusSession], robot: Robot) -> None:
    operator, admin = connect("ana-operator"), connect("bo-admin")
    call(operator, "reboot", min_role="admin")
    call(operator, "horn")  # same link, same priority: after the refused reboot
    service = command_key(ROBOT, "service")
    wait_for(lambda: robot.calls() == [(service, "horn")], timeout=TIMEOUT_S,
             why=robot.calls)
    call(admin, "reboot", min_role="admin")
    wait_for(lambda: robot.calls()[1:] == [(f"{service}/admin", "reboot")],
             timeout=TIMEOUT_S, why=robot.calls)


def test_a_put_on_a_wildcard_does_not_go_around_the_admin_key(
        connect: Callable[[str], BusSession], robot: Robot) -> None:
    # zenoh delivers a put on a wildcard to every subscriber it intersects: the sample
    # allows only the command keys themselves, never fleet/** less the admin keys.
    operator = connect("ana-operator")
    service = command_key(ROBOT, "service")
    wait_until_heard(operator, service, timeout=TIMEOUT_S)
    operator.zenoh.put(f"fleet/{ROBOT}/command/**", service_call("reboot"))
    operator.zenoh.put(service, service_call("horn"))
    wait_for(lambda: robot.calls() == [(service, "horn")], timeout=TIMEOUT_S,
             why=robot.calls)


def test_a_viewer_cannot_claim_control_of_a_robot(
        connect: Callable[[str], BusSession], robot: Robot) -> None:
    viewer, operator, watcher = connect("viewer"), connect("ana-operator"), connect("owner")
    claims: list[str] = []
    watcher.declare_liveliness_subscriber(claims_expr("fleet", ROBOT),
                                          lambda sample: claims.append(str(sample.key_expr)))
    now = time.time_ns()
    viewer_claim = Claim(ROBOT, 1, now, "viewerstation", "viewer", "Vi").key("fleet")
    operator_claim = Claim(ROBOT, 1, now + 1, "operatorstation", "operator", "Ana").key("fleet")
    viewer.declare_token(viewer_claim)
    fence(viewer)  # the token, declared before the query, was handled before it
    operator.declare_token(operator_claim)
    wait_for(lambda: operator_claim in claims, timeout=TIMEOUT_S, why=lambda: claims)
    assert claims == [operator_claim]
