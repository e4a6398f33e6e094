"""Pictures in the one byte order Qt draws without converting: B, G, R, X (its RGB32 on the
little-endian machines we run on). Qt converts any other colour format on every paint, and
scaling RGB888 or RGBX8888 smoothly costs it 3-4x more GUI-thread time than RGB32; the
conversion is done here once, on the topic's lane, instead."""

from __future__ import annotations

import cv2
import numpy as np


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
