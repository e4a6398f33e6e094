"""The ``fieldstation`` command line: robots, topics, echo, sim, teleop, record, play, info.

``--connect``, ``--listen`` and ``--zenoh-config`` work before or after the subcommand.
Every failure a user can cause ends in one readable line and a non-zero exit.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import math
import os
import re
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from app import heap, render_text
from app.bus import catalog as catalog_mod
from app.bus.claim_book import ClaimBook
from app.bus.config import DEFAULT_ENDPOINT, BusConfig, file_mode
from app.bus.keys import DEFAULT_ROOT, check_key_expr, check_robot_id
from app.bus.presence import PresenceTracker
from app.bus.session import BusError, BusSession
from app.bus.subscription import Subscription
from app.codec.errors import DecodeError
from app.codec.fields import items_budget, plain
from app.codec.stamps import best_time
from app.ros2.source import RosSource, catalog_of, ros2_topics

if TYPE_CHECKING:
    from app.station.identity import StationIdentity
    from app.station.ros2_robot_names import RobotNames
    from app.station.station import Station

PRESENCE_SETTLE_S = 1.0
MAX_LIDAR_HZ = 100.0  # the simulated robots tick at 100 Hz
MAX_CAMERA_SIDE = 7680
MAX_FLEET = 1000
MAX_LIGHT_FLEET = 2000
CONNECT_WAIT_S = 10.0


class CliError(Exception):
    """A failure explained in one line; exit status 1."""


def plain_text(text: str) -> str:
    """Help text without the reST markup of the docstrings it comes from: ``code``,
    :class:`x` and `x` read as code, x and x."""
    return re.sub(r"(?::[a-z]+:)?`{1,2}([^`]+)`{1,2}", r"\1", text)


class _Parser(argparse.ArgumentParser):
    def format_help(self) -> str:
        return plain_text(super().format_help())

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def app_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("fieldstation")
    except PackageNotFoundError:
        return "0+unknown"


def _connection_options(parser: argparse.ArgumentParser, suppress: bool) -> None:
    default = argparse.SUPPRESS if suppress else None
    group = parser.add_argument_group("connection")
    group.add_argument("--connect", action="append", metavar="ENDPOINT", default=default,
                       help=f"zenoh endpoint to connect to (default {DEFAULT_ENDPOINT})")
    group.add_argument("--listen", action="append", metavar="ENDPOINT", default=default,
                       help="zenoh endpoint to listen on")
    group.add_argument("--zenoh-config", metavar="FILE", default=default,
                       help="zenoh config file (also ZENOH_CONFIG)")
    group.add_argument("--mode", choices=("peer", "client"), default=default,
                       help="zenoh session mode when connecting (default: the config file's, "
                            "else peer)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="fieldstation", description=__doc__.split("\n", 1)[0])
    parser.add_argument("--version", action="version",
                        version=f"fieldstation {app_version()}")
    _connection_options(parser, suppress=False)
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    def command(name: str, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text)
        _connection_options(p, suppress=True)
        return p

    command("robots", "online robots with their catalogs")
    topics = command("topics", "live topics: key, type, rate, bandwidth, errors")
    topics.add_argument("--robot", metavar="ID", help="only this robot's topics")
    topics.add_argument("--duration", type=float, default=2.0, metavar="S",
                        help="seconds to listen (default 2)")
    echo = command("echo", "print decoded samples of a key (any family, any registered type) "
                           "or of a ROS 2 topic")
    echo.add_argument("key", help="key expression, e.g. fleet/rover-1/uplink/battery, or a "
                                  "ROS 2 topic on rmw_zenoh, e.g. /rover_1/odom")
    echo.add_argument("--count", type=int, metavar="N", help="stop after N samples")
    echo.add_argument("--json", action="store_true", help="one JSON object per line")
    echo.add_argument("--timeout", type=float, metavar="S",
                      help="give up after S seconds without a sample")
    sim = command("sim", "run the simulated fleet")
    sim.add_argument("--robots", default="rover,humanoid,car",
                     help="comma-separated: rover, humanoid, car (default all)")
    sim.add_argument("--fleet", type=int, metavar="N",
                     help="a depot of N robots instead (half rovers, a quarter humanoids, a "
                          "quarter cars), every one a client of the one router")
    sim.add_argument("--heavy", type=int, metavar="K",
                     help="with --fleet: the first K robots of each kind carry their full "
                          "sensors (lidar cloud, cameras; default 1), the others small topics")
    sim.add_argument("--light", action="store_true",
                     help=f"with --fleet (up to {MAX_LIGHT_FLEET}): light robots only, a few "
                          "sessions for them all, each robot its own token and catalog; small "
                          "topics at fleet-link rates (status, pose, battery, faults), a patrol "
                          "around its place; obeys teleop, e-stop (rovers) and bow/autoware "
                          "motion commands, stopping 0.5 s after the last; no missions, goals, "
                          "settings or services; not with --heavy")
    sim.add_argument("--points", type=int, default=200_000,
                     help="rover point-cloud size (default 200000; up to 1000000 and more)")
    sim.add_argument("--lidar-hz", type=float, default=5.0, metavar="HZ",
                     help="rover lidar rate in Hz (default 5; at most 100, the sim's tick rate), "
                          "e.g. --points 1000000 --lidar-hz 10")
    sim.add_argument("--camera", default="640x480", metavar="WxH",
                     help="rover camera size (default 640x480), e.g. 1920x1080")
    sim.add_argument("--robot-config", metavar="FILE",
                     help="zenoh config of the robots' client sessions (TLS CA, user and "
                          "password for a hub that wants them; its connect endpoints, else "
                          "where the hub listens); the hub's own is --zenoh-config")
    sim.add_argument("--exit-with-stdin", action="store_true",
                     help="stop when standard input closes (the app's embedded fleet uses this "
                          "so the fleet never outlives the app)")
    command("demo", "run the simulated fleet in-process and print its live topics")
    teleop = command("teleop", "drive a robot with a game controller; one status line; "
                               "'e' + Enter = e-stop, 'release' + Enter releases it, Ctrl-C ends")
    teleop.add_argument("--robot", required=True, metavar="ID", help="the robot to drive")
    teleop.add_argument("--profile", metavar="NAME",
                        help="a teleop profile: its name (saved by the GUI) or a .json file "
                             "(default: the built-in one)")
    teleop.add_argument("--rate", type=float, default=20.0, metavar="HZ",
                        help="command rate in Hz (default 20)")
    teleop.add_argument("--ros-input", metavar="NAME",
                        help="a ROS 2 robot: the velocity input to drive, by its name under "
                             "the robot's namespace (default: the one chosen in the window, "
                             "else its cmd_vel)")
    record = command("record", "record the robots' topics to an MCAP file until Ctrl-C")
    record.add_argument("file", help="the .mcap file to write")
    record.add_argument("--keys", action="append", metavar="EXPR",
                        help="key expression to record (repeatable; default every topic)")
    record.add_argument("--duration", type=float, metavar="S", help="stop after S seconds")
    record.add_argument("--compression", choices=("lz4", "zstd", "none"), default="lz4",
                        help="chunk compression (default lz4)")
    record.add_argument("--split-mb", type=float, metavar="MB",
                        help="start a new file (FILE-001.mcap, ...) every MB megabytes")
    record.add_argument("--split-s", type=float, metavar="S",
                        help="start a new file every S seconds")
    record.add_argument("--black-box", type=float, metavar="S", nargs="?", const=60.0,
                        help="keep only the last S seconds (default 60) in memory; write them "
                             "to FILE-<time>.mcap on SIGUSR1 and at the end")
    play = command("play", "play an MCAP log back onto zenoh (its robots come back online)")
    play.add_argument("file", help="the .mcap file to play")
    play.add_argument("--rate", type=float, default=1.0, metavar="X",
                      help="speed: 0.1 to 10 (default 1)")
    play.add_argument("--loop", action="store_true", help="start again at the end")
    info = command("info", "what an MCAP log holds: channels, types, counts, duration, size")
    info.add_argument("file", help="the .mcap file")
    parser.add_argument("--no-sim", action="store_true",
                        help="do not start the embedded simulated fleet (real robots)")
    parser.add_argument("--layout", metavar="NAME",
                        help="start the window with this layout (a shipped one such as "
                             "\"Teleop station\", or one saved under that name)")
    parser.add_argument("--self-test", action="store_true",
                        help="check schemas, zenoh and every panel, then exit (0 = healthy)")
    parser.add_argument("--log", metavar="FILE",
                        help="start the window playing this MCAP log (also: fieldstation "
                             "FILE.mcap)")
    return parser


def log_file_first(argv: Sequence[str], parser: argparse.ArgumentParser) -> list[str]:
    """``fieldstation FILE.mcap [options]`` as ``fieldstation --log FILE.mcap [options]``:
    a first positional word that names no subcommand is a log to open (as
    ``foxglove-studio FILE.mcap`` opens one)."""
    argv = list(argv)
    takes_value = {option for action in parser._actions if action.nargs is None
                   for option in action.option_strings}
    at = 0
    while at < len(argv):
        word = argv[at]
        if not word.startswith("-"):
            break
        at += 2 if word in takes_value else 1
    if at >= len(argv) or argv[at] in COMMANDS:
        return argv
    return [*argv[:at], "--log", argv[at], *argv[at + 1:]]


def bus_config(args: argparse.Namespace, *, default_connect: bool) -> BusConfig:
    connect = args.connect or ([] if args.zenoh_config or not default_connect
                               else [DEFAULT_ENDPOINT])
    return BusConfig.from_env(
        mode=args.mode,
        connect=connect,
        listen=args.listen or [],
        config_file=args.zenoh_config,
        must_connect=bool(connect),
    )


def open_bus(args: argparse.Namespace) -> BusSession:
    config = bus_config(args, default_connect=True)
    try:
        return BusSession(config)
    except FileNotFoundError as exc:
        raise CliError(str(exc)) from None
    except BusError as exc:
        hint = "" if args.connect or args.zenoh_config else (
            " — is `fieldstation sim` running? Or pass --connect ENDPOINT"
        )
        raise CliError(f"{exc}{hint}") from None


def cmd_robots(args: argparse.Namespace, out: Callable[[str], None]) -> int:
    with open_bus(args) as bus:
        presence = PresenceTracker(bus)
        claims = ClaimBook(bus, DEFAULT_ROOT)
        ros2 = _ros2_beside(bus)
        time.sleep(PRESENCE_SETTLE_S)
        ros2.update()
        robots = presence.robots()
        ros_robots = ros2.robots()
        holders = claims.holders()
        if not robots and not ros_robots:
            ros2.close()
            out("no robots online")
            return 0
        rows = []
        for robot_id, state in sorted(robots.items()):
            if not state.online:
                rows.append([robot_id, "offline", "", "", "", "", ""])
                continue
            cat = catalog_mod.catalog_of(bus, robot_id)
            holder = holders.get(robot_id)
            rows.append([robot_id, "online", cat.name or "-", cat.model or "-",
                         ",".join(cat.families) or "-",
                         f"{len(cat.topics)} topics, {len(cat.commands)} commands"
                         + (" (discovered)" if cat.discovered else ""),
                         holder.label if holder is not None else "-"])
        for robot_id, robot in sorted(ros_robots.items()):  # ROS 2 robots: from their graph
            cat = catalog_of(robot, DEFAULT_ROOT, ros2.types)
            holder = holders.get(robot_id)
            rows.append([robot_id, "online", robot.namespace or "/", cat.model, "ros2",
                         f"{len(cat.topics)} topics, {len(cat.commands)} commands, "
                         f"{len(robot.nodes)} node{'' if len(robot.nodes) == 1 else 's'}",
                         holder.label if holder is not None else "-"])
        ros2.close()
        out(render_text.table(["robot", "state", "name", "model", "families", "catalog",
                               "controlled by"], rows))
    return 0


def _valid(check: Callable[[str], str], text: str) -> str:
    """``text`` if ``check`` accepts it; else a CliError with the reason, before any
    connection is opened."""
    try:
        return check(text)
    except ValueError as exc:
        raise CliError(str(exc)) from None


def cmd_topics(args: argparse.Namespace, out: Callable[[str], None]) -> int:
    key_expr = f"fleet/{_valid(check_robot_id, args.robot)}/**" if args.robot else "fleet/**"
    with open_bus(args) as bus:
        sub = Subscription(bus, key_expr, depth=256)
        ros2 = _ros2_beside(bus, sub)
        duration = max(0.2, args.duration)
        deadline = time.monotonic() + duration
        ros2_found = False
        while time.monotonic() < deadline:
            time.sleep(0.1)
            ros2.update()  # a ROS 2 robot's topics, translated, are heard as ours are
            if not ros2_found and ros2.robots():
                # its graph came while listening: its topics are listened to as long too
                ros2_found, deadline = True, time.monotonic() + duration
            for sample in sub.take():
                # A failure is counted on its topic and shown in the errors column.
                with contextlib.suppress(DecodeError):
                    sub.decode(sample)
        stats = sub.stats()
        ros_robots = ros2.robots()
        ros2.close()
    if not stats and not ros_robots:
        out(f"no samples on {key_expr} in {args.duration:g} s")
        return 0
    # what was heard while listening, however late its last sample came (a loaded machine)
    rows = [[key, s.type_name or "-", render_text.human_rate(s.rate_hz(s.last_arrival)),
             render_text.human_bytes_per_s(s.bandwidth_bps(s.last_arrival)),
             str(s.error_count) + (f" ({s.last_error})" if s.error_count else "")]
            for key, s in sorted(stats.items())]
    out(render_text.table(["key", "type", "rate", "bandwidth", "errors"], rows))
    graph = [[topic.name, topic.type_name, robot_id, key or "- (type not known here)"]
             for robot_id, robot in sorted(ros_robots.items())
             if not args.robot or robot_id == args.robot
             for topic, key in ros2_topics(robot, DEFAULT_ROOT, ros2.types)]
    if graph:
        out("")
        out("ROS 2 topics (rmw_zenoh), heard above under their key:")
        out(render_text.table(["ROS 2 topic", "ROS 2 type", "robot", "key"], graph))
    return 0


def _ros2_beside(bus: BusSession, sub: Subscription | None = None) -> RosSource:
    """The ROS 2 graph on ``bus``, saying nothing on it: its robots' topics said again,
    translated, on their fleet keys for ``sub`` to hear (their bad samples counted on it);
    its robots known by the ids this station gives them."""
    source = RosSource(bus, DEFAULT_ROOT, on_presence=lambda _presence: None,
                       on_catalog=lambda _robot_id, _catalog: None,
                       count_error=sub.record_error if sub is not None
                       else lambda _key, _error: None, wake=lambda: None, drive=False)
    source.name_robots(_ros_robot_names().names)
    return source


def _ros_robot_names() -> RobotNames:
    """The ids this station's config dir gives ROS 2 robots; each entry refused is said."""
    from app.station.config_folder import config_dir
    from app.station.ros2_robot_names import read_robot_names

    names = read_robot_names(config_dir())
    for line in names.refused:
        print(f"fieldstation: refused: {line}", file=sys.stderr)
    return names


