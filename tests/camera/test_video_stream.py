"""A camera panel's video feed over real deliveries: Cap'n Proto bytes of foxglove
CompressedVideo and bow ImageSamples as the bus hands them to a key's lane."""

from __future__ import annotations

import functools
import threading
import time

import cv2
import numpy as np
import pytest

from app.bus.subscription import RawSample
from app.camera.video_stream import VideoFeed, VideoSnapshot
from app.codec.decode import encoding_for
from app.codec.errors import DecodeError
from app.codec.registry import registry
from app.convert.camera.video import RECOVERING, WAITING
from app.station.lane import Delivery
from tests.convert.camera.streams import encode, pictures

COUNT = 25
GOP = 10
KEY = "fleet/cam-1/camera"
SOURCE = "head_camera_vp8"
STAMP = 1_700_000_000.25


@functools.cache
def stream(codec: str) -> tuple[list[np.ndarray], list[bytes]]:
    images = pictures(COUNT)
    return images, encode(codec, images, GOP)


class Lane:
    """Hands samples to a feed as a key's lane does, numbering them like a subscription."""

    def __init__(self, feed: VideoFeed) -> None:
        self.feed = feed
        self.seq = 0
        self.errors: list[DecodeError] = []

    def deliver(self, type_name: str, payload: bytes, superseded: bool = False) -> VideoSnapshot:
        self.seq += 1
        sample = RawSample(KEY, encoding_for(type_name), payload, None, time.monotonic(),
                           time.time(), None, self.seq)
        self.feed.on_delivery(Delivery(sample, lambda _key, exc: self.errors.append(exc),
                                       superseded))
        return self.feed.latest()


def compressed_video(packet: bytes, index: int, video_format: str = "h264") -> bytes:
    msg = registry().struct("foxglove.CompressedVideo").new_message()
    msg.timestamp.sec = int(STAMP) + index
    msg.timestamp.nsec = 250_000_000
    msg.frameId = "front_camera"
    msg.data = packet
    msg.format = video_format
    return msg.to_bytes()


def image_samples(packet: bytes, frame_number: int, image: np.ndarray) -> bytes:
    """A still JPEG first, then the video sample: a feed for "" takes the video one."""
    msg = registry().struct("bow.ImageSamples").new_message()
    still, video = msg.init("samples", 2)
    still.source = "head_camera"
    still.data = cv2.imencode(".jpg", image[:, :, ::-1])[1].tobytes()
    still.compression = "jpg"
    still.dataShape = [image.shape[1], image.shape[0], 3]
    video.source = SOURCE
    video.data = packet
    video.compression = "vp8"
    video.dataShape = [image.shape[1], image.shape[0], 3]
    video.frameNumber = frame_number
    return msg.to_bytes()


def assert_picture(snapshot: VideoSnapshot, image: np.ndarray) -> None:
    assert snapshot.frame is not None
    assert snapshot.frame.image.shape == image.shape
    assert np.abs(snapshot.frame.image.astype(np.int16) - image).mean() < 8.0


def test_compressed_video_shows_each_picture_with_its_stamp_and_frame() -> None:
    images, packets = stream("h264")
    lane = Lane(VideoFeed())
    for index, packet in enumerate(packets):
        snapshot = lane.deliver("foxglove.CompressedVideo", compressed_video(packet, index))
        assert snapshot.version == index + 1
        assert_picture(snapshot, images[index])
        frame = snapshot.frame
        assert frame is not None
        assert frame.stamp == pytest.approx(STAMP + index)
        assert (frame.frame_id, frame.encoding) == ("front_camera", "h264")
        assert snapshot.status == "" and snapshot.error == ""
        lane.feed.taken(snapshot.version)
    assert (snapshot.decoded, snapshot.dropped, snapshot.skipped) == (COUNT, 0, 0)
    assert 0 < snapshot.decode_s < 1.0


def test_a_picture_comes_with_a_preview_the_size_of_the_view() -> None:
    images, packets = stream("h264")
    feed = VideoFeed()
    lane = Lane(feed)
    snapshot = lane.deliver("foxglove.CompressedVideo", compressed_video(packets[0], 0))
    assert snapshot.frame is not None and snapshot.frame.preview is None  # no size asked yet
    feed.fit = (160, 200)  # the view: 160 x 200 screen pixels
    snapshot = lane.deliver("foxglove.CompressedVideo", compressed_video(packets[1], 1))
    frame = snapshot.frame
    assert frame is not None and frame.preview is not None
    assert frame.preview.shape[:2] == (120, 160) and frame.preview_scale == 0.5
    shrunk = cv2.resize(images[1], (160, 120), interpolation=cv2.INTER_AREA)
    assert np.abs(frame.preview[..., 2::-1].astype(np.int16) - shrunk).mean() < 8.0
    feed.fit = (640, 480)  # larger than the picture: drawn as it is
    snapshot = lane.deliver("foxglove.CompressedVideo", compressed_video(packets[2], 2))
    assert snapshot.frame is not None and snapshot.frame.preview is None


