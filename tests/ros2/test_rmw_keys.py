"""rmw_keys against rmw_zenoh's own examples, zenoh's own serializer, and bad input.

Sources of the literal keys (ros2/rmw_zenoh, RMW_ZENOH.md has the commits):
docs/design.md "Topic and Service name mapping" and "Graph Cache" examples, and the
liveliness_utils.hpp doc comments (the QoS example, and a token of the pre-2024 layout).
"""

from __future__ import annotations

import contextlib
import struct
import time
from collections.abc import Iterator

import pytest
import zenoh
import zenoh.ext as zext
from hypothesis import given
from hypothesis import strategies as st

from app.ros2.rmw_keys import (
    DEFAULT_QOS,
    INFINITE,
    Attachment,
    Durability,
    Entity,
    EntityKind,
    History,
    Liveliness,
    MalformedAttachment,
    MalformedKey,
    MalformedToken,
    Qos,
    Reliability,
    TopicKey,
    build_attachment,
    build_token,
    dds_type_name,
    decode_qos,
    encode_qos,
    graph_key,
    late_joiner_selector,
    parse_attachment,
    parse_token,
    parse_topic_key,
    publisher_options,
    resolve_qos,
    ros_type_name,
    topic_key,
)

STRING_HASH = "RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18"
ADD_TWO_INTS_HASH = "RIHS01_e118de6bf5eeb66a2491b5bda11202e7b68f198d6f67922cf30364858239c81a"

# design.md, "Topic and Service name mapping to Zenoh key expressions".
DESIGN_KEYS = {
    f"0/chatter/std_msgs::msg::dds_::String_/{STRING_HASH}":
        TopicKey(0, "/chatter", "std_msgs/msg/String", STRING_HASH),
    f"0/robot1/chatter/std_msgs::msg::dds_::String_/{STRING_HASH}":
        TopicKey(0, "/robot1/chatter", "std_msgs/msg/String", STRING_HASH),
    f"2/add_two_ints/example_interfaces::srv::dds_::AddTwoInts_/{ADD_TWO_INTS_HASH}":
        TopicKey(2, "/add_two_ints", "example_interfaces/srv/AddTwoInts", ADD_TWO_INTS_HASH),
}

# design.md, "Graph Cache": the demo_nodes_cpp listener, talker and add_two_ints tokens.
LISTENER = "@ros2_lv/2/aac3178e146ba6f1fc6e6a4085e77f21/0/0/NN/%/%/listener"
LISTENER_SUB = ("@ros2_lv/2/aac3178e146ba6f1fc6e6a4085e77f21/0/10/MS/%/%/listener/%chatter/"
                f"std_msgs::msg::dds_::String_/{STRING_HASH}/::,10:,:,:,,")
TALKER_PUB = ("@ros2_lv/2/8b20917502ee955ac4476e0266340d5c/0/10/MP/%/%/talker/%chatter/"
              f"std_msgs::msg::dds_::String_/{STRING_HASH}/::,7:,:,:,,")
SERVER = ("@ros2_lv/2/f9980ee0495eaafb3e38f0d19e2eae12/0/10/SS/%/%/add_two_ints_server/"
          f"%add_two_ints/example_interfaces::srv::dds_::AddTwoInts_/{ADD_TWO_INTS_HASH}/"
          "::,10:,:,:,,")
CLIENT = ("@ros2_lv/2/e1dc8d1b45ae8717fce78689cc655685/0/10/SC/%/%/add_two_ints_client/"
          f"%add_two_ints/example_interfaces::srv::dds_::AddTwoInts_/{ADD_TWO_INTS_HASH}/"
          "::,10:,:,:,,")
DESIGN_TOKENS = [LISTENER, LISTENER_SUB, TALKER_PUB, SERVER, CLIENT]

ROVER_LIDAR_PUB = Entity(
    0, "1f0e", 3, 7, EntityKind.PUBLISHER, "/", "/rover_1", "lidar", "/rover_1/scan",
    "sensor_msgs/msg/LaserScan", "RIHS01_" + "ab" * 32,
    Qos(Reliability.BEST_EFFORT, Durability.TRANSIENT_LOCAL, History.KEEP_ALL, 5))


