"""Robot presence from liveliness, and catalogs served or discovered, on a real session."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import capnp
import pytest

from app.bus import catalog
from app.bus.presence import PresenceTracker, announce
from app.bus.publisher import Publisher, Traffic
from app.codec.decode import encoding_for
from app.codec.registry import registry
from tests.bus.helpers import wait_for

REPO = Path(__file__).resolve().parents[2]
ROBOT_PROCESS = """
import sys, time
from app.bus.config import BusConfig
from app.bus.session import BusSession
from app.bus.presence import announce
bus = BusSession(BusConfig(mode="client", connect=[sys.argv[1]]))
announce(bus, "doomed")
print("up", flush=True)
time.sleep(600)
"""


def test_robot_goes_offline_within_2s_when_its_session_closes(robot_and_app) -> None:
    robot, app = robot_and_app
    presence = PresenceTracker(app)
    announce(robot, "r1")
    wait_for(lambda: presence.online() == ["r1"])
    closed_at = time.monotonic()
    robot.close()
    wait_for(lambda: presence.online() == [], timeout=2.0)
    assert presence.robots()["r1"].changed - closed_at < 2.0


def test_robot_goes_offline_within_2s_when_its_process_is_killed(
    free_endpoint, open_session
) -> None:
    open_session(mode="router", listen=[free_endpoint])
    app = open_session(connect=[free_endpoint], must_connect=True)
    presence = PresenceTracker(app)
    proc = subprocess.Popen(
        [sys.executable, "-c", ROBOT_PROCESS, free_endpoint],
        cwd=REPO, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "up"
        wait_for(lambda: "doomed" in presence.online(), timeout=5.0)
        killed_at = time.monotonic()
        proc.kill()
        wait_for(lambda: "doomed" not in presence.online(), timeout=2.0)
        assert time.monotonic() - killed_at < 2.0
    finally:
        proc.kill()
        proc.wait(timeout=10)


def test_catalog_is_served_and_fetched(robot_and_app) -> None:
    robot, app = robot_and_app
    served = catalog.Catalog(
        robot_id="r1", name="Rover One", model="sim-rover", families=["fleet", "isaac"],
        topics=[catalog.TopicInfo("fleet/r1/uplink/battery", "fleet.Uplink", 1.0)],
        commands=[catalog.TopicInfo("fleet/r1/command/teleop", "fleet.Command", 0.0)],
    )
    catalog.serve(robot, served)
    fetched = wait_for(lambda: catalog.fetch(app, "r1", timeout_s=0.5))
    assert fetched == served
    assert fetched.command_key("fleet.Command") == "fleet/r1/command/teleop"


def test_catalog_round_trips_frame_ids(robot_and_app) -> None:
    robot, app = robot_and_app
    served = catalog.Catalog(
        robot_id="r1", families=["isaac", "foxglove", "bow"],
        topics=[
            catalog.TopicInfo("fleet/r1/lidar/points", "isaac.PointCloudProto", 5.0, "lidar"),
            catalog.TopicInfo("fleet/r1/camera/detections", "isaac.Detections2Proto", 10.0,
                              "camera"),
            catalog.TopicInfo("fleet/r1/tf", "foxglove.FrameTransforms", 20.0),
        ],
        commands=[catalog.TopicInfo("fleet/r1/motor", "bow.MotorSample", 0.0, "base")],
    )
    catalog.serve(robot, served)
    fetched = wait_for(lambda: catalog.fetch(app, "r1", timeout_s=0.5))
    assert fetched == served
    assert [t.frame_id for t in fetched.topics] == ["lidar", "camera", ""]
    assert fetched.commands[0].frame_id == "base"


# transport.capnp as robots built before TopicInfo.frameId have it (another file id, so it
# loads beside the real one; ids are not on the wire).
TRANSPORT_BEFORE_FRAME_ID = """@0xd2c1a3f0e4b5a697;
struct Catalog {
  robotId @0 :Text;
  name @1 :Text;
  model @2 :Text;
  families @3 :List(Text);
  topics @4 :List(TopicInfo);
  commands @5 :List(TopicInfo);
}
struct TopicInfo {
  key @0 :Text;
  type @1 :Text;
  rateHz @2 :Float32;
}
"""


def test_catalog_of_an_older_robot_without_frame_ids_reads_empty(robot_and_app, tmp_path) -> None:
    robot, app = robot_and_app
    schema_file = tmp_path / "transport_before_frame_id.capnp"
    schema_file.write_text(TRANSPORT_BEFORE_FRAME_ID)
    old = capnp.SchemaParser().load(str(schema_file))
    message = old.Catalog.new_message(robotId="r9", name="Old rover", model="",
                                      families=["isaac"])
    topic = message.init("topics", 1)[0]
    topic.key, topic.type, topic.rateHz = "fleet/r9/lidar/points", "isaac.PointCloudProto", 5.0
    command = message.init("commands", 1)[0]
    command.key, command.type = "fleet/r9/command/teleop", "fleet.Command"
    payload = message.to_bytes()
    same_today = catalog.Catalog(
        robot_id="r9", name="Old rover", families=["isaac"],
        topics=[catalog.TopicInfo("fleet/r9/lidar/points", "isaac.PointCloudProto", 5.0)],
        commands=[catalog.TopicInfo("fleet/r9/command/teleop", "fleet.Command", 0.0)],
    )
    # The old TopicInfos really lack the pointer that frameId adds (one word each).
    assert len(same_today.to_bytes()) - len(payload) == 2 * 8

    key = "fleet/r9/catalog"
    encoding = encoding_for(catalog.CATALOG_TYPE)
    robot.declare_queryable(key, lambda query: query.reply(key, payload, encoding=encoding))
    fetched = wait_for(lambda: catalog.fetch(app, "r9", timeout_s=0.5))
    assert fetched == same_today
    assert [t.frame_id for t in fetched.topics + fetched.commands] == ["", ""]


def test_robot_without_catalog_is_discovered_by_listening(robot_and_app) -> None:
    robot, app = robot_and_app
    pub = Publisher(robot, "fleet/r2/uplink/battery", "fleet.Uplink", Traffic.TELEMETRY)
    uplink = registry().struct("fleet.Uplink").new_message(robotId="r2")
    uplink.init("battery").percentage = 40
    payload = uplink.to_bytes()
    stop = threading.Event()
    sent: list[float] = []

    def publish() -> None:
        while not stop.wait(0.02):
            pub.put(payload)
            sent.append(time.monotonic())

    publisher = threading.Thread(target=publish)
    publisher.start()
    try:
        assert catalog.fetch(app, "r2", timeout_s=0.3) is None
        listened = time.monotonic()
        found = catalog.catalog_of(app, "r2")
    finally:
        stop.set()
        publisher.join()
    assert found.discovered
    assert [(t.key, t.type) for t in found.topics] == [("fleet/r2/uplink/battery", "fleet.Uplink")]
    # the rate heard is the rate sent (about 50 Hz; less when a loaded machine slows the sender)
    window = [t for t in sent if t >= listened]
    sent_hz = (len(window) - 1) / (window[-1] - window[0])
    assert found.topics[0].rate_hz == pytest.approx(sent_hz, rel=0.3)
    assert found.families == ["fleet"]
    assert found.topics[0].frame_id == ""  # listening cannot tell a frame


def test_one_query_fetches_every_robots_catalog_by_its_key(robot_and_app) -> None:
    robot, app = robot_and_app
    for robot_id in ("r1", "r2", "r3"):
        catalog.serve(robot, catalog.Catalog(robot_id, name=f"robot {robot_id}"))
    found = wait_for(lambda: len(got := catalog.fetch_all(app, timeout_s=2.0)) == 3 and got)
    assert {robot_id: c.name for robot_id, c in found.items()} == {
        "r1": "robot r1", "r2": "robot r2", "r3": "robot r3"}


def test_presence_has_a_session_of_its_own_closed_with_the_stations(robot_and_app) -> None:
    """A session that knows of tokens matches each data sample against them all (zenoh 1.x):
    the tokens are heard apart from the data."""
    robot, app = robot_and_app
    presence = PresenceTracker(app)
    assert presence._bus is not app
    announce(robot, "r1")
    wait_for(lambda: presence.online() == ["r1"])
    app.close()
    assert presence._bus.closed
