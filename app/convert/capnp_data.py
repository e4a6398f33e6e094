"""Shared plumbing of the scene converters: zero-copy ``Data`` fields, list fields as numpy,
and the one place that turns reading failures into :class:`ConversionError`.

``Data`` without copying: :func:`app.codec.data_view.data_array` (pycapnp's own view leaks).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import capnp
import numpy as np

from app.codec.errors import DecodeError
from app.convert.models import IDENTITY, Quat
from app.convert.registry import ConversionError

T = TypeVar("T")


def list_array(items: Any, dtype: Any) -> np.ndarray:
    """A capnp list of numbers as a 1-D array of ``dtype``."""
    return np.fromiter(items, dtype=dtype, count=len(items))


def to_rgb8(values: np.ndarray) -> np.ndarray:
    """Colour channels as uint8: floats are 0..1 (scaled by 255), integers 0..255 (clipped);
    uint8 is returned as is (a view stays a view)."""
    if values.dtype == np.uint8:
        return values
    if values.dtype.kind == "f":
        scaled = np.nan_to_num(values.astype(np.float32) * 255.0 + 0.5, nan=0.0)
        return np.clip(scaled, 0, 255).astype(np.uint8)
    return np.clip(values, 0, 255).astype(np.uint8)


def finite_rows(xyz: np.ndarray, words: np.ndarray | None = None) -> np.ndarray | None:
    """None when every value of (N, 3) ``xyz`` is finite (the common case), else the (N,)
    mask of rows that are. ``words``: 1-D float32 values holding every value of ``xyz`` (a
    packed cloud's whole data when each of its fields is float32).

    The common case costs one BLAS dot product, of ``words`` or of a contiguous float32
    ``xyz``: a sum of squares is finite only when every value is. A NaN or an infinity
    anywhere in it, or a square past float32's range, sends it to the exact check, which
    decides. (``isfinite(xyz).all(axis=1)`` is several times slower still: numpy reduces rows
    of 3 one by one.)"""
    if words is None and xyz.dtype == np.float32 and xyz.flags.c_contiguous:
        words = xyz.reshape(-1)
    if words is not None and words.size and np.isfinite(np.dot(words, words)):
        return None
    if np.isfinite(xyz).all():
        return None
    return np.isfinite(xyz[:, 0]) & np.isfinite(xyz[:, 1]) & np.isfinite(xyz[:, 2])


def unit_quaternion(q: Any) -> Quat:
    """A quaternion struct (x, y, z, w fields, any order on the wire) as a unit (x, y, z, w);
    all zeros (unset) is the identity; non-finite values stay (callers check)."""
    x, y, z, w = float(q.x), float(q.y), float(q.z), float(q.w)
    norm = math.sqrt(x * x + y * y + z * z + w * w)
    if norm == 0.0:
        return IDENTITY
    return (x / norm, y / norm, z / norm, w / norm)


def stamp_of(time: Any) -> float:
    """A foxglove ``Time`` (sec, nsec) as seconds."""
    return float(time.sec) + time.nsec * 1e-9


@contextmanager
def converting(type_name: str) -> Iterator[None]:
    """Turns what reading a decoded message can raise into a ConversionError."""
    try:
        yield
    except ConversionError:
        raise
    except DecodeError as exc:
        raise ConversionError(f"{type_name}: {exc}") from None
    except capnp.KjException as exc:
        detail = str(exc).split("\n", 1)[0].split("failed: ", 1)[-1]
        raise ConversionError(f"{type_name}: unreadable message ({detail})") from None
    except UnicodeDecodeError as exc:
        raise ConversionError(f"{type_name}: text that is not UTF-8 ({exc.reason})") from None
    except (ValueError, OverflowError, IndexError) as exc:
        raise ConversionError(f"{type_name}: {exc}") from None


def guarded(function: Callable[[Any], T]) -> Callable[[Any], T]:
    """Runs a converter inside :func:`converting` for the decoded message's type."""

    @functools.wraps(function)
    def run(decoded: Any) -> T:
        with converting(getattr(decoded, "type_name", "message")):
            return function(decoded)

    return run
