"""What a plotted series takes of one message: the number at its field path, at the
message's best time (PROTOCOL.md). Shared by the feeds (live and played samples) and by a
whole log read at once, so both draw the same points."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from app.codec.decode import DecodedMessage
from app.codec.errors import DecodeError
from app.codec.fields import get_path
from app.codec.stamps import best_time
from app.station.series import SeriesBuffer


def append_points(targets: Sequence[tuple[str, SeriesBuffer]],
                  message: Callable[[], DecodedMessage], source_time: float | None,
                  received: float) -> None:
    """Appends the value at each target's field path to its buffer. ``message`` decodes
    the sample (called once); a decode error, or a path the message does not have, is
    kept as the buffer's ``error`` instead. Values that are not finite numbers are skipped."""
    try:
        decoded = message()
    except DecodeError as exc:
        for _, buffer in targets:
            buffer.error = str(exc)
        return
    stamp, _ = best_time(decoded.root, source_time, received)
    for path, buffer in targets:
        try:
            value = get_path(decoded.root, path)
        except DecodeError as exc:
            buffer.error = str(exc)
            continue
        if isinstance(value, bool | int | float) and math.isfinite(float(value)):
            buffer.append(stamp, float(value))