def cmd_echo(args: argparse.Namespace, out: Callable[[str], None]) -> int:
    if args.count is not None and args.count < 1:
        raise CliError("--count must be at least 1")
    if args.key.startswith("/"):
        return echo_ros2(args, out)
    _valid(check_key_expr, args.key)
    received = threading.Event()
    with open_bus(args) as bus:
        sub = Subscription(bus, args.key, depth=64, on_sample=lambda _s: received.set())
        ros2 = _ros2_beside(bus, sub)
        printed = 0
        last_sample = time.monotonic()
        while args.count is None or printed < args.count:
            ros2.update()
            if not received.wait(0.2):
                if args.timeout and time.monotonic() - last_sample > args.timeout:
                    raise CliError(f"no sample on {args.key} in {args.timeout:g} s")
                continue
            received.clear()
            for sample in sub.take():
                last_sample = time.monotonic()
                try:
                    message = sub.decode(sample)
                    shown = plain(message.root, max_list=None if args.json else 8,
                                  max_items=items_budget(message.size))
                except DecodeError as exc:
                    print(f"{sample.key}: dropped ({exc.kind}): {exc}", file=sys.stderr)
                    continue
                stamp, clock = best_time(message.root, sample.source_time, sample.received)
                if args.json:
                    out(render_text.to_json({
                        "key": sample.key, "type": message.type_name, "time": stamp,
                        "clock": clock, "size": len(sample.payload),
                        "attachment": len(sample.attachment or b""),
                        "message": shown,
                    }))
                else:
                    size = f"{len(sample.payload)} B"
                    if sample.attachment:
                        size += f" + {len(sample.attachment)} B attachment"
                    out(f"--- {sample.key}  {message.type_name}  {_clock(stamp)} ({clock})  {size}")
                    out("\n".join(render_text.to_text(shown)))
                printed += 1
                if args.count is not None and printed >= args.count:
                    break
        ros2.close()
    return 0