# -- data key expressions ---------------------------------------------------------------


@pytest.mark.parametrize("key", DESIGN_KEYS)
def test_design_doc_keys_parse_and_build_back(key: str) -> None:
    parsed = parse_topic_key(key)
    assert parsed == DESIGN_KEYS[key]
    assert topic_key(parsed.domain, parsed.name, parsed.type_name, parsed.type_hash) == key


def test_a_namespaced_topic_keeps_its_inner_slashes() -> None:
    assert topic_key(0, "/rover_1/cmd_vel", "geometry_msgs/msg/Twist", "RIHS01_" + "0" * 64) == \
        "0/rover_1/cmd_vel/geometry_msgs::msg::dds_::Twist_/RIHS01_" + "0" * 64


def test_wildcards_for_type_and_hash() -> None:
    assert topic_key(3, "/tf_static", "tf2_msgs/msg/TFMessage", "*") == \
        "3/tf_static/tf2_msgs::msg::dds_::TFMessage_/*"
    assert topic_key(3, "/tf_static", "*", "*") == "3/tf_static/*/*"


@pytest.mark.parametrize(("domain", "name", "ros_type", "type_hash"), [
    (-1, "/chatter", "std_msgs/msg/String", "*"),
    (0, "chatter", "std_msgs/msg/String", "*"),  # not fully qualified
    (0, "/a//b", "std_msgs/msg/String", "*"),
    (0, "/chatter/", "std_msgs/msg/String", "*"),
    (0, "/chat*", "std_msgs/msg/String", "*"),
    (0, "/chatter", "std_msgs/String", "*"),
    (0, "/chatter", "std_msgs::msg::String", "*"),
    (0, "/chatter", "std_msgs/msg/String", "RIHS01_abc"),
    (0, "/chatter", "std_msgs/msg/String", "RIHS01_" + "A" * 64),  # rosidl writes lowercase
])
def test_topic_key_refuses_what_rmw_zenoh_never_sends(
        domain: int, name: str, ros_type: str, type_hash: str) -> None:
    with pytest.raises(ValueError):
        topic_key(domain, name, ros_type, type_hash)


@pytest.mark.parametrize("key", [
    "", "0", "0/chatter", f"0/std_msgs::msg::dds_::String_/{STRING_HASH}",
    f"x/chatter/std_msgs::msg::dds_::String_/{STRING_HASH}",
    f"-1/chatter/std_msgs::msg::dds_::String_/{STRING_HASH}",
    f"0/chatter/std_msgs::msg::String/{STRING_HASH}",
    "0/chatter/std_msgs::msg::dds_::String_/RIHS01_00",
    f"0/chatter/std_msgs::msg::dds_::String_/{STRING_HASH}/_buf_cpu",  # Rolling buffer channel
    f"0/chatter/std_msgs::msg::dds_::String_/{STRING_HASH}/@adv/pub/ab/1/_",
    TALKER_PUB, "ü/chatter/x::msg::dds_::Y_/" + STRING_HASH, "0/" + "a/" * 10_000,
])
def test_parse_topic_key_raises_malformed_key(key: str) -> None:
    with pytest.raises(MalformedKey):
        parse_topic_key(key)


def test_type_names_both_ways() -> None:
    assert dds_type_name("geometry_msgs/msg/Twist") == "geometry_msgs::msg::dds_::Twist_"
    assert ros_type_name("geometry_msgs::msg::dds_::Twist_") == "geometry_msgs/msg/Twist"
    assert ros_type_name("example_interfaces::srv::dds_::AddTwoInts_") == \
        "example_interfaces/srv/AddTwoInts"
    for foreign in ("", "Twist", "my::Type", "a::dds_::b"):  # as graph_cache.cpp leaves them
        assert ros_type_name(foreign) == foreign


# -- liveliness tokens ---------------------------------------------------------------------


