"""2D overlay messages -> :class:`ImageOverlay` (image pixels: x right, y down, (0, 0) the
top-left corner of the top-left pixel; see app/convert/camera/model.py).

Choices where the seeds leave room:

- isaac ``Detections2Proto`` / ``Skeleton2ListProto``: positions are (row, col) pixels,
  ``Vector2dProto.x`` the row (down) and ``.y`` the column (right). They are read in our
  origin (no half-pixel shift), like foxglove's: a box with min (10, 100) and max (50, 200)
  is drawn from x 100, y 10 to x 200, y 50. isaac messages carry no stamp (0).
  Detection i is ``boundingBoxes[i]`` with ``predictions[i]``; ``predictions`` is empty or
  as long as the boxes (else the message is refused); ``poses`` are not drawn. Each box
  gets the text "label 0.87" above it; the colour is picked from a palette by a stable hash
  of the label, so one label keeps its colour across messages and runs.
- Skeleton joints: a joint whose confidence is 0 is not seen (not drawn, nor its bones),
  unless every joint of the skeleton has confidence 0 (confidences not reported: all are
  drawn). Bones are the graph's edges; an edge naming a joint that does not exist is left
  out and counted. The skeleton's label goes above its top-most drawn joint.
- foxglove ``ImageAnnotations``: the seed's origin is ours, so coordinates are used as they
  are. ``TextAnnotation.position`` is the text's bottom-left, ours its top-left, so y moves
  up by the font size. ``UNKNOWN`` points (and a type this schema does not know) are drawn
  as ``POINTS``. ``outlineColors`` become per-point ``colors``: one per point, or for a
  ``LINE_LIST`` one per segment (both ends get it); another count is padded with / cut to
  the outline colour. A ``LINE_LOOP`` with a fill colour whose alpha > 0 is a filled
  ``polygon``. A ``LINE_LIST`` with an odd point count loses its last point (counted).
  Sizes that are not positive and finite fall back to defaults (font 12 px, thickness 1,
  point size 4). The overlay's stamp is the newest annotation ``timestamp`` (0 when none).
- Non-finite coordinates: a ``POINTS`` annotation loses only those points; a line, circle,
  text, box or joint is left out whole. Each item left out counts once in ``dropped``.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable
from typing import Any

import numpy as np

from app.codec.decode import DecodedMessage
from app.convert.camera.model import RGBA, ImageOverlay, Shape
from app.convert.capnp_data import converting, stamp_of
from app.convert.registry import ConversionError, converter

# Distinct, readable over camera images (Tableau 10).
PALETTE: tuple[RGBA, ...] = (
    (0.12, 0.47, 0.71, 1.0), (1.00, 0.50, 0.05, 1.0), (0.17, 0.63, 0.17, 1.0),
    (0.84, 0.15, 0.16, 1.0), (0.58, 0.40, 0.74, 1.0), (0.55, 0.34, 0.29, 1.0),
    (0.89, 0.47, 0.76, 1.0), (0.50, 0.50, 0.50, 1.0), (0.74, 0.74, 0.13, 1.0),
    (0.09, 0.75, 0.81, 1.0),
)
LABEL_SIZE = 14.0  # image pixels, for the labels we write
LABEL_BACKGROUND: RGBA = (0.0, 0.0, 0.0, 0.55)
DEFAULT_FONT = 12.0
DEFAULT_THICKNESS = 1.0
DEFAULT_POINT = 4.0
# foxglove.PointsAnnotationType -> Shape kind; anything else is drawn as points.
POINTS_KINDS = {2: "line_loop", 3: "line_strip", 4: "line_list"}


def label_color(label: str) -> RGBA:
    """The palette colour of ``label``: the same in every message and every run."""
    return PALETTE[zlib.crc32(label.encode()) % len(PALETTE)]


def caption(label: str, score: float) -> str:
    """"label 0.87"; the score alone without a label; the label alone without a score."""
    parts = [label] if label else []
    if math.isfinite(score):
        parts.append(f"{score:.2f}")
    return " ".join(parts)


def label_above(text: str, x: float, y: float, color: RGBA) -> Shape:
    """A label whose bottom sits at ``y`` (kept inside the image's top edge)."""
    xy = np.array([[x, max(y - LABEL_SIZE, 0.0)]])
    return Shape("text", xy, color, fill=LABEL_BACKGROUND, text=text, size=LABEL_SIZE)


def _finite(*values: float) -> bool:
    return all(math.isfinite(v) for v in values)


def _size(value: float, default: float) -> float:
    return value if math.isfinite(value) and value > 0 else default


# -- isaac ------------------------------------------------------------------------------------
def detections2(root: Any) -> ImageOverlay:
    boxes, predictions = root.boundingBoxes, root.predictions
    if len(predictions) not in (0, len(boxes)):
        raise ConversionError(f"{len(predictions)} predictions for {len(boxes)} bounding boxes")
    shapes: list[Shape] = []
    dropped = 0
    for i, box in enumerate(boxes):
        rows = (float(box.min.x), float(box.max.x))
        cols = (float(box.min.y), float(box.max.y))
        if not _finite(*rows, *cols):
            dropped += 1
            continue
        x0, x1, y0, y1 = min(cols), max(cols), min(rows), max(rows)
        label, score = "", math.nan
        if len(predictions):
            label, score = predictions[i].label, float(predictions[i].confidence)
        color = label_color(label)
        shapes.append(Shape("box", np.array([[x0, y0], [x1, y1]]), color))
        text = caption(label, score)
        if text:
            shapes.append(label_above(text, x0, y0, color))
    return ImageOverlay(tuple(shapes), dropped=dropped)


def skeletons2(root: Any) -> ImageOverlay:
    shapes: list[Shape] = []
    dropped = 0
    for skeleton in root.skeletons:
        joints = skeleton.joints
        # (col, row) -> (x, y); NaN rows are joints not drawn.
        xy = np.array([(j.position.y, j.position.x) for j in joints], float).reshape(-1, 2)
        confidence = np.array([j.label.confidence for j in joints], float)
        finite = np.isfinite(xy).all(axis=1)
        dropped += int((~finite).sum())
        reported = confidence != 0
        seen = finite & reported if reported.any() else finite
        edges = np.array([(e.source, e.target) for e in skeleton.graph.edges],
                         np.int64).reshape(-1, 2)
        exists = ((edges >= 0) & (edges < len(xy))).all(axis=1)
        dropped += int((~exists).sum())
        edges = edges[exists]
        edges = edges[seen[edges[:, 0]] & seen[edges[:, 1]]]
        if not seen.any():
            continue
        label = skeleton.label
        color = label_color(label.label)
        if len(edges):
            shapes.append(Shape("line_list", xy[edges.reshape(-1)], color))
        shapes.append(Shape("points", xy[seen], color, thickness=DEFAULT_POINT))
        text = caption(label.label, float(label.confidence))
        if text:
            top = xy[seen][np.argmin(xy[seen, 1])]
            shapes.append(label_above(text, float(top[0]), float(top[1]), color))
    return ImageOverlay(tuple(shapes), dropped=dropped)


# -- foxglove ---------------------------------------------------------------------------------
def _color(c: Any) -> RGBA:
    def unit(v: float) -> float:
        return min(max(v, 0.0), 1.0) if v == v else 0.0  # NaN -> 0

    return (unit(float(c.r)), unit(float(c.g)), unit(float(c.b)), unit(float(c.a)))


def _fill(c: Any) -> RGBA | None:
    color = _color(c)
    return color if color[3] > 0 else None


class _Annotations:
    def __init__(self) -> None:
        self.shapes: list[Shape] = []
        self.dropped = 0
        self.stamp = 0.0

    def saw(self, item: Any) -> None:
        self.stamp = max(self.stamp, stamp_of(item.timestamp))

    def circle(self, item: Any) -> None:
        x, y, diameter = float(item.position.x), float(item.position.y), float(item.diameter)
        if not _finite(x, y, diameter):
            self.dropped += 1
            return
        self.shapes.append(Shape("circle", np.array([[x, y]]), _color(item.outlineColor),
                                 fill=_fill(item.fillColor),
                                 thickness=_size(float(item.thickness), DEFAULT_THICKNESS),
                                 size=abs(diameter)))

    def points(self, item: Any) -> None:
        xy = np.array([(p.x, p.y) for p in item.points], float).reshape(-1, 2)
        outline = _color(item.outlineColor)
        colors = self._colors(item, outline, len(xy), item.type.raw == 4)
        kind = POINTS_KINDS.get(item.type.raw, "points")
        finite = np.isfinite(xy).all(axis=1)
        if kind == "points":
            self.dropped += int((~finite).sum())
            xy, colors = xy[finite], None if colors is None else colors[finite]
        elif not finite.all():
            self.dropped += 1
            return
        if kind == "line_list" and len(xy) % 2:
            self.dropped += 1
            xy, colors = xy[:-1], None if colors is None else colors[:-1]
        if not len(xy):
            return
        fill = None
        if kind == "line_loop":
            fill = _fill(item.fillColor)
            kind = "polygon" if fill is not None else kind
        size = DEFAULT_POINT if kind == "points" else DEFAULT_THICKNESS
        self.shapes.append(Shape(kind, xy, outline, fill=fill,
                                 thickness=_size(float(item.thickness), size), colors=colors))

    @staticmethod
    def _colors(item: Any, outline: RGBA, count: int, per_segment: bool) -> np.ndarray | None:
        given = [_color(c) for c in item.outlineColors]
        if not given:
            return None
        if per_segment and len(given) == count // 2 and len(given) != count:
            given = [c for c in given for _ in (0, 1)]
        given = (given + [outline] * count)[:count]
        return np.array(given, float).reshape(-1, 4)

    def text(self, item: Any) -> None:
        x, y = float(item.position.x), float(item.position.y)
        if not _finite(x, y):
            self.dropped += 1
            return
        size = _size(float(item.fontSize), DEFAULT_FONT)
        self.shapes.append(Shape("text", np.array([[x, y - size]]), _color(item.textColor),
                                 fill=_fill(item.backgroundColor), text=item.text, size=size))


def image_annotations(root: Any) -> ImageOverlay:
    out = _Annotations()
    for kind, items in ((out.circle, root.circles), (out.points, root.points),
                        (out.text, root.texts)):
        for item in items:
            out.saw(item)
            kind(item)
    return ImageOverlay(tuple(out.shapes), stamp=out.stamp, dropped=out.dropped)


READERS: dict[str, Callable[[Any], ImageOverlay]] = {
    "isaac.Detections2Proto": detections2,
    "isaac.Skeleton2ListProto": skeletons2,
    "foxglove.ImageAnnotations": image_annotations,
}
OVERLAY_TYPES = tuple(READERS)


@converter("camera.overlay")  # by name only: the 3D scene never picks it
def overlay_from(decoded: DecodedMessage) -> ImageOverlay:
    """The overlay one message draws (isaac ``Detections2Proto`` / ``Skeleton2ListProto``,
    foxglove ``ImageAnnotations``); ConversionError for a type that draws none or bad
    content."""
    read = READERS.get(decoded.type_name)
    if read is None:
        raise ConversionError(f"{decoded.type_name} is not an image overlay "
                              f"(one of {', '.join(OVERLAY_TYPES)})")
    with converting(decoded.type_name):
        return read(decoded.root)
