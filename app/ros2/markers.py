"""``visualization_msgs`` Marker and MarkerArray -> ``foxglove.SceneUpdate``, as Foxglove
reads RViz markers: an entity ``<ns>/<id>`` per marker, in its header's frame, with its
lifetime; DELETE and DELETEALL are deletions. Mesh markers become model primitives (shown
when the URL is one the scene can load)."""

from __future__ import annotations

import math
from typing import Any

# visualization_msgs/Marker type and action constants
ARROW, CUBE, SPHERE, CYLINDER, LINE_STRIP, LINE_LIST, CUBE_LIST, SPHERE_LIST, POINTS, \
    TEXT, MESH, TRIANGLES, ARROW_STRIP = range(13)
DELETE, DELETE_ALL = 2, 3


def marker_array(builder: Any, msg: Any) -> None:
    scene_update(builder, list(msg.markers))


def marker(builder: Any, msg: Any) -> None:
    scene_update(builder, [msg])


def scene_update(builder: Any, markers: list[Any]) -> None:
    shown = [m for m in markers if m.action not in (DELETE, DELETE_ALL)]
    gone = [m for m in markers if m.action in (DELETE, DELETE_ALL)]
    for deletion, m in zip(builder.init("deletions", len(gone)), gone, strict=True):
        _time(deletion.timestamp, m.header.stamp)
        deletion.type = "all" if m.action == DELETE_ALL else "matchingId"
        deletion.id = "" if m.action == DELETE_ALL else _entity_id(m)
    for entity, m in zip(builder.init("entities", len(shown)), shown, strict=True):
        _time(entity.timestamp, m.header.stamp)
        entity.frameId, entity.id = m.header.frame_id, _entity_id(m)
        entity.lifetime.sec, entity.lifetime.nsec = m.lifetime.sec, m.lifetime.nanosec
        entity.frameLocked = m.frame_locked
        _primitives(entity, m)


def _entity_id(m: Any) -> str:
    return f"{m.ns}/{m.id}"


def _primitives(entity: Any, m: Any) -> None:
    kind = m.type
    if kind == ARROW:
        _arrow(entity.init("arrows", 1)[0], m)
    elif kind in (CUBE, SPHERE, CYLINDER):
        item = entity.init({CUBE: "cubes", SPHERE: "spheres", CYLINDER: "cylinders"}[kind], 1)[0]
        _pose(item.pose, m.pose)
        _xyz(item.size, m.scale)
        _color(item.color, m.color)
        if kind == CYLINDER:
            item.bottomScale = item.topScale = 1.0
    elif kind in (LINE_STRIP, LINE_LIST, ARROW_STRIP):  # an arrow strip: its line
        line = entity.init("lines", 1)[0]
        line.type = "lineList" if kind == LINE_LIST else "lineStrip"
        _pose(line.pose, m.pose)
        line.thickness = m.scale.x
        _points(line, m)
    elif kind in (CUBE_LIST, SPHERE_LIST, POINTS):  # a point: a square of scale.x by .y
        _listed(entity, m, "spheres" if kind == SPHERE_LIST else "cubes")
    elif kind == TEXT:
        text = entity.init("texts", 1)[0]
        _pose(text.pose, m.pose)
        text.billboard, text.fontSize, text.text = True, m.scale.z, m.text
        _color(text.color, m.color)
    elif kind == MESH:
        model = entity.init("models", 1)[0]
        _pose(model.pose, m.pose)
        _xyz(model.scale, m.scale)
        _color(model.color, m.color)
        model.overrideColor = not m.mesh_use_embedded_materials
        model.url = m.mesh_resource
    elif kind == TRIANGLES:
        triangles = entity.init("triangles", 1)[0]
        _pose(triangles.pose, m.pose)
        _points(triangles, m)
    # a type newer than these: the entity is there, drawn as nothing


def _arrow(arrow: Any, m: Any) -> None:
    _color(arrow.color, m.color)
    if len(m.points) >= 2:  # from the first point to the second: scale is its widths
        start, end = m.points[0], m.points[1]
        d = (end.x - start.x, end.y - start.y, end.z - start.z)
        length = math.sqrt(sum(c * c for c in d))
        arrow.pose.position.x, arrow.pose.position.y, arrow.pose.position.z = \
            start.x, start.y, start.z
        _rotate_x_to(arrow.pose.orientation, d, length)
        head = min(m.scale.z, length) if m.scale.z > 0 else 0.23 * length
        arrow.shaftLength, arrow.headLength = length - head, head
        arrow.shaftDiameter, arrow.headDiameter = m.scale.x, m.scale.y
        return
    _pose(arrow.pose, m.pose)  # along the pose's x: scale is length, width, height
    arrow.shaftLength, arrow.headLength = 0.77 * m.scale.x, 0.23 * m.scale.x
    arrow.shaftDiameter, arrow.headDiameter = m.scale.y, m.scale.z


def _rotate_x_to(q: Any, d: tuple[float, float, float], length: float) -> None:
    """The rotation taking the x axis to direction ``d``."""
    if length <= 0:
        q.w = 1.0
        return
    x, y, z = (c / length for c in d)
    w = 1.0 + x  # the half-way quaternion: (1 + x·d, x × d)
    if w < 1e-9:  # opposite: half a turn about z
        q.z = 1.0
        return
    norm = math.sqrt(w * w + y * y + z * z)
    q.w, q.x, q.y, q.z = w / norm, 0.0, -z / norm, y / norm


def _listed(entity: Any, m: Any, kind: str) -> None:
    items = entity.init(kind, len(m.points))
    colors = list(m.colors)
    for index, (item, point) in enumerate(zip(items, m.points, strict=True)):
        _pose(item.pose, m.pose)
        item.pose.position.x += point.x  # in the marker's frame, about its pose
        item.pose.position.y += point.y
        item.pose.position.z += point.z
        _xyz(item.size, m.scale)
        _color(item.color, colors[index] if index < len(colors) else m.color)


def _points(primitive: Any, m: Any) -> None:
    for item, point in zip(primitive.init("points", len(m.points)), m.points, strict=True):
        item.x, item.y, item.z = point.x, point.y, point.z
    _color(primitive.color, m.color)
    if len(m.colors) == len(m.points):
        for item, color in zip(primitive.init("colors", len(m.colors)), m.colors,
                               strict=True):
            _color(item, color)


def _time(builder: Any, stamp: Any) -> None:
    builder.sec, builder.nsec = stamp.sec, stamp.nanosec


def _xyz(builder: Any, value: Any) -> None:
    builder.x, builder.y, builder.z = value.x, value.y, value.z


def _pose(builder: Any, pose: Any) -> None:
    _xyz(builder.position, pose.position)
    orientation = pose.orientation
    builder.orientation.x, builder.orientation.y = orientation.x, orientation.y
    builder.orientation.z, builder.orientation.w = orientation.z, orientation.w


def _color(builder: Any, color: Any) -> None:
    builder.r, builder.g, builder.b, builder.a = color.r, color.g, color.b, color.a
