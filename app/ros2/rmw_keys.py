"""rmw_zenoh's wire format: data keys, liveliness tokens, QoS strings and sample attachments.

Pure, no zenoh session. Each format names the rmw_zenoh_cpp file it comes from (in
``src/detail/``); RMW_ZENOH.md beside this file has the commits read and the branch differences.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass, replace
from enum import IntEnum, StrEnum
from typing import TypeVar

ADMIN_SPACE = "@ros2_lv"  # liveliness_utils.cpp
GID_SIZE = 16  # rmw/types.h RMW_GID_STORAGE_SIZE, Jazzy on
INFINITE = (9223372036, 854775807)  # rmw/time.h RMW_DURATION_INFINITE (sec, nsec)
_U64_MAX = 2**64 - 1
_I64 = range(-(2**63), 2**63)
_TYPE_HASH = re.compile(r"RIHS\d\d_[0-9a-f]{64}")  # rosidl_runtime_c type_hash.c
_FULL_NAME = re.compile(r"(/[A-Za-z0-9_]+)+")
_ROS_TYPE = re.compile(r"([A-Za-z_]\w*)/([A-Za-z_]\w*)/([A-Za-z_]\w*)", re.ASCII)
_MANGLE, _DEMANGLE = str.maketrans("/", "%"), str.maketrans("%", "/")  # mangle_name()
_ZID = re.compile(r"[0-9a-f]{1,32}")  # a zenoh id as zenoh prints it: hex, no leading zeros


class MalformedKey(ValueError):
    """A data key expression that is not ``<domain>/<name>/<type>/<hash>``."""


class MalformedToken(ValueError):
    """A liveliness key expression that is not an rmw_zenoh token."""


class MalformedAttachment(ValueError):
    """Sample attachment bytes in neither of rmw_zenoh's layouts."""


# rmw/types.h values; the members are exactly those liveliness_utils.cpp's str_to_qos_* maps
# take (not reliability/durability BEST_AVAILABLE, 4, nor liveliness MANUAL_BY_NODE, 2).
Reliability = IntEnum("Reliability", "SYSTEM_DEFAULT RELIABLE BEST_EFFORT UNKNOWN", start=0)
Durability = IntEnum("Durability", "SYSTEM_DEFAULT TRANSIENT_LOCAL VOLATILE UNKNOWN", start=0)
History = IntEnum("History", "SYSTEM_DEFAULT KEEP_LAST KEEP_ALL UNKNOWN", start=0)
Liveliness = IntEnum("Liveliness", {"SYSTEM_DEFAULT": 0, "AUTOMATIC": 1, "MANUAL_BY_TOPIC": 3,
                                    "UNKNOWN": 4, "BEST_AVAILABLE": 5})
_Policy = TypeVar("_Policy", bound=IntEnum)


@dataclass(frozen=True)
class Qos:
    """A QoS profile. The defaults are rmw_zenoh's (qos.cpp); a token leaves them empty."""

    reliability: Reliability = Reliability.RELIABLE
    durability: Durability = Durability.VOLATILE
    history: History = History.KEEP_LAST
    depth: int = 42
    deadline: tuple[int, int] = INFINITE
    lifespan: tuple[int, int] = INFINITE
    liveliness: Liveliness = Liveliness.AUTOMATIC
    liveliness_lease: tuple[int, int] = INFINITE

    @property
    def transient_local(self) -> bool:
        return self.durability == Durability.TRANSIENT_LOCAL


DEFAULT_QOS = Qos()


def resolve_qos(qos: Qos) -> Qos:
    """The profile an rmw_zenoh endpoint advertises and acts on (qos.cpp ``best_available_qos``):
    SYSTEM_DEFAULT, depth 0 and unspecified (0, 0) durations become rmw_zenoh's defaults."""
    unknown = (Reliability.UNKNOWN, Durability.UNKNOWN, History.UNKNOWN, Liveliness.UNKNOWN)
    if any(value == flag for value, flag in zip(
            (qos.reliability, qos.durability, qos.history, qos.liveliness), unknown, strict=True)):
        raise ValueError(f"rmw_zenoh refuses UNKNOWN QoS policies: {qos}")
    pairs = zip(vars(qos).values(), vars(DEFAULT_QOS).values(), strict=True)
    return Qos(*(default if value in (0, (0, 0)) else value for value, default in pairs))


