"""A robot written from the wire contract alone (``../shared/PROTOCOL.md`` and
``schemas/README.md``), not from the project's simulator: plain zenoh and pycapnp reading the
``.capnp`` files of ``schemas/``, no ``app`` module. It checks the station the way another
team's firmware would meet it.

    python -m tests.contract_robot --listen tcp/127.0.0.1:PORT --id NAME [options]
    python -m tests.contract_robot --connect tcp/127.0.0.1:PORT --id NAME [options]

Each ``--id`` (it may be given more than once: robots behind one gateway) declares its
liveliness token ``fleet/<id>`` first, serves ``fleet/<id>/catalog`` (model
``CTR-9 contract rover``) and publishes, at modest rates: an isaac ``ImageProto`` on
``front/image`` (its pixels in the attachment: the left half pink, the right half green), an
isaac ``PointCloudProto`` on ``lidar/cloud`` (an orange wall of points 4 m ahead, its colours
in the attachment too), fleet ``Uplink`` battery (``BATTERY_PCT`` %), status, and an active
major fault ``E-OVERTEMP`` repeated every 2 s (the contract asks for at least every 5 s).

Bad input, for the station's sake: ``--catalog missing`` (no queryable), ``--catalog empty``
(a catalog that lists no topic), ``--catalog late`` (the full catalog, answered only after
6 s), ``--catalog phantom`` (it also lists a camera and a cloud it
never publishes). It prints ``ready`` once its tokens are declared and runs until its stdin
closes or it gets SIGTERM; the session is closed on the way out.
"""

from __future__ import annotations

import argparse
import json
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from types import FrameType, ModuleType
from typing import Any

SCHEMAS = Path(__file__).resolve().parents[1] / "schemas"
ROOT = "fleet"
MODEL = "CTR-9 contract rover"
BATTERY_PCT = 73.0
FAULT_CODE = "E-OVERTEMP"
FAULT_MESSAGE = "drive motor over temperature (71 °C)"
PINK = (250, 20, 180)  # the image's left half
GREEN = (20, 200, 90)  # the image's right half
ORANGE = (255, 140, 0)  # every point of the cloud
IMAGE_SIZE = (120, 160)  # rows, cols
CLOUD_POINTS = 3000
CATALOGS = ("full", "missing", "empty", "phantom", "late")
LATE_CATALOG_S = 4.0  # --catalog late: no answer before this, the full catalog after
# (key after fleet/<id>/, type, rate Hz, frame); the rates the robot really keeps
TOPICS = (
    ("front/image", "isaac.ImageProto", 5.0, "front_camera"),
    ("lidar/cloud", "isaac.PointCloudProto", 2.0, "base_link"),
    ("uplink/battery", "fleet.Uplink", 1.0, ""),
    ("uplink/status", "fleet.Uplink", 1.0, ""),
    ("uplink/fault", "fleet.Uplink", 0.5, ""),
)
PHANTOMS = (  # listed by --catalog phantom, never published
    ("rear/image", "isaac.ImageProto", 5.0, "rear_camera"),
    ("lidar/rear", "isaac.PointCloudProto", 2.0, "base_link"),
)


def load_schemas() -> dict[str, ModuleType]:
    """The families this robot speaks, loaded straight from the contract's .capnp files."""
    import capnp

    capnp.remove_import_hook()
    return {name: capnp.load(str(SCHEMAS / f"{name}.capnp"), imports=[str(SCHEMAS)])
            for name in ("transport", "fleet", "isaac")}


def zenoh_config(listen: list[str], connect: list[str], mode: str) -> Any:
    import zenoh

    conf = zenoh.Config()
    conf.insert_json5("mode", json.dumps(mode))
    conf.insert_json5("listen/endpoints", json.dumps(listen))
    conf.insert_json5("connect/endpoints", json.dumps(connect))
    conf.insert_json5("scouting/multicast/enabled", "false")
    conf.insert_json5("scouting/gossip/enabled", "false")
    conf.insert_json5("timestamping/enabled",  # the contract: publishers stamp
                      '{"router": true, "peer": true, "client": true}')
    return conf


