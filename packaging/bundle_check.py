"""What the bundle must carry beyond what ``--self-test`` touches: each library is imported
and made to use its data files or native parts, one ``ok <name>: <detail>`` line each.

Run from the bundle with ``FIELDSTATION_BUNDLE_CHECK=1 dist/fieldstation/fieldstation`` on a
display (the vispy check renders with OpenGL). It exits 1 with the failures listed, so a
missing hook shows up in CI, not on a field laptop.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable
from pathlib import Path


def _vispy() -> str:
    """Renders a tiny scene the way the 3D view does (on its render thread, offscreen, read
    back): shaders from the bundle, the PySide6 backend and the system's OpenGL driver
    loaded next to the bundle's libraries (needs a display, e.g. Xvfb)."""
    import numpy as np
    import vispy
    import vispy.scene

    from widgets.scene_view import PacedCanvas

    canvas = PacedCanvas(size=(64, 48), show=False, bgcolor="black")
    try:
        view = canvas.central_widget.add_view()
        markers = vispy.scene.visuals.Markers(parent=view.scene)
        markers.set_data(np.zeros((3, 3), np.float32), face_color="white", size=10)
        pixels = canvas.native.render_now()
        renderer = canvas.native.renderer
    finally:
        canvas.close()
    if not pixels[..., :3].any():
        raise RuntimeError("vispy rendered a black image")
    return f"{vispy.__version__}, rendered {pixels.shape[1]}x{pixels.shape[0]} with {renderer}"


def _capnp() -> str:
    import capnp

    own = Path(capnp.__file__).parent
    missing = [n for n in ("c++.capnp", "schema.capnp") if not (own / n).is_file()]
    if missing:
        raise FileNotFoundError(f"pycapnp's own schemas missing in {own}: {missing}")
    schema = capnp.load(str(own / "schema.capnp"), imports=[str(own.parent)])
    return f"{capnp.__version__}, loaded capnp/schema.capnp ({len(dir(schema))} names)"


def _schemas() -> str:
    from schemas.loader import FAMILIES, SCHEMA_DIR, load_family

    files = sum(len(load_family(family)) for family in FAMILIES)
    return f"{files} files of {len(FAMILIES)} families from {SCHEMA_DIR}"


def _resources() -> str:
    from app import resources

    if not resources.ROOT.is_dir():
        raise FileNotFoundError(f"no resources folder at {resources.ROOT}")
    count = sum(1 for p in resources.ROOT.rglob("*") if p.is_file())
    return f"{count} files in {resources.ROOT}"


def _zenoh() -> str:
    import zenoh

    config = zenoh.Config()
    config.insert_json5("scouting/multicast/enabled", "false")  # stay off the network
    session = zenoh.open(config)
    session.close()
    return "native module loaded, session opened and closed"


def _pygame() -> str:
    """The gamepad thread as the app starts it: pygame's SDL game-controller module and the
    mapping database shipped in resources/."""
    import threading

    from app.inputs.gamepad import MAPPING_DB, Gamepad

    if not MAPPING_DB.is_file():
        raise FileNotFoundError(f"no game-controller database at {MAPPING_DB}")
    first = threading.Event()
    gamepad = Gamepad(lambda state: first.set())
    gamepad.start()
    try:
        if gamepad.error or not first.wait(5):
            raise RuntimeError(gamepad.error or "the gamepad thread sent no reading")
    finally:
        gamepad.stop()
    import pygame

    return f"{pygame.version.ver}, SDL {'.'.join(map(str, pygame.get_sdl_version()))}, " \
           f"gamepad thread ran, mappings from {MAPPING_DB}"


def _cv2() -> str:
    import cv2
    import numpy as np

    image = np.zeros((8, 8, 3), np.uint8)
    ok, jpeg = cv2.imencode(".jpg", image)
    if not ok or cv2.imdecode(jpeg, cv2.IMREAD_COLOR).shape != image.shape:
        raise RuntimeError("JPEG round trip failed")
    return f"{cv2.__version__}, JPEG round trip, numpy {np.__version__}"