def test_pictures_the_gui_never_took_count_as_dropped() -> None:
    _, packets = stream("h264")
    lane = Lane(VideoFeed())
    for index in range(5):
        snapshot = lane.deliver("foxglove.CompressedVideo", compressed_video(packets[index], index))
    assert (snapshot.version, snapshot.decoded, snapshot.dropped) == (5, 5, 4)
    lane.feed.taken(5)
    snapshot = lane.deliver("foxglove.CompressedVideo", compressed_video(packets[5], 5))
    assert snapshot.dropped == 4  # the fifth was shown


def test_superseded_packets_are_decoded_and_only_the_newest_shown() -> None:
    images, packets = stream("h264")
    lane = Lane(VideoFeed())
    for index in range(8):  # a backlog: all but the last had a newer one waiting
        snapshot = lane.deliver("foxglove.CompressedVideo",
                                compressed_video(packets[index], index), superseded=index < 7)
    assert (snapshot.version, snapshot.decoded, snapshot.dropped) == (1, 8, 7)
    assert_picture(snapshot, images[7])


def test_joining_mid_stream_says_waiting_until_a_key_frame() -> None:
    images, packets = stream("h264")
    lane = Lane(VideoFeed())
    for index in range(4, 10):
        snapshot = lane.deliver("foxglove.CompressedVideo", compressed_video(packets[index], index))
        assert snapshot.frame is None and snapshot.status == WAITING
    assert snapshot.skipped == 6
    snapshot = lane.deliver("foxglove.CompressedVideo", compressed_video(packets[10], 10))
    assert snapshot.status == ""
    assert_picture(snapshot, images[10])


def test_bow_frame_number_gap_keeps_the_last_good_picture_until_a_key_frame() -> None:
    images, packets = stream("vp8")
    lane = Lane(VideoFeed())
    for index in range(6):
        snapshot = lane.deliver("bow.ImageSamples",
                                image_samples(packets[index], index + 1, images[index]))
        assert_picture(snapshot, images[index])
        assert snapshot.frame is not None and snapshot.frame.source == SOURCE
    # sample 7 (frameNumber 7) is lost
    for index in range(7, 10):
        snapshot = lane.deliver("bow.ImageSamples",
                                image_samples(packets[index], index + 1, images[index]))
        assert snapshot.status == RECOVERING and snapshot.version == 6
        assert_picture(snapshot, images[5])  # still the last good one, never a broken one
    snapshot = lane.deliver("bow.ImageSamples", image_samples(packets[10], 11, images[10]))
    assert snapshot.status == "" and snapshot.version == 7
    assert_picture(snapshot, images[10])


def test_bow_frame_numbers_that_do_not_count_are_not_gaps() -> None:
    images, packets = stream("vp8")
    lane = Lane(VideoFeed())
    for index in range(8):  # unique identifiers, but not consecutive
        snapshot = lane.deliver("bow.ImageSamples",
                                image_samples(packets[index], 1000 + 5 * index, images[index]))
        assert snapshot.status == ""
        assert_picture(snapshot, images[index])


def test_a_feed_names_its_bow_source() -> None:
    images, packets = stream("vp8")
    lane = Lane(VideoFeed(source="rear_camera"))
    snapshot = lane.deliver("bow.ImageSamples", image_samples(packets[0], 1, images[0]))
    assert snapshot.frame is None and "rear_camera" in snapshot.error
    lane = Lane(VideoFeed(source=SOURCE))
    assert_picture(lane.deliver("bow.ImageSamples", image_samples(packets[0], 1, images[0])),
                   images[0])


def test_bad_samples_show_an_error_and_keep_the_picture() -> None:
    images, packets = stream("h264")
    lane = Lane(VideoFeed())
    lane.deliver("foxglove.CompressedVideo", compressed_video(packets[0], 0))
    snapshot = lane.deliver("foxglove.CompressedVideo", b"\x00\x01\x02")
    assert snapshot.error and snapshot.version == 1 and len(lane.errors) == 1
    snapshot = lane.deliver("foxglove.CompressedVideo",
                            compressed_video(packets[1], 1, video_format="mjpeg"))
    assert "unknown video codec 'mjpeg'" in snapshot.error
    snapshot = lane.deliver("foxglove.CompressedVideo", compressed_video(b"garbage", 2))
    assert "packet rejected" in snapshot.error and snapshot.version == 1
    assert_picture(snapshot, images[0])
    snapshot = lane.deliver("bow.ImageSamples", compressed_video(packets[3], 3))
    assert snapshot.error  # foxglove bytes under a bow encoding: a decode error, no exception


def test_the_gui_thread_reads_whole_snapshots_while_the_lane_decodes() -> None:
    images, packets = stream("h264")
    lane = Lane(VideoFeed())
    seen: list[VideoSnapshot] = []
    done = threading.Event()

    def gui() -> None:
        while not done.is_set():
            snapshot = lane.feed.latest()
            seen.append(snapshot)
            lane.feed.taken(snapshot.version)
            time.sleep(0.0005)

    reader = threading.Thread(target=gui)
    reader.start()
    try:
        for index, packet in enumerate(packets):
            lane.deliver("foxglove.CompressedVideo", compressed_video(packet, index))
    finally:
        done.set()
        reader.join()
    for snapshot in seen:
        if snapshot.frame is not None:  # each version carries its own picture
            index = snapshot.version - 1
            assert snapshot.frame.stamp == pytest.approx(STAMP + index)
            assert_picture(snapshot, images[index])
    final = lane.feed.latest()
    assert final.version == COUNT and final.decoded == COUNT