def encode_qos(qos: Qos) -> str:
    """``rel:dur:hist,depth:dl_s,dl_ns:ls_s,ls_ns:live,lease_s,lease_ns``, a number left empty
    when it equals rmw_zenoh's default (liveliness_utils.cpp ``qos_to_keyexpr``)."""
    d = DEFAULT_QOS

    def num(value: int, default: int) -> str:
        return "" if value == default else str(int(value))

    def span(value: tuple[int, int], default: tuple[int, int]) -> str:
        return f"{num(value[0], default[0])},{num(value[1], default[1])}"

    return (f"{num(qos.reliability, d.reliability)}:{num(qos.durability, d.durability)}:"
            f"{num(qos.history, d.history)},{num(qos.depth, d.depth)}:"
            f"{span(qos.deadline, d.deadline)}:{span(qos.lifespan, d.lifespan)}:"
            f"{num(qos.liveliness, d.liveliness)},{span(qos.liveliness_lease, d.liveliness_lease)}")


def decode_qos(text: str) -> Qos:
    """The inverse of :func:`encode_qos` (``keyexpr_to_qos``); stricter than the C++, which
    ignores extra ``:``/``,`` components and lets strtoul take signs and spaces."""
    parts = text.split(":")
    fields = [part.split(",") for part in parts]
    if [len(field) for field in fields] != [1, 1, 2, 2, 2, 3]:
        raise MalformedToken(f"QoS {text[:80]!r} is not r:d:h,n:s,n:s,n:l,s,n")
    (rel,), (dur,), history, deadline, lifespan, live = fields
    d = DEFAULT_QOS

    def num(item: str, default: int) -> int:
        return default if item == "" else _unsigned(item, "QoS number", MalformedToken)

    def policy(kind: type[_Policy], item: str, default: _Policy) -> _Policy:
        try:
            return kind(num(item, default))
        except ValueError:
            raise MalformedToken(f"QoS {text[:80]!r}: {item!r} is no {kind.__name__}") from None

    return Qos(
        policy(Reliability, rel, d.reliability), policy(Durability, dur, d.durability),
        policy(History, history[0], d.history), num(history[1], d.depth),
        (num(deadline[0], d.deadline[0]), num(deadline[1], d.deadline[1])),
        (num(lifespan[0], d.lifespan[0]), num(lifespan[1], d.lifespan[1])),
        policy(Liveliness, live[0], d.liveliness),
        (num(live[1], d.liveliness_lease[0]), num(live[2], d.liveliness_lease[1])))


def dds_type_name(ros_type: str) -> str:
    """``geometry_msgs/msg/Twist`` -> ``geometry_msgs::msg::dds_::Twist_``, the name in keys and
    tokens (type_support_common.cpp ``_create_type_name``). A service's is its request type's
    without ``Request_``: ``example_interfaces::srv::dds_::AddTwoInts_`` (rmw_client_data.cpp)."""
    match = _ROS_TYPE.fullmatch(ros_type)
    if match is None:
        raise ValueError(f"not a ROS type name (package/msg/Name): {ros_type!r}")
    return "{}::{}::dds_::{}_".format(*match.groups())


def ros_type_name(dds_type: str) -> str:
    """The inverse of :func:`dds_type_name`; a name that is not a ROS one comes back unchanged,
    as rmw_zenoh's graph reports it (graph_cache.cpp ``_demangle_if_ros_type``)."""
    position = dds_type.find("dds_::")
    if not dds_type.endswith("_") or position < 0:
        return dds_type
    return dds_type[:position].replace("::", "/") + dds_type[position + len("dds_::"):-1]


@dataclass(frozen=True)
class TopicKey:
    domain: int
    name: str  # fully qualified: /rover_1/cmd_vel
    type_name: str  # geometry_msgs/msg/Twist
    type_hash: str  # RIHS01_<64 hex>


def topic_key(domain: int, name: str, ros_type: str, type_hash: str) -> str:
    """``<domain>/<name less its leading '/'>/<dds type>/<type hash>``: the key of an rmw_zenoh
    publisher, subscription, service or client (liveliness_utils.cpp ``TopicInfo``). The name's
    inner ``/`` stay. ``ros_type`` and ``type_hash`` may be ``*``, to subscribe to any."""
    if domain < 0 or not _FULL_NAME.fullmatch(name):
        raise ValueError(f"not a domain id and a fully qualified name: {domain}, {name!r}")
    if type_hash != "*" and not _TYPE_HASH.fullmatch(type_hash):
        raise ValueError(f"not a RIHS type hash: {type_hash!r}")
    dds_type = "*" if ros_type == "*" else dds_type_name(ros_type)
    return f"{domain}/{name[1:]}/{dds_type}/{type_hash}"