def echo_ros2(args: argparse.Namespace, out: Callable[[str], None]) -> int:
    """``echo /rover_1/scan``: a ROS 2 topic's messages, decoded from its CDR, as JSON."""
    from app.ros2.echo import RosEcho

    with open_bus(args) as bus, RosEcho(bus, args.key) as echo:
        printed = 0
        while args.count is None or printed < args.count:
            try:
                shown = echo.next(args.timeout, max_list=None if args.json else 8)
            except DecodeError as exc:
                print(f"{args.key}: dropped ({exc.kind}): {exc}", file=sys.stderr)
                continue
            except TimeoutError as exc:
                raise CliError(str(exc)) from None
            if args.json:
                out(render_text.to_json(shown))
            else:
                out(f"--- {args.key}  {shown['type']}  {_clock(shown['time'])}  "
                    f"{shown['size']} B")
                out("\n".join(render_text.to_text(shown["message"])))
            printed += 1
    return 0


def _clock(stamp: float) -> str:
    return time.strftime("%H:%M:%S", time.localtime(stamp)) + f".{int(stamp % 1 * 1000):03d}"


def _wait_for_signal(exit_with_stdin: bool = False, deadline_s: float | None = None,
                     tick: Callable[[], None] = lambda: None,
                     done: Callable[[], bool] = lambda: False) -> None:
    """Until SIGINT / SIGTERM (or stdin closes, ``deadline_s`` passes, ``done()``); calls
    ``tick`` now and then meanwhile."""
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    if exit_with_stdin:
        def watch() -> None:
            sys.stdin.buffer.read()  # returns at end of file: the parent has gone
            stop.set()

        threading.Thread(target=watch, name="parent-watch", daemon=True).start()
    end = None if deadline_s is None else time.monotonic() + deadline_s
    while not stop.wait(0.2):
        tick()
        if done() or (end is not None and time.monotonic() >= end):
            return