def test_design_doc_node_token() -> None:
    assert parse_token(LISTENER) == Entity(
        2, "aac3178e146ba6f1fc6e6a4085e77f21", 0, 0, EntityKind.NODE, "/", "/", "listener")


def test_design_doc_talker_publisher_token() -> None:
    assert parse_token(TALKER_PUB) == Entity(
        2, "8b20917502ee955ac4476e0266340d5c", 0, 10, EntityKind.PUBLISHER, "/", "/", "talker",
        "/chatter", "std_msgs/msg/String", STRING_HASH, Qos(depth=7))


@pytest.mark.parametrize(("token", "kind"), [
    (LISTENER_SUB, EntityKind.SUBSCRIPTION), (SERVER, EntityKind.SERVICE),
    (CLIENT, EntityKind.CLIENT)])
def test_design_doc_endpoint_tokens(token: str, kind: EntityKind) -> None:
    entity = parse_token(token)
    assert (entity.kind, entity.qos) == (kind, Qos(depth=10))
    assert entity.type_name in ("std_msgs/msg/String", "example_interfaces/srv/AddTwoInts")


@pytest.mark.parametrize("token", DESIGN_TOKENS)
def test_design_doc_tokens_build_back_exactly(token: str) -> None:
    assert build_token(parse_token(token)) == token


def test_a_namespaced_node_and_topic_are_mangled_with_percent() -> None:
    token = build_token(ROVER_LIDAR_PUB)
    assert token == ("@ros2_lv/0/1f0e/3/7/MP/%/%rover_1/lidar/%rover_1%scan/"
                     f"sensor_msgs::msg::dds_::LaserScan_/RIHS01_{'ab' * 32}/2:1:2,5:,:,:,,")
    assert parse_token(token) == ROVER_LIDAR_PUB


def test_rolling_buffer_aware_endpoints_keep_their_backends_chunk_raw() -> None:
    token = parse_token(LISTENER_SUB + "/cuda")
    assert token.backends == "cuda"
    assert build_token(token) == LISTENER_SUB + "/cuda"


def test_graph_key() -> None:
    assert graph_key(7) == "@ros2_lv/7/**"


@pytest.mark.parametrize("entity", [
    Entity(0, "ab", 0, 0, EntityKind.NODE, "/", "/", "a%b"),  # '%' would demangle to '/'
    Entity(0, "ab", 0, 0, EntityKind.NODE, "/", "", "n"),  # an empty chunk
    Entity(0, "AB", 0, 0, EntityKind.NODE, "/", "/", "n"),
    Entity(-1, "ab", 0, 0, EntityKind.NODE, "/", "/", "n"),
    Entity(0, "ab", 0, 0, EntityKind.NODE, "/", "/", "n", topic="/t"),
    Entity(0, "ab", 0, 1, EntityKind.PUBLISHER, "/", "/", "n", "/t", "a/msg/B", STRING_HASH),
    Entity(0, "ab", 0, 1, EntityKind.PUBLISHER, "/", "/", "n", "/t", "a/msg/B", "", Qos()),
])
def test_build_token_refuses_entities_that_would_not_parse_back(entity: Entity) -> None:
    with pytest.raises(ValueError):
        build_token(entity)


