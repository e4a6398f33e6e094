"""One ROS 2 topic's messages, as the command line's ``echo /rover_1/odom`` prints them: the
graph says the topic's type and domain, its samples are decoded from CDR."""

from __future__ import annotations

import contextlib
import queue
import time
from types import TracebackType
from typing import Any

import zenoh

from app.bus.session import BusSession
from app.ros2.cdr import RosTypes
from app.ros2.definitions import definition_folders
from app.ros2.graph import RosGraph, RosTopic, robots_of
from app.ros2.plain import plain_ros
from app.ros2.rmw_keys import ADMIN_SPACE, MalformedToken, parse_token, topic_key

GRAPH_WAIT_S = 5.0  # how long the graph may take to name the topic


class RosEcho:
    def __init__(self, bus: BusSession, name: str) -> None:
        self._bus = bus
        self.name = name
        self._graph = RosGraph()
        self._types = RosTypes(definition_folders())
        self._samples: queue.Queue[Any] = queue.Queue(maxsize=64)
        self._tokens = bus.declare_liveliness_subscriber(f"{ADMIN_SPACE}/**", self._on_token)
        self._topic: RosTopic | None = None
        self._subscriber: Any = None

    def __enter__(self) -> RosEcho:
        return self

    def __exit__(self, *_: type[BaseException] | BaseException | TracebackType | None) -> None:
        for handle in (self._subscriber, self._tokens):
            if handle is not None:
                self._bus.release(handle)

    def next(self, timeout_s: float | None, max_list: int | None) -> dict[str, Any]:
        """The next message as plain values, with its type, time and size; DecodeError for a
        sample that does not decode, TimeoutError when none comes in ``timeout_s``."""
        topic = self._topic or self._find(GRAPH_WAIT_S if timeout_s is None
                                          else min(GRAPH_WAIT_S, timeout_s))
        try:
            sample = self._samples.get(timeout=timeout_s)
        except queue.Empty:
            raise TimeoutError(f"no sample on {self.name} in {timeout_s:g} s") from None
        payload = sample.payload.to_bytes()
        self._types.check_hash(topic.type_name, str(sample.key_expr).rsplit("/", 1)[-1])
        message = self._types.decode(topic.type_name, payload)
        header = getattr(message, "header", None)
        stamp = header.stamp.sec + header.stamp.nanosec / 1e9 if header is not None \
            else time.time()
        return {"key": self.name, "type": topic.type_name, "time": stamp,
                "size": len(payload), "message": plain_ros(message, max_list)}

    def _find(self, wait_s: float) -> RosTopic:
        deadline = time.monotonic() + wait_s
        while True:
            topic = next((t for robot in robots_of(self._graph.entities()).values()
                          for t in robot.publishers if t.name == self.name), None)
            if topic is not None:
                break
            if time.monotonic() > deadline:
                raise TimeoutError(f"no ROS 2 publisher of {self.name} in {wait_s:g} s")
            time.sleep(0.05)
        self._topic = topic
        key = topic_key(topic.domain, topic.name, topic.type_name, "*")
        self._subscriber = self._bus.declare_subscriber(key, self._keep)
        return topic

    def _keep(self, sample: Any) -> None:
        with contextlib.suppress(queue.Full):  # the printer is behind: this one is dropped
            self._samples.put_nowait(sample)

    def _on_token(self, sample: Any) -> None:
        key = str(sample.key_expr)
        if sample.kind == zenoh.SampleKind.DELETE:
            self._graph.delete(key)
            return
        with contextlib.suppress(MalformedToken):  # not a topic this echo can name
            self._graph.put(key, parse_token(key))