class Robot:
    """One robot id on a session: token, catalog queryable, and what it publishes."""

    def __init__(self, session: Any, schemas: dict[str, ModuleType], robot_id: str,
                 catalog: str) -> None:
        import numpy as np

        self.session, self.schemas, self.robot_id = session, schemas, robot_id
        self.prefix = f"{ROOT}/{robot_id}"
        self.token = session.liveliness().declare_token(self.prefix)  # before any sample
        self.queryable = None
        self._late: threading.Timer | None = None
        if catalog == "late":  # a slow robot: its catalog answers only after a while
            self._late = threading.Timer(LATE_CATALOG_S, self._serve_catalog, ("full",))
            self._late.start()
        elif catalog != "missing":
            self._serve_catalog(catalog)
        self.publishers = {suffix: session.declare_publisher(f"{self.prefix}/{suffix}")
                           for suffix, *_ in TOPICS}
        rows, cols = IMAGE_SIZE
        pixels = np.empty((rows, cols, 3), np.uint8)
        pixels[:, : cols // 2] = PINK
        pixels[:, cols // 2:] = GREEN
        self.pixels = pixels.tobytes()
        angles = np.linspace(-0.6, 0.6, CLOUD_POINTS // 30, dtype=np.float32)
        heights = np.linspace(0.0, 1.5, 30, dtype=np.float32)
        a, h = np.meshgrid(angles, heights)
        points = np.stack([4.0 * np.cos(a), 4.0 * np.sin(a), h], axis=-1).reshape(-1, 3)
        self.points = points.astype("<f4").tobytes()
        self.point_count = len(points)
        self.colours = np.tile(np.array(ORANGE, np.uint8), (len(points), 1)).tobytes()
        self.started = time.time()
        self.raised_ms = int(self.started * 1000)

    def _serve_catalog(self, kind: str) -> None:
        payload = self._catalog(kind)
        key = f"{self.prefix}/catalog"
        self.queryable = self.session.declare_queryable(
            key, lambda query: query.reply(key, payload,
                                           encoding="application/capnp;transport.Catalog"))

    def _catalog(self, kind: str) -> bytes:
        msg = self.schemas["transport"].Catalog.new_message(
            robotId=self.robot_id, name=f"Contract robot {self.robot_id}", model=MODEL)
        if kind == "empty":
            return msg.to_bytes()
        msg.families = ["fleet", "isaac"]
        listed = TOPICS + PHANTOMS if kind == "phantom" else TOPICS
        items = msg.init("topics", len(listed))
        for item, (suffix, type_name, rate, frame) in zip(items, listed, strict=True):
            item.key, item.type, item.rateHz = f"{self.prefix}/{suffix}", type_name, rate
            item.frameId = frame
        return msg.to_bytes()

    def _put(self, suffix: str, type_name: str, payload: bytes,
             attachment: bytes | None = None) -> None:
        self.publishers[suffix].put(payload, encoding=f"application/capnp;{type_name}",
                                    attachment=attachment)

    def _uplink(self) -> Any:
        return self.schemas["fleet"].Uplink.new_message(
            robotId=self.robot_id, unixTimeMs=int(time.time() * 1000))

    def publish(self, suffix: str) -> None:
        isaac, transport = self.schemas["isaac"], self.schemas["transport"]
        if suffix == "front/image":
            rows, cols = IMAGE_SIZE
            image = isaac.ImageProto.new_message(elementType="uint8", rows=rows, cols=cols,
                                                 channels=3, dataBufferIndex=0)
            buffers = transport.Buffers.new_message(buffers=[self.pixels])
            self._put(suffix, "isaac.ImageProto", image.to_bytes(), buffers.to_bytes())
        elif suffix == "lidar/cloud":
            cloud = isaac.PointCloudProto.new_message()
            for name, element, index in (("positions", "float32", 0), ("colors", "uint8", 1)):
                tensor = cloud.init(name)
                tensor.elementType, tensor.dataBufferIndex = element, index
                tensor.sizes = [self.point_count, 3]
            buffers = transport.Buffers.new_message(buffers=[self.points, self.colours])
            self._put(suffix, "isaac.PointCloudProto", cloud.to_bytes(), buffers.to_bytes())
        elif suffix == "uplink/battery":
            up = self._uplink()
            battery = up.init("battery")
            battery.percentage, battery.voltageV, battery.currentA = BATTERY_PCT, 24.6, -2.1
            battery.temperatureC = 31.0
            battery.status, battery.health, battery.technology = "discharging", "good", "liIon"
            battery.runtimeRemainingS, battery.hasRuntimeRemainingS = 4800.0, True
            self._put(suffix, "fleet.Uplink", up.to_bytes())
        elif suffix == "uplink/status":
            up = self._uplink()
            status = up.init("status")
            status.mode, status.estop = "idle", False
            status.uptimeS = time.time() - self.started
            self._put(suffix, "fleet.Uplink", up.to_bytes())
        elif suffix == "uplink/fault":
            up = self._uplink()
            fault = up.init("fault")
            fault.code, fault.severity, fault.message = FAULT_CODE, "major", FAULT_MESSAGE
            fault.active, fault.source, fault.raisedUnixTimeMs = True, "drive", self.raised_ms
            self._put(suffix, "fleet.Uplink", up.to_bytes())

    def close(self) -> None:
        if self._late is not None:
            self._late.cancel()
        for publisher in self.publishers.values():
            publisher.undeclare()
        if self.queryable is not None:
            self.queryable.undeclare()
        self.token.undeclare()


def run(listen: list[str], connect: list[str], robot_ids: list[str], catalog: str,
        mode: str, stop: threading.Event) -> None:
    """Runs the robots until ``stop`` is set, then closes everything."""
    import zenoh

    schemas = load_schemas()
    session = zenoh.open(zenoh_config(listen, connect, mode))
    robots: list[Robot] = []
    try:
        robots = [Robot(session, schemas, robot_id, catalog) for robot_id in robot_ids]
        print("ready", flush=True)
        due = dict.fromkeys((suffix for suffix, *_ in TOPICS), time.monotonic())
        periods = {suffix: 1.0 / rate for suffix, _, rate, _ in TOPICS}
        while not stop.is_set():
            now = time.monotonic()
            for suffix, at in due.items():
                if now >= at:
                    due[suffix] = max(at + periods[suffix], now)
                    for robot in robots:
                        robot.publish(suffix)
            stop.wait(max(0.0, min(due.values()) - time.monotonic()))
    finally:
        for robot in robots:
            robot.close()
        session.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--listen", action="append", default=[], metavar="ENDPOINT")
    parser.add_argument("--connect", action="append", default=[], metavar="ENDPOINT")
    parser.add_argument("--id", dest="ids", action="append", required=True, metavar="NAME")
    parser.add_argument("--catalog", choices=CATALOGS, default="full")
    parser.add_argument("--mode", choices=("peer", "router", "client"), default="peer")
    args = parser.parse_args(argv)
    stop = threading.Event()

    def on_signal(_signum: int, _frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    def until_stdin_closes() -> None:
        sys.stdin.read()
        stop.set()

    threading.Thread(target=until_stdin_closes, daemon=True).start()
    run(args.listen, args.connect, args.ids, args.catalog, args.mode, stop)
    return 0


class ContractRobot:
    """The robot in a process of its own, for tests: ``start()`` returns once its tokens
    are declared, ``stop()`` closes its session (its tokens go at once), ``kill()`` ends it
    without a goodbye (its tokens go when the zenoh lease runs out or the link drops)."""

    def __init__(self, *robot_ids: str, listen: str = "", connect: str = "",
                 catalog: str = "full", mode: str = "peer") -> None:
        self.robot_ids = robot_ids
        self.command = [sys.executable, "-m", "tests.contract_robot", "--catalog", catalog,
                        "--mode", mode]
        self.command += [a for r in robot_ids for a in ("--id", r)]
        self.command += ["--listen", listen] if listen else []
        self.command += ["--connect", connect] if connect else []
        self.process: subprocess.Popen[str] | None = None
        # its stderr: a pipe nobody reads could fill; closed with the robot
        self._log = tempfile.TemporaryFile("w+")  # noqa: SIM115

    def start(self, timeout_s: float = 20.0) -> ContractRobot:
        self.process = subprocess.Popen(
            self.command, cwd=SCHEMAS.parent, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self._log, text=True)
        lines: list[str] = []
        reader = threading.Thread(
            target=lambda: lines.append(self.process.stdout.readline()  # type: ignore[union-attr]
                                        ), daemon=True)
        reader.start()
        reader.join(timeout_s)
        if not lines or lines[0].strip() != "ready":
            self.kill()
            raise RuntimeError(f"contract robot did not start: {self.stderr()[-2000:]}")
        return self

    def stderr(self) -> str:
        self._log.seek(0)
        return self._log.read()

    def stop(self, timeout_s: float = 10.0) -> None:
        process = self.process
        if process is None or process.poll() is not None:
            return
        try:
            process.stdin.close()  # type: ignore[union-attr]
            process.wait(timeout_s)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout_s)
        finally:
            self._close_pipes()

    def kill(self) -> None:
        process = self.process
        if process is None:
            return
        if process.poll() is None:
            process.kill()
            process.wait(10)
        self._close_pipes()

    def _close_pipes(self) -> None:
        if self.process is not None:
            for pipe in (self.process.stdin, self.process.stdout):
                if pipe is not None and not pipe.closed:
                    pipe.close()
        self._log.close()

    def __enter__(self) -> ContractRobot:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()


if __name__ == "__main__":
    sys.exit(main())