MALFORMED_TOKENS = {
    "empty": "",
    "wrong prefix": LISTENER.replace("@ros2_lv", "@ros_lv"),
    "bridge prefix": "@/aac3178e146ba6f1fc6e6a4085e77f21/@ros2_lv/MP/chatter/x/y",
    "no admin space": LISTENER.removeprefix("@ros2_lv/"),
    "too few node chunks": LISTENER.rsplit("/", 1)[0],
    "too many node chunks": LISTENER + "/extra",
    "endpoint without topic": TALKER_PUB.split("/%chatter")[0],
    "endpoint without qos": TALKER_PUB.rsplit("/", 1)[0],
    "too many endpoint chunks": TALKER_PUB + "/a/b",
    "empty chunk": LISTENER.replace("/0/0/", "/0//"),
    "trailing slash": LISTENER + "/",
    "unknown kind": LISTENER.replace("/NN/", "/XX/"),
    "lowercase kind": LISTENER.replace("/NN/", "/nn/"),
    "non-numeric domain": LISTENER.replace("@ros2_lv/2/", "@ros2_lv/two/"),
    "negative domain": LISTENER.replace("@ros2_lv/2/", "@ros2_lv/-2/"),
    "signed domain": LISTENER.replace("@ros2_lv/2/", "@ros2_lv/+2/"),
    "unicode digit domain": LISTENER.replace("@ros2_lv/2/", "@ros2_lv/²/"),
    "overflowing domain": LISTENER.replace("@ros2_lv/2/", f"@ros2_lv/{2**64}/"),
    "huge domain": LISTENER.replace("@ros2_lv/2/", f"@ros2_lv/{'9' * 5000}/"),
    "non-hex zid": LISTENER.replace("aac3178e", "zzc3178e"),
    "too long zid": LISTENER.replace("aac3178e", "aac3178e" * 5),
    "non-numeric node id": LISTENER.replace("/0/0/NN", "/n/0/NN"),
    "non-numeric entity id": TALKER_PUB.replace("/0/10/MP", "/0/1x/MP"),
    "qos with 5 fields": TALKER_PUB.replace("::,7:,:,:,,", "::,7:,:,"),
    "qos with 7 fields": TALKER_PUB.replace("::,7:,:,:,,", "::,7:,:,:,,:"),
    "qos history without depth": TALKER_PUB.replace("::,7:", "::7:"),
    "qos liveliness with 2 parts": TALKER_PUB.replace(":,,", ":,"),
    "qos bad reliability": TALKER_PUB.replace("::,7:", "9::,7:"),
    "qos best-available reliability": TALKER_PUB.replace("::,7:", "4::,7:"),
    "qos manual-by-node liveliness": TALKER_PUB.replace(":,:,,", ":,:2,,"),
    "qos non-numeric depth": TALKER_PUB.replace("::,7:", "::,seven:"),
    "qos negative depth": TALKER_PUB.replace("::,7:", "::,-7:"),
    "qos spaced depth": TALKER_PUB.replace("::,7:", "::, 7:"),
    "qos overflowing depth": TALKER_PUB.replace("::,7:", f"::,{2**64}:"),
    "pre-2024 layout (liveliness_utils.hpp doc comment)":
        "@ros2_lv/0/q1w2e3r4t5y6/1/32/MP/_/talker/dds_::std_msgs::msg::String/2:1:2,10",
    "unicode": "@ros2_lv/٣/ŝ/0/0/NN/%/%/ñ",
    "huge": "@ros2_lv/0/ab/0/0/NN/%/%/" + "n/" * 100_000,
}


@pytest.mark.parametrize("key", MALFORMED_TOKENS.values(), ids=MALFORMED_TOKENS.keys())
def test_malformed_tokens_raise_malformed_token(key: str) -> None:
    with pytest.raises(MalformedToken) as raised:
        parse_token(key)
    assert len(str(raised.value)) < 400  # a huge key does not make a huge message


def test_unicode_names_and_huge_valid_tokens_parse() -> None:
    # rmw_zenoh does not check names' characters; zenoh keys are UTF-8.
    assert parse_token("@ros2_lv/0/ab/0/0/NN/%/%ñ/ノード").node_name == "ノード"
    assert parse_token(f"@ros2_lv/0/ab/0/0/NN/%/%/{'n' * 1_000_000}").node_name == "n" * 1_000_000


@given(st.text())
def test_parse_token_on_any_text_returns_an_entity_or_raises_malformed_token(key: str) -> None:
    with contextlib.suppress(MalformedToken):
        assert isinstance(parse_token(key), Entity)


@given(st.lists(st.sampled_from(["@ros2_lv", "0", "2", "ab", "NN", "MP", "SS", "%", "%a",
                                 "n", "", "::,7:,:,:,,", STRING_HASH, "a::msg::dds_::B_", "x",
                                 "1:2:1,10:0,0:60,3000:1,0,0"]), max_size=15))