def _camera_size(text: str) -> tuple[int, int]:
    width, _, height = text.lower().partition("x")
    try:
        size = int(width), int(height)
    except ValueError:
        raise CliError(f"--camera must be WIDTHxHEIGHT, e.g. 1920x1080, not {text!r}") from None
    if not all(16 <= side <= MAX_CAMERA_SIDE for side in size):
        raise CliError(f"--camera sides must be 16 to {MAX_CAMERA_SIDE} pixels")
    return size


def cmd_sim(args: argparse.Namespace, out: Callable[[str], None]) -> int:
    from app.sim.fleet import RobotsUnreachable, SimFleet, depot_robots
    from app.sim.light_depot import ROBOTS_PER_SESSION, light_depot_robots
    from app.sim.light_depot import TICK_HZ as LIGHT_TICK_HZ

    kinds = [k.strip() for k in args.robots.split(",") if k.strip()]
    if args.light and args.fleet is None:
        raise CliError("--light goes with --fleet N")
    if args.light and args.heavy is not None:
        raise CliError("--light robots are all light: leave out --heavy")
    most = MAX_LIGHT_FLEET if args.light else MAX_FLEET
    if args.fleet is not None and not 1 <= args.fleet <= most:
        raise CliError(f"--fleet must be 1 to {most} robots"
                       + ("" if args.light else f" ({MAX_LIGHT_FLEET} with --light)"))
    heavy = 1 if args.heavy is None else args.heavy
    if heavy < 0:
        raise CliError("--heavy must be 0 or more")
    if args.points < 1:
        raise CliError("--points must be positive")
    if not (math.isfinite(args.lidar_hz) and 0 < args.lidar_hz <= MAX_LIDAR_HZ):
        raise CliError(f"--lidar-hz must be more than 0 and at most {MAX_LIDAR_HZ:g}")
    camera = _camera_size(args.camera)
    listen = args.listen or ([] if args.connect or args.zenoh_config else [DEFAULT_ENDPOINT])
    depot: list[Any] | None = None
    if args.light:
        depot = light_depot_robots(args.fleet)
    elif args.fleet is not None:
        depot = depot_robots(args.fleet, heavy, args.points, args.lidar_hz, camera)
    # Light robots share a few sessions, a thread each; the others have their own.
    per_session, tick_hz = (ROBOTS_PER_SESSION, LIGHT_TICK_HZ) if args.light else (1, None)
    try:
        fleet = SimFleet(kinds, listen=listen, connect=args.connect or [], points=args.points,
                         config_file=args.zenoh_config, lidar_hz=args.lidar_hz,
                         camera_size=camera, robot_config_file=args.robot_config,
                         robots=depot, robots_per_session=per_session, tick_hz=tick_hz)
        fleet.start()
    except (ValueError, FileNotFoundError) as exc:
        raise CliError(str(exc)) from None
    except RobotsUnreachable as exc:
        hint = "" if args.robot_config else " — give them a config with --robot-config FILE"
        raise CliError(f"{exc}{hint}") from None
    except BusError as exc:
        raise CliError(f"{exc} — is another sim already listening there?") from None
    try:
        where = ", ".join(fleet.hub_listen() or args.connect or [])
        out(f"simulated fleet on {where}: {_fleet_summary(fleet.robots)} — Ctrl-C to stop")
        _wait_for_signal(args.exit_with_stdin)
    finally:
        fleet.stop()
    return 0


