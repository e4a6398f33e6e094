"""Numbers -> pixels: depth and other single-channel images rendered for display.

A range is fixed ``(lo, hi)`` or automatic: the 2nd to 98th percentile of the valid values
(finite; non-zero where zero means "no reading", as in depth images), taken on a subsample
of about 64k pixels so a 1080p frame costs about as much as a small one. The range used is
returned so the panel can show it. Invalid pixels are black.
"""

from __future__ import annotations

import math
from functools import cache

import cv2
import numpy as np

from app.convert.registry import ConversionError

SAMPLE_PIXELS = 1 << 16
PERCENTILES = (2.0, 98.0)
Range = tuple[float, float]


def colorize(values: np.ndarray, value_range: Range | None = None,
             zero_invalid: bool = True) -> tuple[np.ndarray, Range]:
    """(H, W) numbers -> ((H, W, 3) uint8 RGB in a turbo colour map, the range used):
    ``lo`` is dark blue, ``hi`` dark red, values beyond them clamp; invalid pixels black."""
    used = _range(values, value_range, zero_invalid)
    levels = _levels(values, used, 1, zero_invalid)
    return cv2.applyColorMap(levels, _turbo_lut()), used


def grey_scaled(values: np.ndarray, value_range: Range | None = None,
                zero_invalid: bool = False) -> tuple[np.ndarray, Range]:
    """(H, W) numbers -> ((H, W) uint8 grey, ``lo`` black to ``hi`` white, the range used);
    invalid pixels black."""
    used = _range(values, value_range, zero_invalid)
    return _levels(values, used, 0, zero_invalid), used


def auto_range(values: np.ndarray, zero_invalid: bool = True) -> Range:
    """A robust range of ``values``: the 2nd-98th percentile of the valid ones on a
    subsample; (0, 1) when none is valid; widened to a non-empty span when all are equal."""
    flat = values.reshape(-1)
    step = max(1, flat.size // SAMPLE_PIXELS)
    sample = flat[::step]
    if sample.dtype.kind == "f":
        sample = sample[np.isfinite(sample)]
    if zero_invalid:
        sample = sample[sample != 0]
    if sample.size == 0:
        return 0.0, 1.0
    lo, hi = (float(v) for v in np.percentile(sample, PERCENTILES))
    if hi <= lo:
        hi = lo + max(abs(lo) * 1e-3, 1e-6 if sample.dtype.kind == "f" else 1.0)
    return lo, hi


def _range(values: np.ndarray, value_range: Range | None, zero_invalid: bool) -> Range:
    if values.ndim != 2:
        raise ConversionError(f"values shaped {list(values.shape)}, need (H, W)")
    if value_range is None:
        return auto_range(values, zero_invalid)
    lo, hi = (float(v) for v in value_range)
    if not (math.isfinite(lo) and math.isfinite(hi) and hi > lo):
        raise ConversionError(f"colour range {lo:g}..{hi:g} is not an increasing pair")
    return lo, hi


def _levels(values: np.ndarray, value_range: Range, first: int,
            zero_invalid: bool) -> np.ndarray:
    """uint8 levels: ``lo`` -> ``first``, ``hi`` -> 255, clamped; invalid pixels (non-finite,
    zero when ``zero_invalid``) 0."""
    if values.dtype not in _CV_TYPES:
        values = values.astype(np.float32)
    lo, hi = value_range
    scale = (255 - first) / (hi - lo)
    # One multithreaded pass that rounds and saturates (NaN lands on 0, masked below anyway).
    levels = cv2.addWeighted(values, scale, values, 0.0, first - lo * scale, dtype=cv2.CV_8U)
    if first:
        np.maximum(levels, first, out=levels)
    valid = None
    if values.dtype.kind == "f" and not np.isfinite(values).all():
        valid = np.isfinite(values)
    if zero_invalid:
        nonzero = values != 0
        valid = nonzero if valid is None else valid & nonzero
    if valid is not None:
        levels *= valid
    return levels


_CV_TYPES = frozenset(np.dtype(t) for t in ("u1", "i1", "<u2", "<i2", "<i4", "<f4", "<f8"))


@cache
def _turbo_lut() -> np.ndarray:
    """256 RGB entries for ``cv2.applyColorMap``: 0 black (invalid), 1..255 turbo."""
    turbo = cv2.applyColorMap(np.arange(256, dtype=np.uint8).reshape(256, 1),
                              cv2.COLORMAP_TURBO)[:, 0, ::-1]  # BGR -> RGB
    lut = np.zeros((256, 1, 3), np.uint8)
    lut[1:, 0] = turbo[np.linspace(0, 255, 255).round().astype(int)]
    return lut
