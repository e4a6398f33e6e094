"""What the camera code hands the panel: display frames and overlays, frozen values.

Conventions:
- ``CameraFrame.image`` is the picture: uint8, (H, W, 4) RGBA / RGBX, (H, W, 3) RGB, or
  (H, W) grey. ``display`` is the same picture as the view draws it, made on the lane:
  (H, W, 4) B, G, R, X bytes (Qt's RGB32), or (H, W) grey (``app.convert.camera.display``).
- A picture shown smaller than half its size may be decoded only at the view's size: its
  ``image`` is then a :class:`FullPicture`, decoded at full size when something needs its
  pixels (a snapshot, the readout under the cursor); the view draws ``preview``.
- ``CameraFrame.values`` is what the pixel under the cursor reads when the image is a
  rendering of other numbers (depth in metres or raw counts, 16-bit mono, float images);
  ``None`` means read ``image``.
- Overlay coordinates are image pixels of the full-size image: x right, y down, (0, 0) the
  top-left corner of the top-left pixel, so pixel (i, j) covers [i, i+1) x [j, j+1).
- Stamps are unix seconds; 0 means the message carried none (use the sample's time).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

RGBA = tuple[float, float, float, float]


class FullPicture:
    """A picture of ``width`` x ``height`` decoded at full size on first use, once."""

    def __init__(self, width: int, height: int,
                 decode: Callable[[], tuple[np.ndarray, np.ndarray | None]]) -> None:
        self.width, self.height = width, height
        self._decode = decode  # -> (image, display)
        self._decoded: tuple[np.ndarray, np.ndarray | None] | None = None
        self._lock = threading.Lock()

    def decoded(self) -> tuple[np.ndarray, np.ndarray | None]:
        with self._lock:
            if self._decoded is None:
                self._decoded = self._decode()
            return self._decoded


@dataclass(frozen=True)
class CameraFrame:
    image: np.ndarray | FullPicture
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
        image = self.image
        return image.width if isinstance(image, FullPicture) else int(image.shape[1])

    @property
    def height(self) -> int:
        image = self.image
        return image.height if isinstance(image, FullPicture) else int(image.shape[0])

    @property
    def deferred(self) -> bool:
        """Whether the full picture is decoded only when asked (the view draws ``preview``)."""
        return isinstance(self.image, FullPicture)

    def pixels(self) -> np.ndarray:
        """The picture at full size (decoded now, if it was not)."""
        image = self.image
        return image.decoded()[0] if isinstance(image, FullPicture) else image

    def drawn(self) -> np.ndarray:
        """The picture at full size as the view draws it: ``display``, else ``image``."""
        image = self.image
        if isinstance(image, FullPicture):
            full, display = image.decoded()
            return display if display is not None else full
        return self.display if self.display is not None else image


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