def _fleet_summary(robots: Sequence[Any]) -> str:
    """Each robot by id and model, or for a depot the count of each model."""
    if len(robots) <= 6:
        return ", ".join(f"{r.robot_id} ({r.model})" for r in robots)
    models: dict[str, int] = {}
    for robot in robots:
        models[robot.model] = models.get(robot.model, 0) + 1
    return f"{len(robots)} robots (" + ", ".join(f"{n} {m}" for m, n in models.items()) + ")"


def cmd_gui(args: argparse.Namespace, out: Callable[[str], None]) -> int:
    from app.qt.start import run_gui, self_test
    from app.station.connection import ConnectionChoice

    if args.self_test:
        return self_test()
    real = bool(args.no_sim or args.connect or args.zenoh_config or args.listen)
    choice = ConnectionChoice(
        simulation=not real, mode=args.mode or file_mode(args.zenoh_config),
        endpoints=args.connect or [],
        config_file=args.zenoh_config or "", listen=args.listen or [],
    )
    if real and not (choice.endpoints or choice.config_file or choice.listen):
        choice.endpoints = [DEFAULT_ENDPOINT]
    return run_gui(choice, layout=args.layout or "", log=Path(args.log) if args.log else None)


def cmd_demo(args: argparse.Namespace, out: Callable[[str], None]) -> int:
    from app.sim.fleet import ROBOT_KINDS, SimFleet

    endpoint = (args.listen or [DEFAULT_ENDPOINT])[0]
    try:
        fleet = SimFleet(list(ROBOT_KINDS), listen=[endpoint])
        fleet.start()
    except BusError as exc:
        raise CliError(f"{exc} — is `fieldstation sim` already running? "
                       "Then use `fieldstation topics`.") from None
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    try:
        args.connect, args.duration, args.robot = [endpoint], 2.0, None
        while not stop.is_set():
            out(f"\n=== live topics of the simulated fleet ({time.strftime('%H:%M:%S')}) ===")
            cmd_topics(args, out)
    finally:
        fleet.stop()
    return 0


