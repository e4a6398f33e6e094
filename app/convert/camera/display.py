"""Pictures in the one byte order Qt draws without converting: B, G, R, X (its RGB32 on the
little-endian machines we run on). Qt converts any other colour format on every paint, and
scaling RGB888 or RGBX8888 smoothly costs it 3-4x more GUI-thread time than RGB32; the
conversion is done here once, on the topic's lane, instead."""

from __future__ import annotations

import cv2
import numpy as np

# A picture shown at this much of its size or more is drawn as it is, not resampled: one row
# and column in twenty (or fewer) is skipped, and every other pixel stays as sharp as sent.
# Resampling a 960x540 half-size JPEG to a 948x536 view cost about a millisecond a frame.
UNRESAMPLED_FROM = 0.95


def qt_image(image: np.ndarray) -> np.ndarray:
    """(H, W, 4) B, G, R, X of an RGB / RGBA picture; a grey one stays grey (Qt draws grey
    directly)."""
    if image.ndim == 2 or image.dtype != np.uint8:
        return image
    if image.shape[2] == 3:
        return cv2.cvtColor(image, cv2.COLOR_RGB2BGRA)
    if image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_RGBA2BGRA)
    return image


def preview_of(display: np.ndarray, fit: tuple[int, int] | None) -> tuple[np.ndarray | None,
                                                                          float]:
    """The picture scaled down to fit ``fit`` (width, height in screen pixels, in the
    picture's own orientation), and its scale (preview pixels per picture pixel); (None, 1)
    when it fits already, or nearly (:data:`UNRESAMPLED_FROM`). Done on the topic's lane so
    the GUI thread draws a picture its own size: scaling a 1080p one while painting cost it
    about 7 ms a frame."""
    if fit is None or display.ndim not in (2, 3):
        return None, 1.0
    height, width = display.shape[:2]
    scale = min(fit[0] / width, fit[1] / height)
    if not 0 < scale < UNRESAMPLED_FROM:
        return None, 1.0
    size = (max(1, round(width * scale)), max(1, round(height * scale)))
    # Area averaging only where a pixel gathers several (it costs 2-3x a linear one).
    method = cv2.INTER_AREA if scale < 0.5 else cv2.INTER_LINEAR
    return cv2.resize(display, size, interpolation=method), scale
