"""``Data`` fields without copying, and without pycapnp 2.2.4's leak.

pycapnp's ``get_data_as_view`` (2.2.4) returns a memoryview that does not own what it points
into, and leaks a reference to the struct reader it came from (so the whole message would stay
in memory forever; fixed upstream in pycapnp PR #406, where the view owns a reference
instead). :func:`data_array` gives back that leaked reference and returns a read-only uint8
array that keeps the reader (hence the message's segments) alive for as long as the array, or
anything viewing it, lives.
"""

from __future__ import annotations

import ctypes
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np


class _Pinned:
    """Exposes ``size`` bytes at ``address`` to numpy while holding ``owner`` alive."""

    __slots__ = ("__array_interface__", "_owner")

    def __init__(self, address: int, size: int, owner: Any) -> None:
        self.__array_interface__ = {
            "shape": (size,),
            "typestr": "|u1",
            "data": (address, True),  # read-only
            "version": 3,
        }
        self._owner = owner


def data_array(reader: Any, name: str) -> np.ndarray:
    """Data field ``name`` of struct ``reader`` as a read-only uint8 array viewing the message
    (no copy); empty when the field is unset."""
    import numpy as np  # here, not at module level: keeps numpy off the start-up path

    if not reader._has(name):
        return _empty(np)
    before = sys.getrefcount(reader)
    try:
        view = reader.get_data_as_view(name)
    except ValueError:  # a set but empty Data field: pycapnp cannot view a null pointer
        return _empty(np)
    if view.obj is None and sys.getrefcount(reader) == before + 1:
        # pycapnp <= 2.2.4: PyBuffer_FillInfo took a reference the memoryview never releases.
        ctypes.pythonapi.Py_DecRef(ctypes.py_object(reader))
    if len(view) == 0:
        return _empty(np)
    if view.obj is not None:  # a pycapnp whose view owns its exporter
        return np.frombuffer(view, np.uint8)
    address = np.frombuffer(view, np.uint8).ctypes.data
    return np.asarray(_Pinned(address, len(view), reader))


def _empty(np: Any) -> np.ndarray:
    empty = np.empty(0, np.uint8)
    empty.flags.writeable = False
    return empty
