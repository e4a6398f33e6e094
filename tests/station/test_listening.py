"""What the station listens to: every robot's small keys, heavy keys only when wanted."""

from __future__ import annotations

from app.bus.catalog import Catalog, TopicInfo
from app.bus.keys import key_matches
from app.station.interests import Stream
from app.station.listening import Wanted, listening_plan

STATUS = TopicInfo("fleet/r1/uplink/status", "fleet.Uplink", 2.0)
CLOUD = TopicInfo("fleet/r1/lidar/points", "isaac.PointCloudProto", 5.0)
IMAGE = TopicInfo("fleet/r1/camera/compressed", "foxglove.CompressedImage", 10.0)
TELEOP = TopicInfo("fleet/r1/command/teleop", "fleet.Command")
HEAVY_ROBOT = Catalog("r1", topics=[STATUS, CLOUD, IMAGE], commands=[TELEOP])


def test_a_robot_without_catalog_or_without_heavy_topics_is_heard_whole() -> None:
    light = Catalog("r2", topics=[TopicInfo("fleet/r2/uplink/status", "fleet.Uplink")])
    plan = listening_plan("fleet", {"r1": None, "r2": light}, Wanted())
    assert plan.exprs == {"fleet/*/**"}  # one subscriber hears them all
    assert plan.unheard == set()


def test_a_robot_that_serves_no_catalog_stays_heard_whole() -> None:
    """What listening for a moment found is not a list the robot made: a key it missed (a
    fault repeated every 2 s) must still be heard."""
    learnt = Catalog("r1", topics=[STATUS, CLOUD], discovered=True)
    plan = listening_plan("fleet", {"r1": learnt}, Wanted())
    assert plan.exprs == {"fleet/*/**"} and plan.unheard == set()


def test_heavy_topics_nobody_wants_are_not_heard() -> None:
    plan = listening_plan("fleet", {"r1": HEAVY_ROBOT}, Wanted())
    assert plan.exprs == {STATUS.key}
    assert plan.unheard == {CLOUD.key, IMAGE.key}


def test_a_heavy_topic_is_heard_while_a_key_or_a_typed_stream_wants_it() -> None:
    by_key = listening_plan("fleet", {"r1": HEAVY_ROBOT}, Wanted(keys=frozenset({CLOUD.key})))
    assert by_key.exprs == {STATUS.key, CLOUD.key} and by_key.unheard == {IMAGE.key}
    images = Wanted(streams=(Stream("fleet/*/camera/**", "foxglove.CompressedImage"),))
    by_stream = listening_plan("fleet", {"r1": HEAVY_ROBOT}, images)
    assert by_stream.exprs == {STATUS.key, IMAGE.key}
    other_type = Wanted(streams=(Stream("fleet/**", "foxglove.RawImage"),))
    assert listening_plan("fleet", {"r1": HEAVY_ROBOT}, other_type).exprs == {STATUS.key}


def test_a_stream_of_everything_hears_each_robot_whole() -> None:
    recorder = Wanted(streams=(Stream("fleet/**"),))
    plan = listening_plan("fleet", {"r1": HEAVY_ROBOT}, recorder)
    assert plan.exprs == {"fleet/*/**"} and plan.unheard == set()


def test_a_command_key_is_heard_only_when_a_stream_names_it() -> None:
    commands = Wanted(streams=(Stream("fleet/r1/command/**"),))
    assert listening_plan("fleet", {"r1": HEAVY_ROBOT}, commands).exprs == {STATUS.key,
                                                                             TELEOP.key}


def test_wanted_keys_of_robots_not_seen_and_outside_the_root_are_heard_as_named() -> None:
    wanted = Wanted(keys=frozenset({"fleet/r9/pose", "fleet/r1/extra"}),
                    streams=(Stream("other/**"),))
    plan = listening_plan("fleet", {"r1": HEAVY_ROBOT}, wanted)
    assert plan.exprs == {STATUS.key, "fleet/r1/extra", "fleet/r9/pose", "other/**"}


def test_a_passive_stream_takes_only_what_is_heard_anyway() -> None:
    from app.station.feeds import FeedHub

    hub = FeedHub()
    try:
        black_box = hub.consumer("black box")
        black_box.want({Stream("fleet/**", passive=True)})
        assert hub.wanted() == Wanted()
        assert listening_plan("fleet", {"r1": HEAVY_ROBOT}, hub.wanted()).exprs == {STATUS.key}
        panel = hub.consumer("panel")
        panel.want({Stream("fleet/**")})
        assert listening_plan("fleet", {"r1": HEAVY_ROBOT}, hub.wanted()).exprs == {"fleet/*/**"}
    finally:
        hub.close()


def test_robots_heard_whole_share_a_few_expressions_that_leave_out_the_split_ones() -> None:
    """A depot: a subscriber per robot costs zenoh a core at a thousand robots."""
    def heavy(robot_id: str) -> Catalog:
        return Catalog(robot_id, topics=[
            TopicInfo(f"fleet/{robot_id}/uplink/status", "fleet.Uplink"),
            TopicInfo(f"fleet/{robot_id}/camera/compressed", "foxglove.CompressedImage")])

    ids = [f"{kind}-{n}" for kind in ("rover", "humanoid", "car") for n in range(1, 301)]
    split = {"rover-1", "car-1", "humanoid-17"}
    catalogs = {robot_id: heavy(robot_id) if robot_id in split else None for robot_id in ids}
    plan = listening_plan("fleet", catalogs, Wanted())
    assert len(plan.exprs) < 70
    for robot_id in ids:
        heard_by = [e for e in plan.exprs if key_matches(e, f"fleet/{robot_id}/uplink/status")]
        assert len(heard_by) == 1, (robot_id, heard_by)  # heard, and once
        image = f"fleet/{robot_id}/camera/compressed"
        assert any(key_matches(e, image) for e in plan.exprs) == (robot_id not in split)
    assert plan.unheard == {f"fleet/{r}/camera/compressed" for r in split}
