"""What decoding and showing a message costs follows from its size on the wire.

Small hostile samples (pointers that share sub-trees, lists that claim millions of empty
elements) are refused in milliseconds; a large honest one decodes and shows in well under a
second. Each test prints what it measured (``pytest -s``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from app.codec.decode import EAGER_CHECK_BYTES, decode, encoding_for
from app.codec.errors import LimitExceeded
from app.codec.fields import ListSummary, get_path, plain
from app.codec.registry import registry
from tests.codec.filler import fill
from tests.codec.wire import COMPOSITE_ELEMENTS, Message, frame, list_pointer, struct_pointer

QUICK_S = 0.5  # even on a slow, shared machine


def timed(action: Callable[[], Any], label: str) -> tuple[Any, float]:
    start = time.perf_counter()
    result = action()
    elapsed = time.perf_counter() - start
    print(f"\n{label}: {elapsed * 1000:.1f} ms")
    return result, elapsed


def refused_quickly(action: Callable[[], Any], label: str) -> None:
    def attempt() -> None:
        with pytest.raises(LimitExceeded):
            action()

    _, elapsed = timed(attempt, label)
    assert elapsed < QUICK_S


def words(*values: int) -> bytes:
    return b"".join(value.to_bytes(8, "little") for value in values)


def shared_octree(depth: int) -> bytes:
    """bow.Workspaces of ``depth`` lists of two octree nodes, where both nodes of each list
    point at the same next list: ~2 KB on the wire, 2**depth nodes to visit."""
    node = registry().structs["bow.OctreeNode"].schema
    pointers = node.node.struct.pointerCount
    children = node.fields["children"].proto.slot.offset
    list_words = 1 + 2 * pointers  # tag + two elements with no data section
    # root -> Workspaces, whose one pointer -> the first list (word 2); then the lists.
    body = [struct_pointer(0, 0, 1), list_pointer(0, COMPOSITE_ELEMENTS, 2 * pointers)]
    for _level in range(depth):
        body += [struct_pointer(2, 0, pointers)] + [0] * (2 * pointers)
    for level in range(depth - 1):
        start = 2 + level * list_words
        for element in range(2):
            at = start + 1 + element * pointers + children
            following = start + list_words
            body[at] = list_pointer(following - (at + 1), COMPOSITE_ELEMENTS, 2 * pointers)
    return frame(words(*body))


def test_octree_whose_nodes_share_sub_trees_is_refused_in_milliseconds():
    payload = shared_octree(30)
    assert len(payload) < 2400
    refused_quickly(lambda: decode(encoding_for("bow.Workspaces"), payload),
                    f"shared octree, {len(payload)} bytes, 2**30 nodes")


def test_octree_sharing_only_a_few_levels_still_decodes_and_shows():
    """The same shape three levels deep (8 node visits) is within any budget."""
    decoded = decode(encoding_for("bow.Workspaces"), shared_octree(3))
    shown = plain(decoded.root)
    assert len(shown["workspaces"][1]["children"][0]["children"]) == 2


def empty_struct_list(count: int) -> bytes:
    """A TrafficSignal (no data section) whose trafficLightStatus list claims ``count``
    elements of zero words: 24 bytes after the segment table."""
    return frame(words(
        struct_pointer(0, 0, 1),
        list_pointer(0, COMPOSITE_ELEMENTS, 0),
        struct_pointer(count, 0, 0),  # tag: count elements, no data, no pointers
    ))


@pytest.mark.parametrize("count", [200_000, 2_000_000, (1 << 30) - 1])
def test_24_byte_traffic_signal_claiming_millions_of_lights_is_refused_in_milliseconds(count):
    payload = empty_struct_list(count)
    assert len(payload) == 8 + 24
    name = "autoware.simulation_api_schema.TrafficSignal"
    refused_quickly(lambda: decode(encoding_for(name), payload),
                    f"TrafficSignal claiming {count} lights")


def test_a_few_empty_lights_are_shown():
    decoded = decode(encoding_for("autoware.simulation_api_schema.TrafficSignal"),
                     empty_struct_list(3))
    lights = plain(decoded.root)["trafficLightStatus"]
    assert [light["color"] for light in lights] == ["red"] * 3


def recording(samples: int) -> bytes:
    """An honest bow.Recording of ``samples`` fully filled motor samples (~2.8 KB each)."""
    sample = registry().structs["bow.MotorSample"].new_message()
    fill(sample)
    template = sample.as_reader()
    builder = registry().structs["bow.Recording"].new_message()
    motors = builder.init("motorSamples", samples)
    for i in range(samples):
        motors[i] = template
    builder.tstamp = list(range(samples))
    return builder.to_bytes()


def test_large_honest_recording_decodes_and_shows_quickly():
    """Its structure is checked at numpy speed; showing a summary reads what it shows."""
    payload = recording(20_000)
    megabytes = len(payload) / 2**20
    assert megabytes > 50
    assert int.from_bytes(payload[:4], "little") > 0  # several segments, far pointers
    decoded, decode_s = timed(lambda: decode(encoding_for("bow.Recording"), payload),
                              f"decode of a {megabytes:.0f} MB recording")
    print(f"  = {decode_s * 1000 / megabytes:.3f} ms/MB")
    shown, show_s = timed(lambda: plain(decoded.root, max_list=16),
                          "plain(max_list=16) of it")
    # 5 ms/MB on a quiet machine; the whole Python walk it replaces took 560 ms/MB.
    assert decode_s < 0.05 * megabytes and show_s < QUICK_S
    assert shown["motorSamples"].length == 20_000
    assert shown["tstamp"] == ListSummary(20_000, list(range(16)))
    assert get_path(decoded.root, "tstamp[19999]") == 19_999


def test_large_message_claiming_millions_of_empty_structs_is_refused_in_milliseconds():
    """Above EAGER_CHECK_BYTES the structural check (app.codec.structure) refuses it."""
    builder = registry().structs["bow.Recording"].new_message(num_first_segment_words=1 << 16)
    builder.tstamp = list(range(EAGER_CHECK_BYTES // 8 + 1000))
    builder.init("motorSamples", 1)
    message = Message(builder.to_bytes())
    schema = registry().structs["bow.Recording"].schema
    pointer = message.pointer_of(message.root(), schema, "motorSamples")
    tag, _size, _words = message.list_at(pointer)
    message.set_word(pointer, list_pointer((message.word(pointer) >> 2) & 0x3FFFFFFF,
                                           COMPOSITE_ELEMENTS, 0))
    message.set_word(tag, struct_pointer(2_000_000, 0, 0))
    payload = bytes(message)
    assert len(payload) > EAGER_CHECK_BYTES
    refused_quickly(lambda: decode(encoding_for("bow.Recording"), payload),
                    "large recording claiming 2M motor samples")


@pytest.mark.parametrize("padding_mb", [1, 16])
def test_shared_octree_padded_past_the_eager_check_is_refused_in_milliseconds(padding_mb):
    """Unused words make the message large (so the typed walk is left to the reads), and its
    budget large: showing it would take minutes, so decode must refuse it."""
    payload = frame(shared_octree(30)[8:] + bytes(padding_mb << 20))
    refused_quickly(lambda: decode(encoding_for("bow.Workspaces"), payload),
                    f"shared octree padded to {padding_mb} MB")


def test_a_large_image_is_checked_whole_at_decode_a_large_recording_as_it_is_read():
    """A 300 KB camera image is a few structs around its pixels: walked typed at decode, in
    microseconds, so a frame id that is not UTF-8 is refused there, as in a small message.
    A recording of many structs gets the structural check, its types checked as read."""
    from app.codec.errors import MalformedMessage

    image = registry().structs["foxglove.CompressedImage"].new_message()
    image.frameId, image.format, image.data = "camera", "jpeg", bytes(300_000)
    payload = image.to_bytes()
    assert len(payload) > EAGER_CHECK_BYTES
    decoded, elapsed = timed(lambda: decode(encoding_for("foxglove.CompressedImage"), payload),
                             "typed walk of a 300 KB image")
    assert decoded.walked and elapsed < QUICK_S
    broken = payload.replace(b"camera", b"\xff\xfemera")
    with pytest.raises(MalformedMessage, match="not UTF-8"):
        decode(encoding_for("foxglove.CompressedImage"), broken)
    many = decode(encoding_for("bow.Recording"), recording(60))
    assert many.size > EAGER_CHECK_BYTES and not many.walked


def test_largest_message_checked_whole_at_decode_is_quick():
    """Up to EAGER_CHECK_BYTES the typed walk reads every pointer at decode: its worst case
    (nothing but small structs) stays quick."""
    samples = EAGER_CHECK_BYTES // 2900
    payload = recording(samples)
    assert EAGER_CHECK_BYTES * 0.9 < len(payload) <= EAGER_CHECK_BYTES
    _, elapsed = timed(lambda: decode(encoding_for("bow.Recording"), payload),
                       f"typed walk of a {len(payload) // 1024} KiB recording at decode")
    assert elapsed < QUICK_S


def test_mutated_large_messages_decode_or_raise_a_decode_error_quickly():
    """Bytes, bits, words and counts changed in a message above EAGER_CHECK_BYTES (checked by the
    structural walk, typed lazily): decode and show raise DecodeErrors, nothing else."""
    import random

    from app.codec.errors import DecodeError
    from tests.codec.mutators import mutate

    sample = registry().structs["bow.MotorSample"].new_message()
    fill(sample)
    builder = registry().structs["bow.Recording"].new_message()
    motors = builder.init("motorSamples", 60)
    for i in range(60):
        motors[i] = sample.as_reader()
    original = builder.to_bytes()
    assert len(original) > EAGER_CHECK_BYTES
    rng = random.Random(6)
    outcomes: dict[str, int] = {}
    slowest = 0.0
    for _ in range(300):
        payload = mutate(rng, original[:30_000]) + original[30_000:]
        start = time.perf_counter()
        try:
            decoded = decode(encoding_for("bow.Recording"), payload)
            slowest = max(slowest, time.perf_counter() - start)
            plain(decoded.root, max_list=16)  # what the inspector does with it
            outcome = "shown"
        except DecodeError as exc:
            outcome = type(exc).__name__
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    print(f"\n{outcomes}, slowest decode {slowest * 1000:.1f} ms")
    assert outcomes.get("MalformedMessage", 0) > 30 and outcomes.get("shown", 0) > 30
    assert slowest < 2 * QUICK_S  # the slowest of 300 on a shared 2-core machine