def cmd_teleop(args: argparse.Namespace, out: Callable[[str], None]) -> int:
    from app.station.config_folder import config_dir
    from app.station.identity import load_identity
    from app.station.velocity_inputs import saved_velocity_inputs
    from app.teleop.clock import check_rate
    from app.teleop.terminal import TerminalOptions, TerminalTeleop, pick_profile

    robot = _valid(check_robot_id, args.robot)
    try:
        rate = check_rate(args.rate)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    profile, refused = pick_profile(args.profile, config_dir())
    if refused:
        print(f"fieldstation: {refused}", file=sys.stderr)
    station = _open_station(args, load_identity(config_dir()))
    chosen = saved_velocity_inputs(config_dir())
    if args.ros_input:
        chosen[robot] = args.ros_input
    for robot_id, name in chosen.items():
        station.choose_ros_velocity_input(robot_id, name)
    try:
        if not _wait(lambda: any(r.robot_id == robot for r in station.robots()),
                     PRESENCE_SETTLE_S * 3):
            online = ", ".join(sorted(r.robot_id for r in station.robots())) or "none"
            print(f"fieldstation: {robot} is not online yet (online: {online}); waiting",
                  file=sys.stderr)
        refused = station.authority.take(robot)
        if refused:
            raise CliError(f"{robot}: {refused}; this station ({station.identity.name}) "
                           "may not drive it")
        stop = threading.Event()
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                signal.signal(sig, lambda *_: stop.set())
        terminal = TerminalTeleop(station, TerminalOptions(robot, profile, rate),
                                  sys.stdin, sys.stdout, stop)
        out(f"teleop {robot}, profile {profile.name}, {rate:g} Hz: hold "
            f"{profile.deadman} to drive; 'e' + Enter = e-stop"
            + (f" (or {profile.estop})" if profile.estop else "")
            + ", 'release' + Enter releases it; Ctrl-C ends")
        terminal.run()
    finally:
        station.close()
    return 0


