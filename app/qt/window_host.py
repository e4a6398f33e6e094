"""What the window's controllers (recording, playback, the layout and help menus) ask of
the window, as narrow protocols: none of them imports the main window."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from app.layouts import Layout
from app.station.connection import Connection, ConnectionChoice
from app.station.station import Station


class MessageHost(Protocol):
    def show_message(self, text: str) -> None: ...


class RecordingHost(MessageHost, Protocol):
    @property
    def station(self) -> Station: ...

    @property
    def config_dir(self) -> Path: ...


class Recordings(Protocol):
    """What playback asks of the recording controls."""

    recordings_dir: Path
    black_box_dir: Path

    def stop_recording(self) -> object: ...


class PlaybackHost(RecordingHost, Protocol):
    @property
    def connection(self) -> Connection: ...

    @property
    def recording(self) -> Recordings: ...

    def set_active_robot(self, robot_id: str | None) -> None: ...

    def refresh_mode(self) -> None: ...

    def reconnect(self, choice: ConnectionChoice) -> None: ...


class LayoutHost(MessageHost, Protocol):
    def layouts_dir(self) -> Path: ...

    def current_layout(self, name: str = "") -> Layout: ...

    def apply_layout(self, layout: Layout) -> None: ...

    def parsed_layout(self, text: str | bytes, source: str) -> Layout | None: ...

    def layout_refused(self, reason: str) -> None: ...

    def load_named_layout(self, name: str) -> bool: ...

    def save_named_layout(self, name: str) -> Path: ...
