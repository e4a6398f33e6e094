"""What the camera code hands the panel: display frames and overlays, frozen values.

Conventions:
- ``CameraFrame.image`` is the picture: uint8, (H, W, 4) RGBA / RGBX, (H, W, 3) RGB, or
  (H, W) grey. ``display`` is the same picture as the view draws it, made on the lane:
  (H, W, 4) B, G, R, X bytes (Qt's RGB32), or (H, W) grey (``app.camera.display``).
- ``CameraFrame.values`` is what the pixel under the cursor reads when the image is a
  rendering of other numbers (depth in metres or raw counts, 16-bit mono, float images);
  ``None`` means read ``image``.
- Overlay coordinates are image pixels of the full-size image: x right, y down, (0, 0) the
  top-left corner of the top-left pixel, so pixel (i, j) covers [i, i+1) x [j, j+1).
- Stamps are unix seconds; 0 means the message carried none (use the sample's time).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

RGBA = tuple[float, float, float, float]


@dataclass(frozen=True)
class CameraFrame:
    image: np.ndarray
    stamp: float = 0.0
    frame_id: str = ""  # "" = the topic's frame (catalog frameId, else the camera's key)
    encoding: str = ""  # as the source named it: "jpeg", "rgb8", "h264", "isaac uint8x3"...
    source: str = ""  # the camera within a message that carries several (bow ``source``)
    values: np.ndarray | None = None  # (H, W) or (H, W, C) numbers behind a rendering
    value_unit: str = ""  # "m", "mm", "" for the pixel readout
    value_range: tuple[float, float] | None = None  # the colour map's range, when one was used
    decode_s: float = 0.0  # time spent decoding and converting this frame (thread CPU)
    display: np.ndarray | None = None  # None: draw ``image``
    preview: np.ndarray | None = None  # ``display`` scaled down to the view's size, if asked
    preview_scale: float = 1.0  # preview pixels per image pixel

    @property
    def width(self) -> int:
        return int(self.image.shape[1])

    @property
    def height(self) -> int:
        return int(self.image.shape[0])


@dataclass(frozen=True)
class Shape:
    """One thing drawn over an image, in image pixels.

    kind: ``box`` (xy: two rows, top-left and bottom-right corners), ``points`` (one dot
    per row), ``line_strip``, ``line_loop``, ``line_list`` (rows taken in pairs),
    ``polygon`` (closed, filled when ``fill`` is set), ``circle`` (xy: one row, the centre;
    ``size`` the diameter), ``text`` (xy: one row, the text's top-left corner; ``size`` the
    font size in image pixels).
    """

    kind: str
    xy: np.ndarray  # (N, 2) float64
    color: RGBA = (0.0, 1.0, 0.0, 1.0)
    fill: RGBA | None = None
    thickness: float = 2.0  # screen pixels for outlines, image pixels for points
    text: str = ""
    size: float = 0.0
    colors: np.ndarray | None = None  # (N, 4) float per point/segment, overrides ``color``


@dataclass(frozen=True)
class ImageOverlay:
    """What one message draws over an image."""

    shapes: tuple[Shape, ...]
    stamp: float = 0.0
    frame_id: str = ""
    dropped: int = 0  # items left out (non-finite coordinates, bad indices)