def test_near_tokens_raise_malformed_token_or_round_trip(chunks: list[str]) -> None:
    try:
        entity = parse_token("/".join(chunks))
    except MalformedToken:
        return
    assert parse_token(build_token(entity)) == entity


# -- QoS -------------------------------------------------------------------------------------


def test_defaults_encode_empty() -> None:
    assert encode_qos(DEFAULT_QOS) == "::,:,:,:,,"
    assert decode_qos("::,:,:,:,,") == DEFAULT_QOS


def test_liveliness_utils_hpp_example_decodes() -> None:
    # Reliable, volatile, keep_last 10, deadline 0s0ns, lifespan 60s3000ns, automatic,
    # lease 0s0ns, written with every number present.
    qos = decode_qos("1:2:1,10:0,0:60,3000:1,0,0")
    assert qos == Qos(depth=10, deadline=(0, 0), lifespan=(60, 3000), liveliness_lease=(0, 0))
    assert encode_qos(qos) == "::,10:0,0:60,3000:,0,0"


def test_every_field_round_trips() -> None:
    qos = Qos(Reliability.BEST_EFFORT, Durability.TRANSIENT_LOCAL, History.KEEP_ALL, 1000,
              (5, 0), (INFINITE[0], 3), Liveliness.MANUAL_BY_TOPIC, (2, 500_000_000))
    text = encode_qos(qos)
    assert text == "2:1:2,1000:5,0:,3:3,2,500000000"
    assert decode_qos(text) == qos


def test_resolve_qos_is_rmw_zenohs_best_available_qos() -> None:
    unset = Qos(Reliability.SYSTEM_DEFAULT, Durability.SYSTEM_DEFAULT, History.SYSTEM_DEFAULT,
                0, (0, 0), (0, 0), Liveliness.SYSTEM_DEFAULT, (0, 0))
    assert resolve_qos(unset) == DEFAULT_QOS
    assert resolve_qos(ROVER_LIDAR_PUB.qos or DEFAULT_QOS) == ROVER_LIDAR_PUB.qos
    with pytest.raises(ValueError):
        resolve_qos(Qos(durability=Durability.UNKNOWN))


def test_publisher_options_follow_rmw_publisher_data() -> None:
    default = publisher_options(DEFAULT_QOS)
    assert (default.reliability, default.congestion_control, default.priority) == \
        ("reliable", "drop", 5)
    assert (default.cache_max_samples, default.publisher_detection, default.heartbeat_ms) == \
        (None, False, None)
    assert publisher_options(Qos(history=History.KEEP_ALL)).congestion_control == "block"
    best_effort = publisher_options(Qos(Reliability.BEST_EFFORT, history=History.KEEP_ALL))
    assert (best_effort.reliability, best_effort.congestion_control) == ("best_effort", "drop")
    tf_static = publisher_options(Qos(durability=Durability.TRANSIENT_LOCAL, depth=1))
    assert (tf_static.cache_max_samples, tf_static.publisher_detection, tf_static.heartbeat_ms) \
        == (1, True, 500)
    assert publisher_options(Qos(Reliability.BEST_EFFORT, Durability.TRANSIENT_LOCAL)) \
        .heartbeat_ms is None
    assert publisher_options(Qos(Reliability.SYSTEM_DEFAULT)).reliability == "reliable"


# -- attachments -----------------------------------------------------------------------------

GID = bytes(range(16))


def test_attachment_layout_is_design_docs() -> None:
    # design.md "Publishers": int64 LE sequence number, int64 LE ns timestamp, 1 length byte, GID.
    data = build_attachment(5, 1_700_000_000_123_456_789, GID)
    assert data == struct.pack("<qq", 5, 1_700_000_000_123_456_789) + b"\x10" + GID
    assert parse_attachment(data) == Attachment(5, 1_700_000_000_123_456_789, GID)


def test_attachment_is_zenoh_serializer_output() -> None:
    expected = zext.z_serialize((zext.Int64(42), zext.Int64(-1), GID)).to_bytes()
    assert build_attachment(42, -1, GID) == expected
    extremes = (-(2**63), 2**63 - 1)
    assert parse_attachment(build_attachment(*extremes, GID)) == Attachment(*extremes, GID)


