"""A ROS 2 message (as ``rosbags`` deserialises it) as plain values, the way
``app.codec.fields.plain`` shows a Cap'n Proto one: lists summarised past ``max_list``,
byte arrays as a size and their first bytes."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from app.codec.fields import DataSummary, ListSummary

DATA_HEAD = 16


def plain_ros(value: Any, max_list: int | None = None) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {field.name: plain_ros(getattr(value, field.name), max_list)
                for field in dataclasses.fields(value)
                if not field.name.startswith("__") and not field.name.isupper()}  # constants
    if isinstance(value, np.ndarray):
        if value.dtype == np.uint8:
            return DataSummary(len(value), value[:DATA_HEAD].tobytes())
        value = value.tolist()
    if isinstance(value, list):
        if max_list is not None and len(value) > max_list:
            return ListSummary(len(value), [plain_ros(v, max_list) for v in value[:max_list]])
        return [plain_ros(v, max_list) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value
