"""What a camera view shows, read back as pixels."""

from __future__ import annotations

import time

import numpy as np
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from widgets.camera_view import CameraView

SETTLE_S = 5.0


def shown_pixels(view: CameraView) -> np.ndarray:
    """(H, W, 3) RGB of the view, once the layer of its newest overlays is drawn (it is
    drawn on a thread of its own, and the picture waits for it)."""
    deadline = time.monotonic() + SETTLE_S
    while not view.overlays_ready() and time.monotonic() < deadline:
        QApplication.processEvents()
        time.sleep(0.002)
    assert view.overlays_ready(), "the overlays' layer never came"
    image = view.grab().toImage().convertToFormat(QImage.Format.Format_RGB888)
    return np.array(image.constBits(), np.uint8).reshape(
        image.height(), image.bytesPerLine())[:, :image.width() * 3].reshape(
        image.height(), image.width(), 3)