def _open_station(args: argparse.Namespace, identity: StationIdentity | None = None
                  ) -> Station:
    from app.station.station import Station

    config = bus_config(args, default_connect=True)
    config.must_connect = True  # a session that does not open is said, not tried again
    station = Station(config, identity=identity, ros_robot_names=_ros_robot_names())
    if not _wait(lambda: station.status.session != "connecting", CONNECT_WAIT_S):
        station.close()
        raise CliError("no zenoh session yet")
    if station.status.session == "error":
        station.close()
        hint = "" if args.connect or args.zenoh_config else (
            " — is `fieldstation sim` running? Or pass --connect ENDPOINT")
        raise CliError(f"{station.status.detail}{hint}")
    return station


def cmd_record(args: argparse.Namespace, out: Callable[[str], None]) -> int:
    from app.logbook.station_tap import StationTap
    from app.record.blackbox import BlackBox
    from app.record.info import human_size
    from app.record.writer import Recorder

    keys = [_valid(check_key_expr, k) for k in args.keys or []]
    path = Path(args.file)
    if args.black_box is not None and not 0 < args.black_box <= 3600:
        raise CliError("--black-box must be more than 0 and at most 3600 seconds")
    station = _open_station(args)
    sink: Recorder | BlackBox
    try:
        if args.black_box is not None:
            sink = BlackBox(seconds=args.black_box)
        else:
            sink = Recorder(path, compression=args.compression,
                            split_bytes=round(args.split_mb * 1e6) if args.split_mb else None,
                            split_s=args.split_s)
    except OSError as exc:
        station.close()
        raise CliError(f"cannot write {path}: {exc.strerror or exc}") from None
    tap = StationTap(station, sink, keys)
    saves = threading.Event()
    if isinstance(sink, BlackBox) and hasattr(signal, "SIGUSR1"):
        signal.signal(signal.SIGUSR1, lambda *_: saves.set())
    out(f"recording {', '.join(keys) or 'every topic'} "
        + (f"(black box, last {args.black_box:g} s) " if isinstance(sink, BlackBox) else "")
        + f"to {path} — Ctrl-C to stop")
    try:
        _wait_for_signal(deadline_s=args.duration, tick=lambda: _save_box(
            sink, tap, path, saves, out) if saves.is_set() else None)
    finally:
        tap.close()
        if isinstance(sink, BlackBox):
            saves.set()
            _save_box(sink, tap, path, saves, out)
        else:
            status = sink.close()
            dropped = sum(status.dropped.values())
            size = sum(f.stat().st_size for f in status.files if f.is_file())
            events = status.liveliness_events
            out(f"{status.messages} messages"  # as ``info`` counts them and sizes the files
                + (f" and {events} liveliness event(s)" if events else "")
                + f", {human_size(size)}, "
                f"{status.duration_s:.1f} s in {', '.join(str(f) for f in status.files)}"
                + (f"; {dropped} dropped" if dropped else "")
                + (f"; {status.error}" if status.error else ""))
        station.close()
    return 0


