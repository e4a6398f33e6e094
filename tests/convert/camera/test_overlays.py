"""2D overlay messages through the real wire path: pycapnp builder -> bytes -> codec.decode ->
the ``camera.overlay`` converter -> ImageOverlay in image pixels (x right, y down)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from app.codec.decode import decode, encoding_for
from app.codec.registry import registry
from app.convert.camera.model import ImageOverlay, Shape
from app.convert.camera.overlays import LABEL_SIZE, label_color
from app.convert.registry import ConversionError, get_converter, scene_converter_for

NAN = float("nan")


def new(type_name: str, **fields):
    return registry().struct(type_name).new_message(**fields)


def overlay(message) -> ImageOverlay:
    type_name = registry().name_of(message.schema.node.id)
    decoded = decode(encoding_for(type_name), message.to_bytes())
    return get_converter("camera.overlay")(decoded)


def kinds(result: ImageOverlay) -> list[str]:
    return [s.kind for s in result.shapes]


def only(result: ImageOverlay, kind: str) -> Shape:
    found = [s for s in result.shapes if s.kind == kind]
    assert len(found) == 1, kinds(result)
    return found[0]


# -- isaac detections -------------------------------------------------------------------------
def detections(*items: tuple[str, float, tuple[float, float], tuple[float, float]]):
    message = new("isaac.Detections2Proto")
    predictions = message.init("predictions", len(items))
    boxes = message.init("boundingBoxes", len(items))
    for prediction, box, (label, score, (r0, c0), (r1, c1)) in zip(
            predictions, boxes, items, strict=True):
        prediction.label, prediction.confidence = label, score
        box.min.x, box.min.y = r0, c0
        box.max.x, box.max.y = r1, c1
    return message


def test_detection_rows_and_columns_become_a_box_in_x_right_y_down() -> None:
    result = overlay(detections(("person", 0.871, (30, 100), (50, 200))))
    assert kinds(result) == ["box", "text"]
    box, text = result.shapes
    np.testing.assert_array_equal(box.xy, [[100, 30], [200, 50]])
    assert text.text == "person 0.87"
    # The label sits on the box's top edge, above it.
    np.testing.assert_array_equal(text.xy, [[100, 30 - LABEL_SIZE]])
    assert box.color == text.color == label_color("person")
    assert result.stamp == 0.0 and result.frame_id == "" and result.dropped == 0


def test_detection_colours_follow_the_label() -> None:
    result = overlay(detections(("person", 0.9, (0, 0), (5, 5)), ("box", 0.9, (0, 0), (5, 5)),
                                ("person", 0.5, (9, 9), (20, 20))))
    boxes = [s for s in result.shapes if s.kind == "box"]
    assert boxes[0].color == boxes[2].color != boxes[1].color


def test_detection_with_swapped_corners_and_label_at_the_top_edge() -> None:
    result = overlay(detections(("pallet", 0.5, (40, 300), (4, 250))))
    box, text = result.shapes
    np.testing.assert_array_equal(box.xy, [[250, 4], [300, 40]])
    assert text.xy[0, 1] == 0.0  # kept inside the image


def test_non_finite_detection_is_dropped_and_counted() -> None:
    result = overlay(detections(("a", 0.9, (NAN, 1), (5, 5)), ("b", 0.9, (1, 1), (5, math.inf)),
                                ("c", 0.9, (1, 1), (5, 5))))
    assert kinds(result) == ["box", "text"] and result.dropped == 2
    assert result.shapes[1].text == "c 0.90"


def test_detections_without_predictions_draw_unlabelled_boxes() -> None:
    message = new("isaac.Detections2Proto")
    box = message.init("boundingBoxes", 1)[0]
    box.max.x, box.max.y = 8, 9
    assert kinds(overlay(message)) == ["box"]


def test_predictions_not_matching_boxes_are_refused() -> None:
    message = detections(("a", 0.9, (0, 0), (5, 5)))
    message.init("predictions", 2)
    with pytest.raises(ConversionError, match="2 predictions for 1 bounding boxes"):
        overlay(message)


# -- isaac skeletons --------------------------------------------------------------------------
def skeleton_list(joints: list[tuple[float, float, float]], edges: list[tuple[int, int]],
                  label: str = "person"):
    message = new("isaac.Skeleton2ListProto")
    skeleton = message.init("skeletons", 1)[0]
    skeleton.label.label, skeleton.label.confidence = label, 0.9
    skeleton.graph.nodeCount = len(joints)
    for edge, (source, target) in zip(skeleton.graph.init("edges", len(edges)), edges,
                                      strict=True):
        edge.source, edge.target = source, target
    for joint, (row, col, confidence) in zip(skeleton.init("joints", len(joints)), joints,
                                             strict=True):
        joint.position.x, joint.position.y = row, col
        joint.label.confidence = confidence
    return message


def test_skeleton_bones_and_joints_in_x_right_y_down() -> None:
    result = overlay(skeleton_list([(50, 120, 0.9), (30, 100, 0.9), (90, 110, 0.9)],
                                   [(0, 1), (0, 2)]))
    assert kinds(result) == ["line_list", "points", "text"]
    bones, joints, text = result.shapes
    np.testing.assert_array_equal(bones.xy, [[120, 50], [100, 30], [120, 50], [110, 90]])
    np.testing.assert_array_equal(joints.xy, [[120, 50], [100, 30], [110, 90]])
    assert text.text == "person 0.90"
    np.testing.assert_array_equal(text.xy, [[100, 30 - LABEL_SIZE]])  # above the top joint
    assert result.dropped == 0


def test_unseen_and_invalid_joints_and_their_bones_are_left_out() -> None:
    # joint 1 not seen (confidence 0), joint 2 NaN, edge to joint 7 does not exist
    result = overlay(skeleton_list(
        [(10, 100, 0.9), (50, 120, 0.0), (NAN, 110, 0.9), (60, 130, 0.8)],
        [(0, 1), (1, 2), (0, 3), (3, 7)]))
    bones, joints, _ = result.shapes
    np.testing.assert_array_equal(bones.xy, [[100, 10], [130, 60]])
    np.testing.assert_array_equal(joints.xy, [[100, 10], [130, 60]])
    assert result.dropped == 2  # the NaN joint and the edge to nowhere


def test_skeleton_without_confidences_draws_every_joint() -> None:
    result = overlay(skeleton_list([(10, 100, 0.0), (50, 120, 0.0)], [(0, 1)]))
    assert len(only(result, "points").xy) == 2 and len(only(result, "line_list").xy) == 2


# -- foxglove ImageAnnotations ----------------------------------------------------------------
def color(r: float, g: float, b: float, a: float = 1.0) -> dict[str, float]:
    return {"r": r, "g": g, "b": b, "a": a}


def annotations(points=(), circles=(), texts=()):
    message = new("foxglove.ImageAnnotations")
    for name, items in (("points", points), ("circles", circles), ("texts", texts)):
        message.init(name, len(items))
        for target, fields in zip(getattr(message, name), items, strict=True):
            for key, value in fields.items():
                if key == "points":
                    for p, (x, y) in zip(target.init("points", len(value)), value, strict=True):
                        p.x, p.y = x, y
                elif key == "outlineColors":
                    for c, rgba in zip(target.init("outlineColors", len(value)), value,
                                       strict=True):
                        c.r, c.g, c.b, c.a = rgba
                else:
                    setattr(target, key, value)
    return message


SQUARE = [(10.0, 20.0), (30.0, 20.0), (30.0, 40.0), (10.0, 40.0)]


@pytest.mark.parametrize(("kind", "expected"), [
    ("unknown", "points"), ("points", "points"), ("lineLoop", "line_loop"),
    ("lineStrip", "line_strip"), ("lineList", "line_list")])
def test_every_points_annotation_type(kind: str, expected: str) -> None:
    result = overlay(annotations(points=[{
        "type": kind, "points": SQUARE, "outlineColor": color(1, 0, 0), "thickness": 3.0,
        "timestamp": {"sec": 7, "nsec": 250_000_000}}]))
    shape = only(result, expected)
    np.testing.assert_array_equal(shape.xy, SQUARE)  # same origin as ours: no shift
    assert shape.color == (1, 0, 0, 1) and shape.thickness == 3.0 and shape.fill is None
    assert result.stamp == 7.25


def test_line_loop_with_fill_is_a_filled_polygon() -> None:
    result = overlay(annotations(points=[
        {"type": "lineLoop", "points": SQUARE, "fillColor": color(0, 0, 1, 0.4)},
        {"type": "lineLoop", "points": SQUARE, "fillColor": color(0, 0, 1, 0.0)}]))
    assert kinds(result) == ["polygon", "line_loop"]
    assert result.shapes[0].fill == (0, 0, 1, 0.4)


def test_per_point_and_per_segment_colours() -> None:
    red, green = (1.0, 0.0, 0.0, 1.0), (0.0, 1.0, 0.0, 1.0)
    result = overlay(annotations(points=[
        {"type": "points", "points": SQUARE, "outlineColors": [red, green, red, green]},
        {"type": "lineList", "points": SQUARE, "outlineColors": [red, green]},
        {"type": "lineStrip", "points": SQUARE, "outlineColors": [green],
         "outlineColor": color(0, 0, 1)}]))
    points, segments, strip = result.shapes
    np.testing.assert_array_equal(points.colors, [red, green, red, green])
    np.testing.assert_array_equal(segments.colors, [red, red, green, green])
    np.testing.assert_array_equal(strip.colors, [green, (0, 0, 1, 1), (0, 0, 1, 1),
                                                 (0, 0, 1, 1)])


def test_non_finite_points_are_dropped_and_counted() -> None:
    result = overlay(annotations(points=[
        {"type": "points", "points": [(1, 2), (NAN, 3), (4, math.inf), (5, 6)],
         "outlineColors": [(1, 0, 0, 1), (0, 1, 0, 1), (0, 0, 1, 1), (1, 1, 1, 1)]},
        {"type": "lineStrip", "points": [(1, 2), (NAN, 3), (5, 6)]},
        {"type": "lineList", "points": [(1, 2), (3, 4), (5, 6)]}]))
    points, pair = result.shapes
    np.testing.assert_array_equal(points.xy, [[1, 2], [5, 6]])
    np.testing.assert_array_equal(points.colors, [(1, 0, 0, 1), (1, 1, 1, 1)])
    np.testing.assert_array_equal(pair.xy, [[1, 2], [3, 4]])  # the odd last point left out
    assert result.dropped == 2 + 1 + 1


def test_circles() -> None:
    result = overlay(annotations(circles=[
        {"position": {"x": 50.5, "y": 60.0}, "diameter": 12.0, "thickness": 2.5,
         "outlineColor": color(1, 1, 0), "fillColor": color(0, 1, 0, 0.5)},
        {"position": {"x": NAN, "y": 1.0}, "diameter": 3.0}]))
    circle = only(result, "circle")
    np.testing.assert_array_equal(circle.xy, [[50.5, 60.0]])
    assert circle.size == 12.0 and circle.thickness == 2.5
    assert circle.color == (1, 1, 0, 1) and circle.fill == (0, 1, 0, 0.5)
    assert result.dropped == 1


def test_texts_move_from_bottom_left_to_top_left() -> None:
    result = overlay(annotations(texts=[
        {"position": {"x": 5.0, "y": 40.0}, "text": "hello", "fontSize": 16.0,
         "textColor": color(1, 1, 1), "backgroundColor": color(0, 0, 0, 0.5),
         "timestamp": {"sec": 3}},
        {"position": {"x": 5.0, "y": 80.0}, "text": "default size",
         "timestamp": {"sec": 9}}]))
    first, second = result.shapes
    assert first.kind == "text" and first.text == "hello" and first.size == 16.0
    np.testing.assert_array_equal(first.xy, [[5.0, 24.0]])
    assert first.color == (1, 1, 1, 1) and first.fill == (0, 0, 0, 0.5)
    assert second.size == 12.0 and second.fill is None  # transparent background: none
    assert result.stamp == 9.0  # the newest annotation's time


# -- the converter ----------------------------------------------------------------------------
def test_the_overlay_converter_is_not_a_scene_converter() -> None:
    get_converter("camera.overlay")
    for type_name in ("isaac.Detections2Proto", "isaac.Skeleton2ListProto",
                      "foxglove.ImageAnnotations"):
        assert scene_converter_for(type_name) != "camera.overlay"


def test_other_types_are_refused() -> None:
    with pytest.raises(ConversionError, match="not an image overlay"):
        overlay(new("foxglove.CompressedImage", format="jpeg"))
