"""app.codec.fields: what echo, the inspector and plot pickers show for a decoded message."""

from __future__ import annotations

import gc
import weakref

import pytest

from app.codec.decode import decode, encoding_for
from app.codec.errors import FieldPathError, LimitExceeded
from app.codec.fields import DataSummary, ListSummary, get_path, numeric_paths, plain
from app.codec.registry import registry


def struct_type(name: str):
    return registry().structs[name]


def decoded(builder, attachment: bytes | None = None):
    name = registry().name_of(builder.schema.node.id)
    return decode(encoding_for(name), builder.to_bytes(), attachment).root


@pytest.fixture(scope="module")
def capabilities():
    builder = struct_type("fleet.Uplink").new_message(robotId="r1", unixTimeMs=1234)
    caps = builder.init("capabilities")
    services = caps.init("services", 3)
    for i, service in enumerate(services):
        service.name = f"svc{i}"
        service.type = "setBool"
        service.dangerLevel = "critical"
    sensor = caps.init("sensors", 1)[0]
    sensor.key = "temp"
    sensor.value.number = 21.5
    return decoded(builder)


@pytest.fixture(scope="module")
def battery():
    builder = struct_type("fleet.Uplink").new_message(robotId="r2")
    b = builder.init("battery")
    b.percentage = 87.5
    b.status = "discharging"
    b.health = "overheat"
    return decoded(builder)


# ---- unions ---------------------------------------------------------------------------


def test_active_union_member_is_read(battery):
    assert get_path(battery, "battery.percentage") == 87.5
    assert get_path(battery, "robotId") == "r2"


@pytest.mark.parametrize("path", ["status", "status.mode", "capabilities.services[0].name"])
def test_inactive_union_member_is_none(battery, path):
    assert get_path(battery, path) is None


def test_inactive_nested_union_member_is_none(capabilities):
    assert get_path(capabilities, "capabilities.sensors[0].value.number") == 21.5
    assert get_path(capabilities, "capabilities.sensors[0].value.string") is None


def test_plain_shows_only_the_active_union_member(battery):
    shown = plain(battery)
    assert set(shown) == {"robotId", "unixTimeMs", "battery"}
    assert plain(battery)["battery"]["percentage"] == 87.5


# ---- lists, enums -------------------------------------------------------------------


def test_list_index(capabilities):
    assert get_path(capabilities, "capabilities.services[2].name") == "svc2"
    assert get_path(capabilities, "capabilities.services[0].name") == "svc0"
    assert len(get_path(capabilities, "capabilities.services")) == 3


def test_list_of_lists_index():
    builder = struct_type("fleet.ShapeData").new_message()
    lines = builder.init("multiLineString", 2)
    lines.init(0, 1)[0].lon = 1.0
    second = lines.init(1, 2)
    second[1].lat = 52.25
    root = decoded(builder)
    assert get_path(root, "multiLineString[1][1].lat") == 52.25
    assert get_path(root, "multiLineString[0][0].lon") == 1.0


def test_enums_by_name(capabilities, battery):
    assert get_path(battery, "battery.status") == "discharging"
    assert get_path(battery, "battery.health") == "overheat"
    assert get_path(capabilities, "capabilities.services[1].dangerLevel") == "critical"
    assert plain(capabilities)["capabilities"]["services"][1]["type"] == "setBool"


@pytest.mark.parametrize(
    "path",
    [
        "",
        "nosuch",
        "battery.nosuch",
        "battery..percentage",
        "battery.percentage.x",
        "robotId.length",
        "robotId[0]",
        "battery[0]",
        "[0]",
        "battery.percentage[0]",
        "1battery",
        "battery.percent age",
        "battery.status.",
        "robotId[-1]",
        "schema",
        "_which_str",
    ],
)
def test_bad_paths_raise_field_path_error(battery, path):
    with pytest.raises(FieldPathError):
        get_path(battery, path)


@pytest.mark.parametrize("path", ["capabilities.services[3]", "capabilities.services[99].name"])
def test_index_past_the_end_is_field_path_error(capabilities, path):
    with pytest.raises(FieldPathError):
        get_path(capabilities, path)


def test_field_named_like_a_reader_attribute_is_the_field():
    """isaac.StateProto has a Text field called `schema` (pycapnp readers also have a
    `schema` attribute): the user must see the field's text."""
    builder = struct_type("isaac.StateProto").new_message()
    builder.schema = "x:f64,y:f64"
    builder.data = [1.0, 2.0]
    root = decoded(builder)
    value = get_path(root, "schema")
    assert isinstance(value, str), f"get_path shows a {type(value).__name__}"
    assert value == "x:f64,y:f64"
    shown = plain(root)["schema"]
    assert isinstance(shown, str), f"plain shows a {type(shown).__name__}"
    assert shown == "x:f64,y:f64"