def _video() -> str:
    """PyAV's bundled FFmpeg: an H.264 frame encoded and decoded back; simplejpeg too."""
    import av
    import numpy as np
    import simplejpeg

    encoder = av.CodecContext.create("libx264", "w")
    encoder.width, encoder.height, encoder.pix_fmt = 64, 48, "yuv420p"
    frame = av.VideoFrame.from_ndarray(np.full((48, 64, 3), 200, np.uint8), format="rgb24")
    packets = [*encoder.encode(frame.reformat(format="yuv420p")), *encoder.encode(None)]
    decoder = av.CodecContext.create("h264", "r")
    pictures = [p for packet in [*packets, None] for p in decoder.decode(packet)]
    if not pictures:
        raise RuntimeError("H.264 round trip gave no picture")
    jpeg = simplejpeg.encode_jpeg(np.zeros((8, 8, 3), np.uint8))
    if simplejpeg.decode_jpeg(jpeg).shape != (8, 8, 3):
        raise RuntimeError("simplejpeg round trip failed")
    return f"av {av.__version__} (FFmpeg), H.264 round trip; simplejpeg {simplejpeg.__version__}"


def _mcap() -> str:
    """Logs: an MCAP file with lz4 and zstd chunks written and read back; protobuf (foreign
    logs' descriptors)."""
    import io
    from importlib.metadata import version

    import google.protobuf
    from mcap.reader import make_reader
    from mcap.writer import CompressionType, Writer

    for compression in (CompressionType.LZ4, CompressionType.ZSTD):
        buffer = io.BytesIO()
        writer = Writer(buffer, compression=compression)
        writer.start()
        schema = writer.register_schema("check", "capnp", b"")
        channel = writer.register_channel("fleet/check", "capnp", schema)
        writer.add_message(channel, log_time=1, data=b"x" * 100, publish_time=1)
        writer.finish()
        buffer.seek(0)
        if [m.data for _, _, m in make_reader(buffer).iter_messages()] != [b"x" * 100]:
            raise RuntimeError(f"MCAP {compression.name} round trip failed")
    return (f"mcap {version('mcap')}, lz4 + zstd round trip; "
            f"protobuf {google.protobuf.__version__}")


def _pyqtgraph() -> str:
    import pyqtgraph

    return pyqtgraph.__version__


def _qt_plugins() -> str:
    from PySide6.QtCore import QLibraryInfo
    from PySide6.QtGui import QImageReader

    plugins = Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.PluginsPath))
    wanted = ["platforms/libqxcb.so", "platforms/libqoffscreen.so",
              "imageformats/libqsvg.so", "iconengines/libqsvgicon.so"]
    if sys.platform.startswith("linux"):
        missing = [w for w in wanted if not (plugins / w).is_file()]
        if missing:
            raise FileNotFoundError(f"Qt plugins missing in {plugins}: {missing}")
    formats = {bytes(f).decode() for f in QImageReader.supportedImageFormats()}
    if "svg" not in formats:
        raise RuntimeError(f"no svg image format (have {sorted(formats)})")
    return f"plugins in {plugins}, svg readable"


def _metadata() -> str:
    from importlib.metadata import entry_points, version

    names = ("fieldstation", "eclipse-zenoh", "pycapnp", "PySide6-Essentials")
    versions = ", ".join(f"{name} {version(name)}" for name in names)
    groups = [ep.value for ep in entry_points(group="fieldstation.panels")]
    if not groups:
        raise LookupError("no fieldstation.panels entry point")
    return f"{versions}; panels entry point {groups}"


CHECKS: dict[str, Callable[[], str]] = {
    "metadata": _metadata, "schemas": _schemas, "resources": _resources, "capnp": _capnp,
    "zenoh": _zenoh, "qt-plugins": _qt_plugins, "pyqtgraph": _pyqtgraph, "vispy": _vispy,
    "pygame": _pygame, "cv2": _cv2, "video": _video, "mcap": _mcap,
}


def check() -> int:
    failed = []
    for name, probe in CHECKS.items():
        try:
            print(f"ok {name}: {probe()}", flush=True)
        except Exception as exc:  # every failure is reported, then the exit status says it
            traceback.print_exc(file=sys.stderr)
            print(f"FAILED {name}: {exc}", flush=True)
            failed.append(name)
    print(f"bundle check: {len(CHECKS) - len(failed)}/{len(CHECKS)} ok", flush=True)
    return 1 if failed else 0
