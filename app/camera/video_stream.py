"""A camera panel's video key: every sample decoded in order on the key's lane, the newest
picture handed to the GUI thread as a frozen snapshot.

Video needs every packet (each picture is built on the ones before), so a video key is a
``Stream`` interest, not a newest-wins conversion. A packet whose sample was already
superseded when its lane took it is still decoded, but its picture is not converted to RGB:
nobody would see it. Loss is told to the decoder from bow's ``frameNumber``; foxglove
CompressedVideo has no counter, so there the decoder's own H.264 ``frame_num`` check is what
notices (``RawSample.seq`` counts a subscription's arrivals over all its keys, not a key's).
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from app.codec.errors import DecodeError
from app.codec.stamps import best_time
from app.convert.camera.display import preview_of
from app.convert.camera.model import CameraFrame
from app.convert.camera.video import VideoDecoder
from app.convert.capnp_data import converting
from app.convert.registry import ConversionError

if TYPE_CHECKING:
    from app.station.lane import Delivery

VIDEO_COMPRESSIONS = frozenset({"h264", "h265", "vp8", "vp9"})  # bow ImageSample
COMPRESSED_VIDEO = "foxglove.CompressedVideo"
IMAGE_SAMPLES = "bow.ImageSamples"


@dataclass(frozen=True)
class VideoSnapshot:
    frame: CameraFrame | None = None  # the newest picture; kept while the stream recovers
    version: int = 0  # one more for each picture published
    status: str = ""  # the decoder's: "waiting for a key frame", "recovering ...", ""
    error: str = ""  # the newest problem with a sample; "" once a picture decodes again
    decoded: int = 0  # pictures decoded
    dropped: int = 0  # pictures decoded but never shown (replaced before the GUI took them)
    skipped: int = 0  # packets not decoded while waiting for a key frame
    decode_s: float = 0.0  # thread CPU decoding and converting the newest picture


class VideoFeed:
    """What the camera panel holds for one video key. ``on_delivery`` runs on the key's lane
    thread; ``latest`` and ``taken`` on the GUI thread."""

    def __init__(self, source: str = "", on_picture: Callable[[], None] | None = None) -> None:
        self.source = source  # bow: the ImageSample's ``source``; "" = the first video one
        # The view's size (``CameraView.fit_size``), set by the GUI thread: each shown picture
        # gets a preview scaled to it here, so the GUI thread does not scale 1080p per frame.
        self.fit: tuple[int, int] | None = None
        self._on_picture = on_picture  # told when a new picture is ready (wakes the display)
        self._sources: tuple[str, ...] = ()  # the cameras a bow message carries
        self._decoder: VideoDecoder | None = None
        self._format = ""
        self._frame_number: int | None = None
        self._numbered = False  # frameNumber was seen counting by one
        self._lock = threading.Lock()
        self._snapshot = VideoSnapshot()
        self._taken = 0
        self._dropped = 0
        self._decoded = 0
        self._skipped_before = 0  # packets skipped by decoders this feed replaced

    def latest(self) -> VideoSnapshot:
        return self._snapshot

    def sources(self) -> tuple[str, ...]:
        """The cameras (bow ``source``) the newest message carried; () for other types."""
        return self._sources

    def taken(self, version: int) -> None:
        """The GUI showed the snapshot of ``version``; pictures it never took are dropped."""
        with self._lock:
            self._taken = max(self._taken, version)

    def on_delivery(self, delivery: Delivery) -> None:
        try:
            message = delivery.message()
            if message.type_name == COMPRESSED_VIDEO:
                frame = self._compressed_video(message, delivery)
            elif message.type_name == IMAGE_SAMPLES:
                frame = self._image_samples(message, delivery)
            else:
                raise ConversionError(f"{message.type_name} is not a video message")
        except (DecodeError, ConversionError) as exc:
            self._publish(None, str(exc) or type(exc).__name__)
        else:
            self._publish(self._with_preview(frame), "")

    # -- the lane thread -----------------------------------------------------------------
    def _compressed_video(self, message: Any, delivery: Delivery) -> CameraFrame | None:
        root = message.root
        with converting(COMPRESSED_VIDEO):
            video_format = str(root.format)
            frame_id = str(root.frameId)
            data = root.data  # bytes: the decoder reads the bitstream itself
        decoder = self._decoder_for(video_format)
        stamp = self._stamp(root, delivery)
        frame = self._decode(decoder, data, stamp, False, delivery.superseded)
        return dataclasses.replace(frame, frame_id=frame_id) if frame is not None else None

    def _image_samples(self, message: Any, delivery: Delivery) -> CameraFrame | None:
        root = message.root
        with converting(IMAGE_SAMPLES):
            sources = tuple(str(s.source) for s in root.samples)
            if sources != self._sources:
                self._sources = sources
            sample = self._pick(root.samples)
            if sample is None:
                raise ConversionError(f"no image sample {self.source!r}" if self.source
                                      else "no video image sample")
            compression = str(sample.compression)
            if compression not in VIDEO_COMPRESSIONS:
                if delivery.superseded:
                    return None
                from app.convert.camera.images import image_frame  # stills: their own decoders

                return image_frame(message, source=self.source, fit=self.fit)
            source = str(sample.source)
            lost = self._gap(int(sample.frameNumber))
            data = sample.data
        decoder = self._decoder_for(compression)
        frame = self._decode(decoder, data, self._stamp(root, delivery), lost,
                             delivery.superseded)
        return dataclasses.replace(frame, source=source) if frame is not None else None

    def _with_preview(self, frame: CameraFrame | None) -> CameraFrame | None:
        fit = self.fit
        if frame is None or frame.preview is not None or fit is None:
            return frame  # a still of a bow message has its preview already, if asked
        started = time.thread_time()
        preview, scale = preview_of(frame.drawn(), fit)
        if preview is None:
            return frame
        return dataclasses.replace(frame, preview=preview, preview_scale=scale,
                                   decode_s=frame.decode_s + time.thread_time() - started)

    def _pick(self, samples: Any) -> Any:
        for sample in samples:
            if self.source:
                if sample.source == self.source:
                    return sample
            elif str(sample.compression) in VIDEO_COMPRESSIONS:
                return sample
        if not self.source and len(samples):
            return samples[0]  # stills only: the first, as ``image_frame`` picks it
        return None

    def _gap(self, number: int) -> bool:
        """A bow frameNumber that skipped ahead (the seed calls it only a unique identifier,
        so gaps count once it was seen counting by one; 0 = not set)."""
        previous, self._frame_number = self._frame_number, number or None
        if not number or previous is None:
            return False
        if number == previous + 1:
            self._numbered = True
            return False
        return self._numbered

    def _decoder_for(self, codec: str) -> VideoDecoder:
        if self._decoder is None or codec != self._format:
            if self._decoder is not None:
                self._skipped_before += self._decoder.skipped
            self._decoder = VideoDecoder(codec)  # ConversionError for an unknown codec
            self._format = codec
        return self._decoder

    @staticmethod
    def _stamp(root: Any, delivery: Delivery) -> float:
        sample = delivery.sample
        return best_time(root, sample.source_time, sample.received)[0]

    def _decode(self, decoder: VideoDecoder, data: Any, stamp: float, lost: bool,
                superseded: bool) -> CameraFrame | None:
        before = decoder.frames
        try:
            frame = decoder.decode(data, stamp, lost=lost, picture=not superseded)
        finally:
            produced = decoder.frames - before
            self._decoded += produced
            if superseded:
                self._dropped += produced
        return frame

    def _publish(self, frame: CameraFrame | None, error: str) -> None:
        decoder = self._decoder
        with self._lock:
            previous = self._snapshot
            version = previous.version
            if frame is None and not error:
                error = previous.error
            if frame is not None:
                if previous.frame is not None and self._taken < version:
                    self._dropped += 1
                version += 1
            self._snapshot = VideoSnapshot(
                frame if frame is not None else previous.frame, version,
                decoder.status if decoder is not None else "", error,
                self._decoded, self._dropped,
                self._skipped_before + (decoder.skipped if decoder is not None else 0),
                frame.decode_s if frame is not None else previous.decode_s)
        if frame is not None and self._on_picture is not None:
            self._on_picture()