# ---- Data, long lists ---------------------------------------------------------------


def test_data_is_summarised():
    builder = struct_type("foxglove.PointCloud").new_message(frameId="lidar")
    builder.data = bytes(range(200))
    root = decoded(builder)
    shown = plain(root)["data"]
    assert shown == DataSummary(200, bytes(range(16)))
    assert str(shown).startswith("<200 bytes 00 01 02")
    assert str(shown).endswith("…>")
    assert plain(root, data_head=4)["data"] == DataSummary(200, bytes(range(4)))


def test_short_data_is_shown_whole():
    builder = struct_type("foxglove.PointCloud").new_message(data=b"\x01\x02")
    shown = plain(decoded(builder))["data"]
    assert shown == DataSummary(2, b"\x01\x02")
    assert str(shown) == "<2 bytes 01 02>"


def test_long_lists_are_summarised(capabilities):
    shown = plain(capabilities, max_list=2)["capabilities"]
    services = shown["services"]
    assert isinstance(services, ListSummary)
    assert services.length == 3
    assert [s["name"] for s in services.first] == ["svc0", "svc1"]
    assert shown["sensors"][0]["key"] == "temp"  # one element: not summarised


def test_long_numeric_lists_are_summarised():
    builder = struct_type("isaac.StateProto").new_message()
    builder.data = [float(i) for i in range(1000)]
    root = decoded(builder)
    assert plain(root, max_list=3)["data"] == ListSummary(1000, [0.0, 1.0, 2.0])
    assert plain(root, max_list=1000)["data"] == [float(i) for i in range(1000)]
    assert len(plain(root)["data"]) == 1000


# ---- numeric paths (plot pickers) ----------------------------------------------------


def test_numeric_paths_of_uplink():
    paths = numeric_paths(struct_type("fleet.Uplink").schema)
    for path in [
        "unixTimeMs",
        "battery.percentage",
        "battery.voltageV",
        "battery.runtimeRemainingS",
        "status.uptimeS",
        "status.estop",
        "motion.pose.latDeg",
        "motion.localPose.qw",
        "motion.velocity.linearMps",
        "mission.progress",
        "object.upsert.location.headingDeg",
    ]:
        assert path in paths
    for path in ["robotId", "battery.status", "capabilities.services", "message.text"]:
        assert path not in paths
    assert len(paths) == len(set(paths))


def test_every_numeric_path_reads_a_number(battery):
    for path in numeric_paths(struct_type("fleet.Uplink").schema):
        value = get_path(battery, path)
        assert value is None or isinstance(value, int | float | bool), path


# ---- reading a decoded message again and again --------------------------------------


def test_a_decoded_message_can_be_read_again_and_again():
    """The inspector re-renders the latest sample of a latched topic (capabilities are sent
    once): reading it many times must keep working, long after decode. Each ``root`` is a
    reader with a budget of a few passes over the message; one reader re-read forever runs
    out (LimitExceeded), a fresh ``root`` per reading never does."""
    builder = struct_type("fleet.Uplink").new_message(robotId="r3")
    setting = builder.init("capabilities").init("settings", 1)[0]
    setting.key = "route"
    setting.description = "d" * (1 << 20)
    decoded_message = decode(encoding_for("fleet.Uplink"), builder.to_bytes())
    for _ in range(50):
        root = decoded_message.root
        assert len(get_path(root, "capabilities.settings[0].description")) == 1 << 20
    root = decoded_message.root
    with pytest.raises(LimitExceeded):
        for _ in range(50):
            get_path(root, "capabilities.settings[0].description")


def test_decoding_and_showing_a_data_field_frees_the_message_afterwards() -> None:
    """pycapnp 2.2.4's own Data view leaks the whole message; ours must not."""
    class Payload(bytearray):  # bytes cannot be weakly referenced; a subclass can
        pass

    image = registry().structs["foxglove.CompressedImage"].new_message()
    image.format = "jpeg"
    image.data = b"\xff\xd8" + bytes(100_000)
    payload = Payload(image.to_bytes())
    gone = weakref.ref(payload)
    message = decode(encoding_for("foxglove.CompressedImage"), payload)
    shown = plain(message.root)
    assert str(shown["data"]).startswith("<100002 bytes ff d8 00")
    del message, payload, shown
    gc.collect()
    assert gone() is None
