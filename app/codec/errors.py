"""Every way a sample can fail to decode, each a distinct type with a short ``kind``.

The ``kind`` is what subscriptions count per topic and what the UI shows.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import capnp


class DecodeError(Exception):
    kind = "decode"


class UnknownEncoding(DecodeError):
    """The sample's encoding is not ``application/capnp;<family>.<Struct>``."""

    kind = "encoding"


class UnknownType(DecodeError):
    """A capnp encoding naming a type no registered schema has."""

    kind = "type"


class OversizedMessage(DecodeError):
    """Larger than the limit chosen for its type."""

    kind = "oversized"


class MalformedMessage(DecodeError):
    """Bad framing, truncated, out-of-bounds pointers, wrong pointer kinds."""

    kind = "malformed"


class LimitExceeded(DecodeError):
    """Traversal or nesting limit of the type exceeded."""

    kind = "limit"


class MissingAttachment(DecodeError):
    """An isaac buffer index that the sample's attachment does not provide."""

    kind = "attachment"


class FieldPathError(DecodeError):
    """A field path that does not name a field of the message."""

    kind = "path"


@contextmanager
def reading() -> Iterator[None]:
    """Turns what reading a capnp message can raise into the DecodeError it means: a spent
    traversal budget or nesting limit, a pointer of the wrong kind, text that is not UTF-8."""
    try:
        yield
    except capnp.KjException as exc:
        text = str(exc).split("\n", 1)[0]
        detail = text.split("failed: ", 1)[-1]
        if "traversal limit" in text or "too deeply-nested" in text:
            raise LimitExceeded(detail) from None
        raise MalformedMessage(detail) from None
    except UnicodeDecodeError as exc:
        raise MalformedMessage(f"text that is not UTF-8: {exc.reason}") from None
