"""One ROS 2 topic of a robot, heard on its rmw_zenoh key and said again, translated, under
the robot's fleet key.

The translated samples never leave the station: in the window they are handed to the
station's subscription within the process (no put, no copy taken off zenoh), on the command
line put on a session-local publisher; panels, recorders and the topics table take them as
any robot's. The ROS topic is heard only while some subscriber of the station wants its
fleet key (that publisher's matching status), so a ROS 2 camera costs nothing until a panel
shows it, as our own heavy topics do.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import zenoh
import zenoh.ext

from app.bus.session import BusSession
from app.codec.buffers import HeldBuffers, attachment_bytes
from app.codec.decode import encoding_for
from app.codec.errors import DecodeError, MalformedMessage
from app.ros2.cdr import RosTypes
from app.ros2.graph import RosTopic
from app.ros2.rmw_keys import MalformedAttachment, parse_attachment, topic_key
from app.ros2.translate import Translation, Untranslatable, translate

# A transient-local topic's history asked of its publishers when first heard (rmw_zenoh
# keeps `depth` samples; /tf_static keeps 1 per publisher)
LATE_JOINER_SAMPLES = 100


# Where a translated sample goes instead of a put, within the station's process: (fleet key,
# encoding, payload, attachment, the publisher's zenoh timestamp or None)
Deliver = Callable[[str, str, bytes, HeldBuffers | None, zenoh.Timestamp | None], None]


class InboundStream:
    """``count_error(fleet key, error)`` counts a sample that did not make it; ``wake()``
    asks the owner to call :meth:`update` (the demand for the key changed); ``deliver``,
    when given, takes the translated samples in place of the session-local publisher (whose
    matching status still says whether the key is wanted)."""

    def __init__(self, bus: BusSession, fleet_key: str, topic: RosTopic,
                 translation: Translation, types: RosTypes,
                 count_error: Callable[[str, DecodeError], None], wake: Callable[[], None],
                 deliver: Deliver | None = None) -> None:
        self.fleet_key = fleet_key
        self._deliver = deliver
        self.topic = topic
        self._bus = bus
        self._types = types
        self._count_error = count_error
        self._translation = translation
        self._lock = threading.Lock()
        self._subscriber: Any = None
        # zenoh refuses to undeclare the publisher while a put on it runs ("Already
        # borrowed"): puts and its undeclaring take turns, and none comes after it
        self._put_lock = threading.Lock()
        self._closed = False
        self._encoding = encoding_for(self._translation.type_name)
        self._publisher = bus.keep(bus.zenoh.declare_publisher(
            fleet_key, encoding=self._encoding,
            allowed_destination=zenoh.Locality.SESSION_LOCAL))
        self._matching = bus.keep(self._publisher.declare_matching_listener(
            lambda _status: wake()))

    def update(self) -> None:
        """Hears the ROS topic while its fleet key is wanted, and only then."""
        wanted = self._publisher.matching_status.matching
        dropped = None
        with self._lock:
            if wanted and self._subscriber is None:
                self._subscriber = self._subscribe()
            elif not wanted and self._subscriber is not None:
                dropped, self._subscriber = self._subscriber, None
        if dropped is not None:  # not under the lock: its callbacks in flight end first
            self._bus.release(dropped)

    def close(self) -> None:
        with self._lock:
            subscriber, self._subscriber = self._subscriber, None
        for handle in (subscriber, self._matching):
            if handle is not None:
                self._bus.release(handle)
        with self._put_lock:
            self._closed = True
            self._bus.release(self._publisher)

    def _subscribe(self) -> Any:
        topic = self.topic
        # any type hash: a sample of the wrong one is counted, not silently unheard
        key = topic_key(topic.domain, topic.name, topic.type_name, "*")
        if not topic.transient_local:
            return self._bus.declare_subscriber(key, self._receive)
        history = zenoh.ext.HistoryConfig(detect_late_publishers=True,
                                          max_samples=LATE_JOINER_SAMPLES)
        return self._bus.keep(zenoh.ext.declare_advanced_subscriber(
            self._bus.zenoh, key, self._receive, history=history))

    def _receive(self, sample: Any) -> None:
        try:
            payload = sample.payload.to_bytes()
            type_hash = str(sample.key_expr).rsplit("/", 1)[-1]
            self._types.check_hash(self.topic.type_name, type_hash)
            message = self._types.decode(self.topic.type_name, payload)
            try:
                translated = translate(self._translation, self.topic.type_name, message,
                                       self.topic.robot_id)
            except Untranslatable as exc:
                raise MalformedMessage(str(exc)) from None
            stamp = self._stamp(sample.attachment)
            with self._put_lock:
                for said, attachment in translated if not self._closed else ():
                    if self._deliver is not None:
                        self._deliver(self.fleet_key, self._encoding, said, attachment, stamp)
                    else:
                        self._publisher.put(said, attachment=attachment_bytes(attachment),
                                            timestamp=stamp)
        except DecodeError as exc:
            self._count_error(self.fleet_key, exc)
        except zenoh.ZError:
            pass  # the session closed under the put

    def _stamp(self, attachment: Any) -> zenoh.Timestamp | None:
        """The publisher's own time of the sample (its attachment), never in the future."""
        if attachment is None:
            return None
        try:
            sent_ns = parse_attachment(attachment.to_bytes()).source_timestamp
        except MalformedAttachment:
            return None
        return self._bus.timestamp(min(sent_ns / 1e9, time.time()))
