"""Video decoding as an operator sees it: real streams, packet by packet, pictures that match
what the camera saw, and nothing broken on screen after a lost or corrupt packet."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from app.convert.camera.bitstream import is_key_frame
from app.convert.camera.model import CameraFrame
from app.convert.camera.video import RECOVERING, RECOVERING_ERROR, WAITING, VideoDecoder
from app.convert.registry import ConversionError
from tests.convert.camera.streams import SQUARE, pictures, square_at
from tests.convert.camera.streams import encode as encode_stream

CODECS = ("h264", "h265", "vp8", "vp9", "av1")
GOP = 10
COUNT = 25  # key frames at 0, 10, 20
TOLERANCE = 8.0  # mean absolute difference, 0..255, for these lossy encodings


@functools.cache
def stream(codec: str) -> tuple[list[np.ndarray], list[bytes]]:
    images = pictures(COUNT)
    return images, encode_stream(codec, images, GOP)


def assert_shows(frame: CameraFrame | None, image: np.ndarray, index: int) -> None:
    assert frame is not None, f"no picture for packet {index}"
    assert frame.image.dtype == np.uint8 and frame.image.shape == image.shape
    # what the view draws: the same picture as B, G, R, X bytes, contiguous
    assert frame.display is not None and frame.display.flags.c_contiguous
    np.testing.assert_array_equal(frame.display[..., 2::-1], frame.image)
    difference = np.abs(frame.image.astype(np.int16) - image).mean()
    assert difference < TOLERANCE, f"picture {index} differs by {difference:.1f}"
    # the square is where picture ``index`` has it, in its colour
    y, x = image.shape[0] // 3 + 32, square_at(index, image.shape[1]) + 32
    assert np.abs(frame.image[y, x].astype(int) - SQUARE).max() < 40


def decode_all(decoder: VideoDecoder, packets: list[bytes],
               indices: range) -> dict[int, CameraFrame | None]:
    return {i: decoder.decode(packets[i], stamp=float(i)) for i in indices}


@pytest.mark.parametrize("codec", CODECS)
def test_every_picture_decodes_as_the_camera_saw_it(codec: str) -> None:
    images, packets = stream(codec)
    decoder = VideoDecoder(codec)
    assert decoder.status == WAITING
    for index, packet in enumerate(packets):
        frame = decoder.decode(packet, stamp=100.0 + index)
        assert_shows(frame, images[index], index)  # no latency: each packet's own picture
        assert frame is not None and frame.stamp == 100.0 + index
        assert decoder.status == ""
    assert (decoder.frames, decoder.errors, decoder.skipped) == (COUNT, 0, 0)


@pytest.mark.parametrize("codec", CODECS)
def test_key_frames_are_read_from_the_bitstream(codec: str) -> None:
    _, packets = stream(codec)
    keys = [i for i, p in enumerate(packets) if is_key_frame(VideoDecoder(codec).codec, p)]
    assert keys == [0, 10, 20]


@pytest.mark.parametrize("codec", CODECS)
def test_joining_mid_stream_waits_for_a_key_frame(codec: str) -> None:
    images, packets = stream(codec)
    decoder = VideoDecoder(codec)
    shown = decode_all(decoder, packets, range(3, COUNT))
    assert all(shown[i] is None for i in range(3, 10))
    assert decoder.skipped == 7 and decoder.errors == 0
    for index in range(10, COUNT):
        assert_shows(shown[index], images[index], index)


def test_status_says_waiting_until_the_key_frame() -> None:
    _, packets = stream("h264")
    decoder = VideoDecoder("h264")
    decoder.decode(packets[4])
    assert decoder.status == "waiting for a key frame"
    decoder.decode(packets[10])
    assert decoder.status == ""


@pytest.mark.parametrize("codec", CODECS)
def test_a_lost_packet_hides_pictures_until_the_next_key_frame(codec: str) -> None:
    images, packets = stream(codec)
    decoder = VideoDecoder(codec)
    decode_all(decoder, packets, range(0, 13))
    # packet 13 is lost; the caller saw the gap and says so with packet 14
    assert decoder.decode(packets[14], lost=True) is None
    assert decoder.status == RECOVERING
    assert all(decoder.decode(packets[i]) is None for i in range(15, 20))
    assert decoder.status == RECOVERING and decoder.skipped == 6
    for index in range(20, COUNT):
        assert_shows(decoder.decode(packets[index]), images[index], index)
    assert decoder.status == "" and decoder.errors == 0


def test_an_untold_h264_loss_is_noticed_from_frame_num() -> None:
    images, packets = stream("h264")
    decoder = VideoDecoder("h264")
    decode_all(decoder, packets, range(0, 5))
    shown = decode_all(decoder, packets, range(6, 10))  # packet 5 never arrived
    assert all(frame is None for frame in shown.values())
    assert decoder.status == RECOVERING and decoder.skipped == 4
    for index in range(10, COUNT):
        assert_shows(decoder.decode(packets[index]), images[index], index)


def test_losing_a_key_frame_waits_for_the_next_one() -> None:
    images, packets = stream("h264")
    decoder = VideoDecoder("h264")
    decode_all(decoder, packets, range(0, 10))
    shown = decode_all(decoder, packets, range(11, COUNT))  # the key frame at 10 is lost
    assert all(shown[i] is None for i in range(11, 20))
    for index in range(20, COUNT):
        assert_shows(shown[index], images[index], index)


# VP9 and AV1 are left out: random bytes can be a valid frame there (a VP9 packet whose first
# bits read "show existing frame" is one byte long), shown until the next key frame.
@pytest.mark.parametrize("codec", ("h264", "h265", "vp8"))
def test_a_packet_of_random_bytes_is_refused_and_the_stream_recovers(codec: str) -> None:
    images, packets = stream(codec)
    decoder = VideoDecoder(codec)
    decode_all(decoder, packets, range(0, 4))
    garbage = np.random.default_rng(7).bytes(len(packets[4]))
    with pytest.raises(ConversionError, match="packet rejected"):
        decoder.decode(garbage)
    assert decoder.status == RECOVERING_ERROR and decoder.errors == 1
    assert all(decoder.decode(packets[i]) is None for i in range(5, 10))
    for index in range(10, COUNT):
        assert_shows(decoder.decode(packets[index]), images[index], index)


@pytest.mark.parametrize("seed", range(8))
def test_an_h264_packet_corrupt_inside_is_not_shown(seed: int) -> None:
    images, packets = stream("h264")
    decoder = VideoDecoder("h264")
    decode_all(decoder, packets, range(0, 4))
    packet = packets[4]
    half = len(packet) // 2  # headers intact, slice data garbage
    damaged = packet[:half] + np.random.default_rng(seed).bytes(len(packet) - half)
    with pytest.raises(ConversionError):
        decoder.decode(damaged)
    assert decoder.status == RECOVERING_ERROR
    assert all(decoder.decode(packets[i]) is None for i in range(5, 10))
    assert_shows(decoder.decode(packets[10]), images[10], 10)


def test_a_decoder_given_no_bytes_shows_nothing() -> None:
    decoder = VideoDecoder("h264")
    assert decoder.decode(b"") is None
    assert decoder.decode(b"\x00\x00\x01") is None  # a start code and nothing after it
    assert decoder.errors == 0


def test_superseded_packets_are_decoded_but_not_converted() -> None:
    images, packets = stream("h264")
    decoder = VideoDecoder("h264")
    assert all(decoder.decode(packets[i], picture=False) is None for i in range(0, 6))
    assert decoder.frames == 6
    assert_shows(decoder.decode(packets[6]), images[6], 6)  # the chain of references held


@pytest.mark.parametrize("name", ["mjpeg", "theora", "", "h264 "])
def test_unknown_codecs_are_refused_by_name(name: str) -> None:
    if name == "h264 ":
        assert VideoDecoder(name).codec == "h264"  # spaces and case do not matter
        return
    with pytest.raises(ConversionError, match="unknown video codec"):
        VideoDecoder(name)


@pytest.mark.parametrize("name", ["H265", "hevc", "h265"])
def test_h265_is_known_by_both_names(name: str) -> None:
    assert VideoDecoder(name).codec == "hevc"


def test_a_picture_larger_than_8192_a_side_is_refused() -> None:
    images = [np.zeros((16, 8208, 3), np.uint8)]
    packets = encode_stream("h264", images, GOP)
    decoder = VideoDecoder("h264")
    with pytest.raises(ConversionError):
        decoder.decode(packets[0])
    assert decoder.status == RECOVERING_ERROR and decoder.errors == 1