def _save_box(box: Any, tap: Any, path: Path, saves: threading.Event,
              out: Callable[[str], None]) -> None:
    saves.clear()
    target = path.with_name(f"{path.stem}-{time.strftime('%Y%m%d-%H%M%S')}{path.suffix}")
    box.save(target, tap.head())
    out(f"black box ({box.span_s():.1f} s) saved to {target}")


def cmd_play(args: argparse.Namespace, out: Callable[[str], None]) -> int:
    from app.record.foreign import foreign_translator
    from app.record.reader import LogError, LogReader
    from app.record.republish import Republisher

    if not (math.isfinite(args.rate) and 0.1 <= args.rate <= 10):
        raise CliError("--rate must be 0.1 to 10")
    try:
        reader = LogReader(Path(args.file), translate=foreign_translator())
    except LogError as exc:
        raise CliError(str(exc)) from None
    for problem in reader.problems:
        print(f"fieldstation: {problem}", file=sys.stderr)
    listen = args.listen or ([] if args.connect or args.zenoh_config else [DEFAULT_ENDPOINT])
    config = BusConfig.from_env(mode=args.mode, connect=args.connect or [],
                                listen=listen, config_file=args.zenoh_config)
    try:
        bus = BusSession(config)
    except BusError as exc:
        reader.close()
        raise CliError(str(exc)) from None
    with bus:
        player = Republisher(bus, reader, speed=args.rate, loop=args.loop)
        out(f"playing {args.file} ({(reader.end_ns - reader.start_ns) / 1e9:.1f} s) at "
            f"{args.rate:g}x on {', '.join(listen or args.connect or ['the configured session'])}"
            " — Ctrl-C to stop")
        player.start()
        try:
            _wait_for_signal(tick=lambda: None, done=player.done)
        finally:
            player.close()
        out(f"{player.sent} samples played"
            + (f"; {player.skipped_commands} commands not sent (a log never drives a robot)"
               if player.skipped_commands else ""))
    return 0


def cmd_info(args: argparse.Namespace, out: Callable[[str], None]) -> int:
    from app.record.foreign import foreign_translator
    from app.record.info import describe
    from app.record.reader import LogError, LogReader

    try:
        reader = LogReader(Path(args.file), translate=foreign_translator())
    except LogError as exc:
        raise CliError(str(exc)) from None
    try:
        out(describe(reader))
    finally:
        reader.close()
    return 0


def _wait(condition: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)
    return True


COMMANDS = {"robots": cmd_robots, "topics": cmd_topics, "echo": cmd_echo, "sim": cmd_sim,
            "demo": cmd_demo, "gui": cmd_gui, "teleop": cmd_teleop, "record": cmd_record,
            "play": cmd_play, "info": cmd_info}


def main(argv: Sequence[str] | None = None, out: Callable[[str], None] = print) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(name)s: %(message)s")
    parser = build_parser()
    args = parser.parse_args(log_file_first(sys.argv[1:] if argv is None else argv, parser))
    command = COMMANDS[args.command or "gui"]
    try:
        return command(args, out)
    except CliError as exc:
        print(f"fieldstation: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


def run(argv: Sequence[str] | None = None) -> NoReturn:
    """``main``, then out of the process at once, files and output flushed: without
    Python's finalization, which aborts the process ("FATAL: exception not rethrown") when
    a zenoh or Cap'n Proto thread is still winding down as the interpreter goes. The C heap
    is kept from creeping up over a long run (:mod:`app.heap`) before any thread starts."""
    heap.limit_arenas()
    heap.start_trimming()
    code = main(argv)
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    run()
