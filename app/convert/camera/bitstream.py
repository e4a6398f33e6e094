"""What a decoder needs to know before it decodes a packet, read from the bitstream itself:
is it a key frame (a place to start or restart), and — for H.264 — was a reference picture
lost just before it. Neither bow ImageSamples nor foxglove CompressedVideo carry a key flag.

Packets are one access unit each: Annex B for H.264/H.265, one frame (or superframe) for
VP8/VP9, low-overhead-format OBUs for AV1 (foxglove's CompressedVideo rules).
"""

from __future__ import annotations

from collections.abc import Iterator

H264_IDR = 5
H264_SLICE = 1
H264_SPS = 7
H264_PPS = 8
_H264_HIGH_PROFILES = {100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135}
H265_IRAP = range(16, 22)  # BLA, IDR, CRA
AV1_SEQUENCE_HEADER = 1
AV1_FRAME_HEADER = 3
AV1_FRAME = 6


def nal_units(data: bytes) -> Iterator[int]:
    """Offsets of the first byte after each Annex B start code."""
    at = data.find(b"\x00\x00\x01")
    while at >= 0:
        at += 3
        if at < len(data):
            yield at
        at = data.find(b"\x00\x00\x01", at)


def is_key_frame(codec: str, data: bytes) -> bool:
    """True when decoding can start at this packet. ``codec`` is a canonical name:
    h264, hevc, vp8, vp9, av1."""
    if codec == "h264":
        return any(data[at] & 0x1F == H264_IDR for at in nal_units(data))
    if codec == "hevc":
        return any((data[at] >> 1) & 0x3F in H265_IRAP for at in nal_units(data))
    if codec == "vp8":  # frame tag bit 0 clear, then the key frame start code
        return len(data) >= 6 and not data[0] & 1 and data[3:6] == b"\x9d\x01\x2a"
    if codec == "vp9":
        return _vp9_key(data)
    if codec == "av1":
        return _av1_key(data)
    return False


def _vp9_key(data: bytes) -> bool:
    if not data:
        return False
    reader = _Bits(data)
    if reader.bits(2) != 2:  # frame_marker
        return False
    profile = reader.bit() | reader.bit() << 1
    if profile == 3:
        reader.bit()  # reserved_zero
    if reader.bit():  # show_existing_frame
        return False
    return reader.bit() == 0  # frame_type: KEY_FRAME


def _av1_key(data: bytes) -> bool:
    """A sequence header (foxglove: every key frame carries one) and a key frame header."""
    seen_sequence = reduced_still = False
    at = 0
    while at < len(data):
        header = data[at]
        obu_type = (header >> 3) & 0xF
        has_extension, has_size = header & 4, header & 2
        at += 2 if has_extension else 1
        if has_size:
            size, at = _leb128(data, at)
        else:
            size = len(data) - at
        payload = data[at:at + size]
        at += size
        if obu_type == AV1_SEQUENCE_HEADER and payload:
            seen_sequence = True
            reduced_still = bool(payload[0] & 0x08)  # seq_profile(3) still_picture(1) reduced(1)
        elif obu_type in (AV1_FRAME_HEADER, AV1_FRAME) and payload:
            if not seen_sequence:
                return False
            if reduced_still:
                return True
            # show_existing_frame(1) then frame_type(2): KEY_FRAME is 0
            return not payload[0] & 0x80 and payload[0] & 0x60 == 0
    return False


def _leb128(data: bytes, at: int) -> tuple[int, int]:
    value = 0
    for i in range(8):
        if at >= len(data):
            break
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << (7 * i)
        if not byte & 0x80:
            break
    return value, at


