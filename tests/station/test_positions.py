"""The position book on real Cap'n Proto bytes: each family's own pose placed (geodetic
around the datum, local in its site frame), other entities and bad values left out, with
the reason kept."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from app.codec.decode import decode, encoding_for
from app.codec.registry import registry
from app.scene.geo import to_enu
from app.sim.car import ENTITY_STATUS, entity_status_fields
from app.sim.kinematics import DATUM_LAT_DEG, DATUM_LON_DEG, Pose2D
from app.sim.street import EGO_CAR
from app.station.positions import EARTH, PERIOD_S, PositionBook, RobotPosition, enu

DATUM = (DATUM_LAT_DEG, DATUM_LON_DEG)


def decoded(type_name: str, message: Any) -> Any:
    return decode(encoding_for(type_name), message.to_bytes(), None)


def motion(lat: float = math.nan, lon: float = math.nan, heading: float = 0.0,
           local: tuple[float, float, float] | None = None, frame: str = "") -> Any:
    message = registry().struct("fleet.Uplink").new_message(robotId="r1", unixTimeMs=1)
    m = message.init("motion")
    if not math.isnan(lat) or not math.isnan(lon):
        m.pose.latDeg, m.pose.lonDeg, m.pose.headingDeg, m.hasPose = lat, lon, heading, True
    if local is not None:
        x, y, yaw = local
        m.localPose.x, m.localPose.y = x, y
        m.localPose.qz, m.localPose.qw = math.sin(yaw / 2), math.cos(yaw / 2)
        m.hasLocalPose, m.localFrameId = True, frame
    return decoded("fleet.Uplink", message)


def offer(book: PositionBook, sample: Any, at: float, robot: str = "r1",
          key: str = "fleet/r1/uplink/motion", frame: str = "") -> bool:
    return book.offer(robot, key, sample.type_name, sample.root, at, frame)


def test_fleet_geodetic_pose_is_placed_around_the_first_fix() -> None:
    book = PositionBook()
    assert offer(book, motion(*DATUM, heading=90.0), at=1.0, robot="a", key="fleet/a/m")
    assert book.datum == DATUM and book.datum_from == "a"
    east_of = Pose2D(30.0, -40.0).geodetic()
    assert offer(book, motion(*east_of, heading=180.0), at=1.0, robot="b", key="fleet/b/m")
    a, b = book.snapshot()["a"].placement, book.snapshot()["b"].placement
    assert a is not None and b is not None
    assert (a.frame, a.x, a.y) == (EARTH, 0.0, 0.0)
    assert a.yaw == pytest.approx(0.0)  # heading east = +x
    # the sim's spherical approximation and WGS84 differ by 0.2 %
    assert (b.x, b.y) == pytest.approx((30.0, -40.0), rel=0.005)
    assert b.yaw == pytest.approx(-math.pi / 2)  # heading south
    # the same plane as the 3D view's geodetic placement
    lon_lat = np.array([[east_of[1], east_of[0], 0.0]])
    assert enu(*east_of, DATUM) == pytest.approx(tuple(to_enu(lon_lat, (*DATUM[::-1], 0.0))
                                                       [0, :2]), abs=1e-6)


def test_fleet_local_pose_is_placed_in_its_site_frame() -> None:
    book = PositionBook()
    assert offer(book, motion(local=(5.0, -2.0, math.pi / 2), frame="yard"), at=1.0)
    placement = book.snapshot()["r1"].placement
    assert placement is not None
    assert (placement.frame, placement.x, placement.y) == ("yard", 5.0, -2.0)
    assert placement.yaw == pytest.approx(math.pi / 2)
    offer(book, motion(local=(1.0, 1.0, 0.0)), at=2.0)
    assert book.snapshot()["r1"].placement.frame == "map"  # PROTOCOL: an unnamed one
    assert book.datum is None  # no geodetic fix: no datum


def test_nan_and_missing_poses_are_not_placed_and_say_why() -> None:
    book = PositionBook(datum=DATUM)
    version = book.version
    assert offer(book, motion(), at=1.0)  # motion with neither pose
    assert book.snapshot()["r1"] == RobotPosition("r1", None, "motion without a pose")
    assert offer(book, motion(math.nan, DATUM[1]), at=2.0)
    assert book.snapshot()["r1"].problem == "position not finite"
    assert book.snapshot()["r1"].placement is None
    assert offer(book, motion(*DATUM, heading=math.nan), at=3.0)  # heading unknown: placed
    good = book.snapshot()["r1"]
    assert good.placement is not None and good.placement.yaw is None and good.problem == ""
    assert offer(book, motion(123.0, 8.0), at=4.0)
    kept = book.snapshot()["r1"]
    assert kept.placement == good.placement  # the last good place stays...
    assert kept.problem == "position absurd (lat 123, lon 8)"  # ...with the reason
    assert book.version > version and book.datum == DATUM  # a fixed datum is kept


def test_bow_gps_with_imu_heading() -> None:
    message = registry().struct("bow.ExteroceptionSample").new_message()
    imu = message.init("imu", 1)[0]
    imu.orientation.y = math.pi / 2  # bow yaw: from north towards the right = east
    lat, lon = Pose2D(10.0, 20.0).geodetic()
    gps = message.init("gps")
    gps.latitude, gps.longitude = lat, lon
    book = PositionBook(datum=DATUM)
    assert offer(book, decoded("bow.ExteroceptionSample", message), at=1.0,
                 key="fleet/r1/exteroception")
    placement = book.snapshot()["r1"].placement
    assert placement is not None and placement.frame == EARTH
    assert (placement.x, placement.y) == pytest.approx((10.0, 20.0), abs=1.0)  # Float32 fix
    assert placement.yaw == pytest.approx(0.0, abs=1e-6)

    bare = registry().struct("bow.ExteroceptionSample").new_message()
    assert offer(book, decoded("bow.ExteroceptionSample", bare), at=2.0, robot="r2",
                 key="fleet/r2/exteroception")
    assert book.snapshot()["r2"].problem == "no GPS in exteroception"


def test_autoware_ego_entity_only() -> None:
    struct = registry().struct(ENTITY_STATUS)

    def status(name: str, x: float, y: float, yaw: float) -> Any:
        class Moving:
            pose = Pose2D(x, y, yaw)
            speed = accel = jerk = yaw_rate = yaw_accel = 0.0
        return decoded(ENTITY_STATUS, struct.new_message(
            **entity_status_fields(name, EGO_CAR, Moving, "idle", 0.0)))

    book = PositionBook()
    assert not offer(book, status("npc-1", 3.0, 4.0, 0.0), at=1.0, robot="car-1",
                     key="fleet/car-1/entities/npc-1", frame="map")
    assert "car-1" not in book.snapshot()
    assert not book.due("fleet/car-1/entities/npc-1", 1.5)  # another's: looked at rarely
    assert offer(book, status("car-1", -7.0, 2.5, math.pi), at=1.0, robot="car-1",
                 key="fleet/car-1/entities/car-1", frame="map")
    placement = book.snapshot()["car-1"].placement
    assert placement is not None
    assert (placement.frame, placement.x, placement.y) == ("map", -7.0, 2.5)
    assert abs(placement.yaw) == pytest.approx(math.pi)
    assert not book.due("fleet/car-1/entities/car-1", 1.0 + PERIOD_S / 2)
    assert book.due("fleet/car-1/entities/car-1", 1.0 + PERIOD_S)


def test_a_fresh_geodetic_place_is_not_replaced_by_a_local_one() -> None:
    book = PositionBook()
    offer(book, motion(*DATUM, heading=0.0), at=1.0)
    offer(book, motion(local=(50.0, 50.0, 0.0)), at=2.0, key="fleet/r1/odometry")
    assert book.snapshot()["r1"].placement.frame == EARTH
    offer(book, motion(local=(50.0, 50.0, 0.0)), at=10.0, key="fleet/r1/odometry")
    assert book.snapshot()["r1"].placement.frame == "map"  # the fix went silent


def test_isaac_odometry_in_its_frame() -> None:
    message = registry().struct("isaac.Odometry2Proto").new_message()
    pose = message.odomTRobot
    pose.translation.x, pose.translation.y = 1.5, 2.5
    pose.rotation.q.x, pose.rotation.q.y = 0.0, 1.0  # cos, sin: +90 degrees
    message.odometryFrame = "odom"
    book = PositionBook()
    assert offer(book, decoded("isaac.Odometry2Proto", message), at=1.0, key="fleet/r1/odom")
    placement = book.snapshot()["r1"].placement
    assert (placement.frame, placement.x, placement.y) == ("odom", 1.5, 2.5)
    assert placement.yaw == pytest.approx(math.pi / 2)