def parse_topic_key(key: str) -> TopicKey:
    chunks = key.split("/")
    ros_type = ros_type_name(chunks[-2]) if len(chunks) >= 4 else ""
    name = "/" + "/".join(chunks[1:-2])
    if not (_ROS_TYPE.fullmatch(ros_type) and dds_type_name(ros_type) == chunks[-2]
            and _FULL_NAME.fullmatch(name) and _TYPE_HASH.fullmatch(chunks[-1])):
        raise MalformedKey(f"not an rmw_zenoh data key: {key[:120]!r}")
    return TopicKey(_unsigned(chunks[0], "domain id", MalformedKey), name, ros_type, chunks[-1])


def late_joiner_selector(key: str, depth: int) -> str:
    """The history query of a TRANSIENT_LOCAL subscription's AdvancedSubscriber (zenoh-ext
    advanced_subscriber.rs). Replies come on the data key itself: accept any reply key."""
    return f"{key}/@adv/pub/**?_max={depth}"


def graph_key(domain: int) -> str:
    """What rmw_zenoh queries and subscribes to for the graph (``subscription_token``)."""
    return f"{ADMIN_SPACE}/{domain}/**"


class EntityKind(StrEnum):
    NODE = "NN"
    PUBLISHER = "MP"
    SUBSCRIPTION = "MS"
    SERVICE = "SS"
    CLIENT = "SC"


_KINDS = {kind.value: kind for kind in EntityKind}


@dataclass(frozen=True)
class Entity:
    """A liveliness token, names demangled; a node's has no topic fields (empty, as no chunk of a
    token can be). ``type_name`` is the ROS name when the wire name is a ROS one (as rmw_zenoh's
    graph reports it), else the wire name."""

    domain: int
    zid: str  # the zenoh session id
    node_id: int
    entity_id: int  # a node's token repeats its node id
    kind: EntityKind
    enclave: str  # "/" when none
    namespace: str  # "/" for the root namespace
    node_name: str
    topic: str = ""  # fully qualified topic or service name
    type_name: str = ""
    type_hash: str = ""
    qos: Qos | None = None
    backends: str = ""  # Rolling: the raw 14th chunk of rosidl::Buffer-aware endpoints


def build_token(entity: Entity) -> str:
    """The token rmw_zenoh declares for ``entity`` (liveliness_utils.cpp ``Entity::Entity``),
    each ``/`` of a name made ``%``. ValueError for an entity that would not parse back."""
    names = [entity.enclave, entity.namespace, entity.node_name]
    if entity.kind is not EntityKind.NODE:
        type_name = entity.type_name
        wire_type = dds_type_name(type_name) if _ROS_TYPE.fullmatch(type_name) else type_name
        names += [entity.topic, wire_type, entity.type_hash]
    chunks = [ADMIN_SPACE, str(entity.domain), entity.zid, str(entity.node_id),
              str(entity.entity_id), entity.kind.value, *(n.translate(_MANGLE) for n in names)]
    if entity.kind is not EntityKind.NODE:
        chunks.append(encode_qos(entity.qos) if entity.qos else "")
        chunks += [entity.backends] if entity.backends else []
    key = "/".join(chunks)
    try:
        if parse_token(key) == entity:
            return key
        problem = "a name holds '%', or a field does not belong to its kind"
    except MalformedToken as error:
        problem = str(error)
    raise ValueError(f"no rmw_zenoh token for {entity}: {problem}")


def parse_token(key: str) -> Entity:
    """An rmw_zenoh liveliness token (``Entity::make(keyexpr)``); raises only MalformedToken.
    Its chunks are counted exactly (9 for a node, 13, or 14 on Rolling, for the others) where
    the C++ ignores extra ones."""
    chunks = key.split("/")
    shown = f"{key[:120]!r}{'...' if len(key) > 120 else ''}"
    if chunks[0] != ADMIN_SPACE:
        raise MalformedToken(f"not an {ADMIN_SPACE} token: {shown}")
    if "" in chunks:
        raise MalformedToken(f"token with an empty chunk: {shown}")
    kind = _KINDS.get(chunks[5]) if len(chunks) >= 9 else None
    if kind is None:
        raise MalformedToken(f"token without a node's 9 chunks and a known entity kind: {shown}")
    if len(chunks) not in ((9,) if kind is EntityKind.NODE else (13, 14)):
        raise MalformedToken(f"{kind.name} token with {len(chunks)} chunks: {shown}")
    if not _ZID.fullmatch(chunks[2]):
        raise MalformedToken(f"zenoh id {chunks[2][:40]!r} is not hex: {shown}")
    names = [chunk.translate(_DEMANGLE) for chunk in chunks[6:12]]
    node = Entity(_unsigned(chunks[1], "domain id", MalformedToken), chunks[2],
                  _unsigned(chunks[3], "node id", MalformedToken),
                  _unsigned(chunks[4], "entity id", MalformedToken), kind,
                  names[0], names[1], names[2])
    if kind is EntityKind.NODE:
        return node
    return replace(node, topic=names[3], type_name=ros_type_name(names[4]), type_hash=names[5],
                   qos=decode_qos(chunks[12]), backends=chunks[13] if len(chunks) == 14 else "")


