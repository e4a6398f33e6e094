"""A transform tree from every transform source, looked up at a message's time.

Frames of different robots never mix: each robot's frames are namespaced ``<robotId>/<frame>``
(two robots both have a ``base_link``). Only the earth frame ``enu`` (the local east-north-up
plane around the scene's datum) is shared.
"""

from __future__ import annotations

import math
import threading
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from app.convert.foxglove import rotation_matrix
from app.convert.models import Quat, Transform

HISTORY = 200  # transforms kept per edge
TOLERANCE_S = 0.25  # a transform this close to the asked time counts as "at" it
EARTH = "enu"


class FrameError(LookupError):
    """A frame that cannot be placed in the fixed frame; the message says why."""


@dataclass(frozen=True)
class Lookup:
    matrix: np.ndarray  # 4x4: points in the source frame -> the target frame
    exact: bool  # False: no transform near the asked time, the latest was used


def namespaced(robot_id: str, frame: str) -> str:
    if not frame or frame == EARTH or "/" in frame:
        return frame
    return f"{robot_id}/{frame}"


def matrix_of(translation: Sequence[float], rotation: Sequence[float]) -> np.ndarray:
    """4x4 of a translation and a quaternion (x, y, z, w)."""
    x, y, z, w = rotation
    norm = math.sqrt(x * x + y * y + z * z + w * w)
    if not math.isfinite(norm) or norm < 1e-9:
        raise ValueError("rotation is not a quaternion")
    m = np.eye(4)
    m[:3, :3] = rotation_matrix((x / norm, y / norm, z / norm, w / norm))
    m[:3, 3] = translation
    return m


def quaternion_of(rotation: np.ndarray) -> Quat:
    """The unit quaternion (x, y, z, w) of a 3x3 rotation matrix."""
    m = rotation
    trace = m[0, 0] + m[1, 1] + m[2, 2]
    if trace > 0:
        s = 2 * math.sqrt(trace + 1)
        q = ((m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s, s / 4)
    elif m[0, 0] > m[1, 1] and m[0, 0] > m[2, 2]:
        s = 2 * math.sqrt(1 + m[0, 0] - m[1, 1] - m[2, 2])
        q = (s / 4, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s, (m[2, 1] - m[1, 2]) / s)
    elif m[1, 1] > m[2, 2]:
        s = 2 * math.sqrt(1 + m[1, 1] - m[0, 0] - m[2, 2])
        q = ((m[0, 1] + m[1, 0]) / s, s / 4, (m[1, 2] + m[2, 1]) / s, (m[0, 2] - m[2, 0]) / s)
    else:
        s = 2 * math.sqrt(1 + m[2, 2] - m[0, 0] - m[1, 1])
        q = ((m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, s / 4, (m[1, 0] - m[0, 1]) / s)
    return (float(q[0]), float(q[1]), float(q[2]), float(q[3]))


class TransformTree:
    def __init__(self) -> None:
        # child -> (parent, [(stamp, matrix child->parent), ...] newest last)
        self._edges: dict[str, tuple[str, deque[tuple[float, np.ndarray]]]] = {}
        self._lock = threading.Lock()
        self.version = 0

    def add(self, transform: Transform, robot_id: str = "") -> None:
        parent = namespaced(robot_id, transform.parent)
        child = namespaced(robot_id, transform.child)
        if not parent or not child or parent == child:
            raise ValueError(f"transform from {parent!r} to {child!r}")
        matrix = matrix_of(transform.translation, transform.rotation)
        if not np.isfinite(matrix).all():
            raise ValueError("transform with a non-finite translation")
        with self._lock:
            edge = self._edges.get(child)
            if edge is None or edge[0] != parent:  # new, or re-parented: start afresh
                edge = (parent, deque(maxlen=HISTORY))
                self._edges[child] = edge
            history = edge[1]
            if transform.stamp <= 0 or not history or transform.stamp >= history[-1][0]:
                history.append((transform.stamp, matrix))
            else:  # late: keep the history in time order
                items = sorted([*history, (transform.stamp, matrix)], key=lambda h: h[0])
                history.clear()
                history.extend(items[-HISTORY:])
            self.version += 1

    def frames(self) -> list[str]:
        with self._lock:
            names = set(self._edges) | {parent for parent, _ in self._edges.values()}
        return sorted(names)

    def lookup(self, target: str, source: str, stamp: float = 0.0) -> Lookup:
        """The matrix taking points in ``source`` to ``target`` at ``stamp`` (0: latest)."""
        if source == target:
            return Lookup(np.eye(4), True)
        with self._lock:
            up_source = self._chain(source)
            up_target = self._chain(target)
            common = next((f for f, _ in up_source if f in {g for g, _ in up_target}), None)
            if common is None:
                raise FrameError(_why(source, target, up_source, up_target))
            to_common, source_exact = self._up_to(common, up_source, stamp)
            target_to_common, target_exact = self._up_to(common, up_target, stamp)
        return Lookup(np.linalg.inv(target_to_common) @ to_common,
                      source_exact and target_exact)

    def _up_to(self, common: str, chain: list[tuple[str, int]],
               stamp: float) -> tuple[np.ndarray, bool]:
        """The matrix from the chain's first frame to ``common``, and whether every edge
        had a transform near ``stamp``."""
        matrix, exact = np.eye(4), True
        for frame, _ in chain:
            if frame == common:
                break
            m, ok = self._at(frame, stamp)
            matrix = m @ matrix
            exact &= ok
        return matrix, exact

    def _chain(self, frame: str) -> list[tuple[str, int]]:
        """The frame and its ancestors, nearest first (stops at a loop)."""
        chain: list[tuple[str, int]] = []
        seen: set[str] = set()
        while frame not in seen:
            seen.add(frame)
            chain.append((frame, len(chain)))
            edge = self._edges.get(frame)
            if edge is None:
                break
            frame = edge[0]
        return chain

    def _at(self, child: str, stamp: float) -> tuple[np.ndarray, bool]:
        history = self._edges[child][1]
        static = history[-1][0] <= 0
        if stamp <= 0 or static:
            return history[-1][1], True
        best = min(history, key=lambda h: abs(h[0] - stamp))
        if abs(best[0] - stamp) <= TOLERANCE_S:
            return best[1], True
        return history[-1][1], False


def _why(source: str, target: str, up_source: list[tuple[str, int]],
         up_target: list[tuple[str, int]]) -> str:
    root_s, root_t = up_source[-1][0], up_target[-1][0]
    if len(up_source) == 1 and root_s != target:
        return f"no transform reaches frame {source!r}"
    return f"frame {source!r} (tree of {root_s!r}) is not connected to {target!r} " \
           f"(tree of {root_t!r})"