class H264Gaps:
    """Tells, from ``frame_num``, that a reference picture went missing before a picture.

    ``frame_num`` counts reference pictures modulo MaxFrameNum: each picture carries the
    previous reference picture's number or one more. A lost non-reference picture leaves no
    trace and harms nothing. Streams that allow gaps (``gaps_in_frame_num_allowed``) are not
    checked; an MMCO 5 reset reads as a loss (the decoder then waits for the next key frame).
    """

    def __init__(self) -> None:
        self._sps: dict[int, tuple[int, bool, bool]] = {}  # id -> max_frame_num, sep. colour, gaps
        self._pps: dict[int, int] = {}  # id -> sps id
        self._previous_ref: int | None = None

    def reset(self) -> None:
        self._previous_ref = None

    def lost_before(self, data: bytes) -> bool:
        """Reads one access unit; True when a reference picture is missing before it."""
        for at in nal_units(data):
            kind = data[at] & 0x1F
            if kind == H264_SPS:
                self._read_sps(_rbsp(data, at + 1, 512))  # scaling lists can be long
            elif kind == H264_PPS:
                reader = _Bits(_rbsp(data, at + 1, 8))
                self._pps[reader.ue()] = reader.ue()
            elif kind in (H264_SLICE, H264_IDR):
                return self._slice(data, at, kind)
        return False

    def _slice(self, data: bytes, at: int, kind: int) -> bool:
        reader = _Bits(_rbsp(data, at + 1, 16))
        reader.ue()  # first_mb_in_slice
        reader.ue()  # slice_type
        sps = self._sps.get(self._pps.get(reader.ue(), -1))
        if sps is None:
            self._previous_ref = None
            return False
        max_frame_num, separate_colour, gaps_allowed = sps
        if separate_colour:
            reader.bits(2)
        frame_num = reader.bits(max_frame_num.bit_length() - 1)
        previous = self._previous_ref
        lost = (kind != H264_IDR and previous is not None and not gaps_allowed
                and frame_num not in (previous, (previous + 1) % max_frame_num))
        if data[at] & 0x60:  # nal_ref_idc: a reference picture
            self._previous_ref = frame_num
        return lost

    def _read_sps(self, rbsp: bytes) -> None:
        reader = _Bits(rbsp)
        profile = reader.bits(8)
        reader.bits(16)  # constraint flags, level
        sps_id = reader.ue()
        separate_colour = False
        if profile in _H264_HIGH_PROFILES:
            chroma = reader.ue()
            if chroma == 3:
                separate_colour = bool(reader.bit())
            reader.ue()  # bit_depth_luma
            reader.ue()  # bit_depth_chroma
            reader.bit()  # qpprime_y_zero_transform_bypass
            if reader.bit():  # seq_scaling_matrix_present
                for i in range(12 if chroma == 3 else 8):
                    if reader.bit():
                        _skip_scaling_list(reader, 16 if i < 6 else 64)
        max_frame_num = 1 << (reader.ue() + 4)
        poc_type = reader.ue()
        if poc_type == 0:
            reader.ue()
        elif poc_type == 1:
            reader.bit()
            reader.se()
            reader.se()
            for _ in range(reader.ue()):
                reader.se()
        reader.ue()  # max_num_ref_frames
        gaps_allowed = bool(reader.bit())
        self._sps[sps_id] = (max_frame_num, separate_colour, gaps_allowed)


def _skip_scaling_list(reader: _Bits, size: int) -> None:
    last = following = 8
    for _ in range(size):
        if following:
            following = (last + reader.se() + 256) % 256
        last = following or last


def _rbsp(data: bytes, start: int, limit: int) -> bytes:
    """Up to ``limit`` bytes of a NAL unit's payload with emulation prevention removed."""
    return data[start:start + limit].replace(b"\x00\x00\x03", b"\x00\x00")


class _Bits:
    """Big-endian bit reader; reads past the end give zeros (a truncated header then reads
    as harmless values rather than raising)."""

    __slots__ = ("_at", "_data")

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._at = 0

    def bit(self) -> int:
        byte = self._at >> 3
        value = (self._data[byte] >> (7 - (self._at & 7))) & 1 if byte < len(self._data) else 0
        self._at += 1
        return value

    def bits(self, count: int) -> int:
        value = 0
        for _ in range(count):
            value = value << 1 | self.bit()
        return value

    def ue(self) -> int:
        zeros = 0
        while not self.bit():
            zeros += 1
            if zeros > 31:
                return 0
        return (1 << zeros) - 1 + self.bits(zeros)

    def se(self) -> int:
        value = self.ue()
        return (value + 1) // 2 if value & 1 else -(value // 2)
