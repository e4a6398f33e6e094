"""One compressed video stream decoded packet by packet with PyAV, into display frames.

The decoder starts at a key frame and restarts at one after anything that breaks the chain of
references: a packet the caller saw go missing (``lost``), a reference picture missing from
the H.264 ``frame_num`` sequence, a packet FFmpeg rejects, or a picture FFmpeg marks corrupt.
Until that key frame nothing is shown: packets are not fed, so no picture built on missing
references (grey smears, stale blocks) ever reaches the screen.
"""

from __future__ import annotations

import time
from typing import Any, NoReturn

import av
import numpy as np

from app.convert.camera.bitstream import H264Gaps, is_key_frame
from app.convert.camera.model import CameraFrame
from app.convert.registry import ConversionError

MAX_SIDE = 8192
WAITING = "waiting for a key frame"
RECOVERING = "recovering after a lost packet (waiting for a key frame)"
RECOVERING_ERROR = "recovering after a decode error (waiting for a key frame)"

# foxglove CompressedVideo ``format`` and bow ImageSample ``compression`` -> canonical name
CODECS = {"h264": "h264", "h265": "hevc", "hevc": "hevc", "vp8": "vp8", "vp9": "vp9",
          "av1": "av1"}
# canonical name -> FFmpeg decoder, options. Every decoder runs SLICE threading: FRAME/AUTO
# hold pictures back two packets (67 ms at 30 fps), and a context dropped with pictures held
# back hangs PyAV 18. At 720p SLICE costs HEVC/VP8/VP9 ~0.3 ms more a frame than FRAME, well
# within a live rate. Native av1 needs hardware: dav1d, allowed one frame in flight.
# H.264 "aggressive" error recognition also refuses slices with bits left over after their
# last macroblock, which is how much garbage in a damaged packet ends (the rest decodes
# "correctly" into a smeared picture).
_DECODERS = {"h264": ("h264", {"err_detect": "+aggressive"}), "hevc": ("hevc", {}),
             "vp8": ("vp8", {}), "vp9": ("vp9", {}),
             "av1": ("libdav1d", {"max_frame_delay": "1"})}


def canonical_codec(name: str) -> str:
    """The decoder's name for a foxglove ``format`` / bow ``compression``; ConversionError
    for one it does not know."""
    codec = CODECS.get(name.strip().lower())
    if codec is None:
        raise ConversionError(f"unknown video codec {name!r} (known: {', '.join(CODECS)})")
    return codec


class VideoDecoder:
    """One stream's decoder; not thread-safe (one lane feeds it)."""

    def __init__(self, codec: str) -> None:
        self.codec = canonical_codec(codec)
        self.frames = 0  # pictures decoded
        self.errors = 0  # packets FFmpeg rejected, pictures it marked corrupt
        self.skipped = 0  # packets not decoded while waiting for a key frame
        self.status = WAITING
        self._waiting = True
        self._started = False  # a key frame was decoded since the decoder was made
        self._gaps = H264Gaps() if self.codec == "h264" else None
        name, options = _DECODERS[self.codec]
        self._context: Any = av.CodecContext.create(name, "r")
        self._context.thread_type = "SLICE"
        self._context.options = {**options, "max_pixels": str(MAX_SIDE * MAX_SIDE)}

    def mark_lost(self) -> None:
        """A packet of this stream went missing: show nothing until the next key frame."""
        self._restart(RECOVERING)

    def decode(self, data: bytes | memoryview | np.ndarray, stamp: float = 0.0,
               lost: bool = False, picture: bool = True) -> CameraFrame | None:
        """Feeds one packet; returns the newest picture it produced, if any.

        ``lost``: a packet went missing just before this one. ``picture=False`` decodes
        without converting the picture (a newer packet is already waiting). Raises
        ConversionError for a packet or picture that cannot be shown (the decoder then waits
        for the next key frame).
        """
        started = time.thread_time()
        if lost:
            self.mark_lost()
        packet = bytes(data) if not isinstance(data, bytes) else data
        if not packet:
            return None
        if self._waiting:
            if not is_key_frame(self.codec, packet):
                self.skipped += 1
                return None
            self._waiting = False
            self._started = True
            self.status = ""
            if self._gaps is not None:
                self._gaps.reset()
        if self._gaps is not None and self._gaps.lost_before(packet):
            self._restart(RECOVERING)
            self.skipped += 1
            return None
        try:
            frames = self._context.decode(av.Packet(packet))
        except ValueError as exc:  # av.FFmpegError is one
            self._fail(f"{self.codec} packet rejected: {exc}")
        if not frames:
            return None
        self.frames += len(frames)
        newest = frames[-1]
        if newest.is_corrupt:
            self._fail(f"{self.codec} picture corrupt")
        if not picture:
            return None
        if newest.width > MAX_SIDE or newest.height > MAX_SIDE:
            self._fail(f"{newest.width}x{newest.height} video is larger than {MAX_SIDE} a side")
        display = _display_of(newest)
        return CameraFrame(display[..., 2::-1], stamp=stamp, encoding=self.codec,
                           decode_s=time.thread_time() - started, display=display)

    def _restart(self, status: str) -> None:
        if not self._waiting:
            self._context.flush_buffers()
        self._waiting = True
        self.status = status if self._started else WAITING

    def _fail(self, message: str) -> NoReturn:
        self.errors += 1
        self._restart(RECOVERING_ERROR)
        raise ConversionError(message)


def _display_of(picture: av.VideoFrame) -> np.ndarray:
    """The picture as B, G, R, A bytes (what the view draws), converted by swscale straight
    into a frame of its own and read in place: 0.66 ms at 1080p from 4:2:0, as fast as its
    RGB. (``to_ndarray(format="bgra")`` takes 2.5 ms, OpenCV's I420 -> BGRA 1.8 ms.)"""
    converted = picture.reformat(format="bgra")
    plane = converted.planes[0]
    rows = np.frombuffer(memoryview(plane), np.uint8).reshape(converted.height, plane.line_size)
    return rows[:, :converted.width * 4].reshape(converted.height, converted.width, 4)