def test_jazzy_labelled_attachment_parses() -> None:
    # rmw_zenoh 0.2.3 and before (issue ros2/rmw_zenoh#600): each field after its name.
    legacy = zext.z_serialize(("sequence_number", zext.Int64(9), "source_timestamp",
                               zext.Int64(123), "source_gid", GID)).to_bytes()
    assert len(legacy) == 77
    assert parse_attachment(legacy) == Attachment(9, 123, GID)


@pytest.mark.parametrize("data", [
    b"", b"\x00" * 32, b"\x00" * 34, build_attachment(1, 2, GID)[:-1],
    build_attachment(1, 2, GID) + b"\x00",
    build_attachment(1, 2, GID)[:16] + b"\x11" + GID,  # a GID length of 17
    build_attachment(1, 2, GID)[:16] + b"\x18" + GID,  # Humble's 24-byte GID length
    zext.z_serialize(("sequence_number", zext.Int64(9), "source_timestamp", zext.Int64(1),
                      "source_guid", GID)).to_bytes(),
    bytes(range(77)),
])
def test_malformed_attachments_raise(data: bytes) -> None:
    with pytest.raises(MalformedAttachment):
        parse_attachment(data)


@given(st.binary(max_size=100))
def test_parse_attachment_on_any_bytes(data: bytes) -> None:
    with contextlib.suppress(MalformedAttachment):
        parse_attachment(data)


@pytest.mark.parametrize(("seq", "stamp", "gid"), [
    (2**63, 0, GID), (0, -(2**63) - 1, GID), (0, 0, GID[:15]), (0, 0, GID + b"\x00")])
def test_build_attachment_refuses_what_does_not_fit(seq: int, stamp: int, gid: bytes) -> None:
    with pytest.raises(ValueError):
        build_attachment(seq, stamp, gid)


# -- transient local history, through zenoh's own AdvancedPublisher ----------------------------


@pytest.fixture
def session() -> Iterator[zenoh.Session]:
    config = zenoh.Config()
    config.insert_json5("scouting/multicast/enabled", "false")
    config.insert_json5("timestamping/enabled", "true")  # as rmw_zenoh's session config
    opened = zenoh.open(config)
    yield opened
    opened.close()


def test_late_joiner_selector_gets_an_advanced_publishers_cache(session: zenoh.Session) -> None:
    key = topic_key(0, "/tf_static", "tf2_msgs/msg/TFMessage", "RIHS01_" + "1" * 64)
    assert late_joiner_selector(key, 1) == f"{key}/@adv/pub/**?_max=1"
    # As rmw_publisher_data.cpp declares a RELIABLE + TRANSIENT_LOCAL publisher of depth 1.
    publisher = zext.declare_advanced_publisher(
        session, key, cache=zext.CacheConfig(max_samples=1), publisher_detection=True,
        sample_miss_detection=zext.MissDetectionConfig(heartbeat=None, sporadic_heartbeat=0.5))
    publisher.put(b"old", attachment=build_attachment(1, 10, GID))
    publisher.put(b"\x00\x01\x00\x00", attachment=build_attachment(2, 20, GID))
    time.sleep(0.2)
    tokens = [str(reply.ok.key_expr) for reply in session.liveliness().get(f"{key}/@adv/**")
              if reply.ok]
    assert len(tokens) == 1 and tokens[0].startswith(f"{key}/@adv/pub/")
    assert tokens[0].endswith("/_")
    for wildcard in (key, topic_key(0, "/tf_static", "*", "*")):
        replies = [reply.ok for reply in session.get(
            late_joiner_selector(wildcard, 1), accept_replies=zenoh.ReplyKeyExpr.ANY,
            timeout=2.0) if reply.ok]
        assert [(str(s.key_expr), s.payload.to_bytes()) for s in replies] == \
            [(key, b"\x00\x01\x00\x00")]
        assert replies[0].attachment is not None
        assert parse_attachment(replies[0].attachment.to_bytes()) == Attachment(2, 20, GID)