@dataclass(frozen=True)
class Attachment:
    sequence_number: int  # per publisher or client, from 1
    source_timestamp: int  # ns since the UNIX epoch (system clock)
    source_gid: bytes  # the sender's GID: XXH3-128 of its token (RMW_ZENOH.md)


# attachment_helpers.cpp, zenoh-ext serializer: int64 LE, int64 LE, the GID as a sequence (LEB128
# length, one byte for 16, then the bytes): 33 bytes. Jazzy up to 0.2.3 put a string (LEB128
# length, UTF-8) naming each field before it: 77 bytes.
_POSITIONAL = struct.Struct("<qqB16s")
_LABELLED = struct.Struct("<16sq17sq12s16s")
_LABELS = (b"\x0fsequence_number", b"\x10source_timestamp", b"\x0asource_gid\x10")


def build_attachment(seq: int, timestamp_ns: int, gid: bytes) -> bytes:
    """The attachment of every publication, request and reply (Jazzy 0.2.4, Kilted, Rolling)."""
    if seq not in _I64 or timestamp_ns not in _I64 or len(gid) != GID_SIZE:
        raise ValueError(f"need int64 numbers and a {GID_SIZE}-byte GID: {seq}, {timestamp_ns}")
    return _POSITIONAL.pack(seq, timestamp_ns, GID_SIZE, bytes(gid))


def parse_attachment(data: bytes) -> Attachment:
    """Either layout: the current one or Jazzy's labelled one (rmw_zenoh 0.2.3 and before)."""
    if len(data) == _LABELLED.size:
        head, seq, middle, stamp, tail, gid = _LABELLED.unpack(data)
        if (head, middle, tail) == _LABELS:
            return Attachment(seq, stamp, gid)
    if len(data) == _POSITIONAL.size and data[16] == GID_SIZE:
        seq, stamp, _, gid = _POSITIONAL.unpack(data)
        return Attachment(seq, stamp, gid)
    raise MalformedAttachment(f"{len(data)} bytes, no rmw_zenoh attachment: {bytes(data[:40])!r}")


@dataclass(frozen=True)
class PublisherOptions:
    """How an rmw_zenoh publisher declares itself (rmw_publisher_data.cpp), as plain values."""

    reliability: str  # "reliable" | "best_effort"
    congestion_control: str  # "drop" | "block"
    priority: int  # zenoh Priority: rmw_zenoh never sets it, so DATA (5)
    express: bool  # never set
    cache_max_samples: int | None  # TRANSIENT_LOCAL: an AdvancedPublisher cache of `depth`
    publisher_detection: bool  # TRANSIENT_LOCAL: a token <key>/@adv/pub/<zid>/<eid|uhlc>/_
    heartbeat_ms: int | None  # RELIABLE + TRANSIENT_LOCAL: sporadic sample-miss heartbeat


def publisher_options(qos: Qos) -> PublisherOptions:
    q = resolve_qos(qos)
    reliable = q.reliability == Reliability.RELIABLE
    transient = q.durability == Durability.TRANSIENT_LOCAL
    return PublisherOptions(
        "reliable" if reliable else "best_effort",
        "block" if reliable and q.history == History.KEEP_ALL else "drop", 5, False,
        q.depth if transient else None, transient, 500 if transient and reliable else None)


def _unsigned(text: str, what: str, error: type[ValueError]) -> int:
    # Length first: int() refuses strings of over 4300 digits.
    if not (text.isascii() and text.isdigit() and len(text) <= 20) or int(text) > _U64_MAX:
        raise error(f"{what} {text[:40]!r} is not an unsigned 64-bit decimal")
    return int(text)
