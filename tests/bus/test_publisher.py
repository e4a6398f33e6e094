"""Publishers put the QoS PROTOCOL.md asks for on the wire."""

from __future__ import annotations

import pytest
import zenoh

from app.bus.publisher import Publisher, Traffic
from app.codec.registry import registry
from tests.bus.helpers import wait_for, wait_until_heard


@pytest.mark.parametrize(
    ("traffic", "priority", "express", "congestion"),
    [
        (Traffic.TELEOP, zenoh.Priority.INTERACTIVE_HIGH, True, zenoh.CongestionControl.DROP),
        (Traffic.ESTOP, zenoh.Priority.REAL_TIME, True, zenoh.CongestionControl.BLOCK),
        (Traffic.TELEMETRY, zenoh.Priority.DATA, False, zenoh.CongestionControl.DROP),
    ],
)
def test_samples_arrive_with_their_traffic_class(
    robot_and_app, traffic, priority, express, congestion
) -> None:
    robot, app = robot_and_app
    received = []
    app.declare_subscriber("fleet/r1/command/**", received.append)
    pub = Publisher(robot, "fleet/r1/command/teleop", "fleet.Command", traffic)
    wait_until_heard(robot, "fleet/r1/command/teleop")
    command = registry().struct("fleet.Command").new_message(robotId="r1", seq=7)
    command.teleop.linearMps = 0.5
    pub.put(command)
    (sample,) = wait_for(lambda: received)
    assert str(sample.encoding) == "application/capnp;fleet.Command"
    assert sample.priority == priority
    assert sample.express is express
    assert sample.congestion_control == congestion


def test_estop_outranks_teleop_which_outranks_telemetry() -> None:
    # zenoh priorities: a smaller number is served first
    assert int(Traffic.ESTOP.value.priority) < int(Traffic.TELEOP.value.priority)
    assert int(Traffic.TELEOP.value.priority) < int(Traffic.TELEMETRY.value.priority)
