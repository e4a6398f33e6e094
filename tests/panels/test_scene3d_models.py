"""Nothing received from the wire is fetched: a SceneUpdate's model URL that points at a
live HTTP server reaches the 3D panel over zenoh, is shown where the model would be, and
the server never hears a request."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.request import urlopen

import pytest

from app.bus.publisher import Publisher, Traffic
from app.codec.registry import registry
from tests.bus.helpers import wait_until_heard, waiting_in
from tests.panels.test_scene3d_panel import TIMEOUT_MS, layer_ok, open_scene

pytestmark = pytest.mark.gl
KEY = "fleet/rover-1/debug/models"


class ModelServer(ThreadingHTTPServer):
    """Answers every GET with a few bytes and remembers the paths asked for."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                server.requests.append(self.path)
                self.send_response(200)
                self.end_headers()
                self.wfile.write(b"glTF")

            def log_message(self, *args: object) -> None:
                pass

        super().__init__(("127.0.0.1", 0), Handler)


@pytest.fixture
def model_server() -> Iterator[ModelServer]:
    server = ModelServer()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        with urlopen(f"http://127.0.0.1:{server.server_port}/ready", timeout=5) as reply:
            assert reply.read() == b"glTF"  # it does answer whoever asks
        server.requests.clear()
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def scene_update(url: str) -> bytes:
    update = registry().structs["foxglove.SceneUpdate"].new_message()
    entity = update.init("entities", 1)[0]
    entity.id, entity.frameId = "truck", "world"
    model = entity.init("models", 1)[0]
    model.url, model.mediaType = url, "model/gltf-binary"
    model.pose.position.x, model.pose.orientation.w = 3.0, 1.0
    model.scale.x = model.scale.y = model.scale.z = 1.0
    return update.to_bytes()


def test_a_model_url_is_shown_and_never_fetched(make_main_window, rover_fleet, model_server,
                                                qtbot) -> None:
    url = f"http://127.0.0.1:{model_server.server_port}/truck.glb"
    window = make_main_window(show=True)
    panel = open_scene(window, "rover-1")
    panel.accept_topic(KEY, "foxglove.SceneUpdate")
    publisher = Publisher(rover_fleet.hub, KEY, "foxglove.SceneUpdate", Traffic.TELEMETRY)
    payload = scene_update(url)
    wait_until_heard(rover_fleet.hub, KEY, wait=waiting_in(qtbot))
    placeholder = f"model not loaded: {url}"

    def texts() -> list[str]:
        item = panel._wanted.get(KEY)
        if item is None:
            return []
        fixed = panel.model.default_fixed_frame("rover-1")
        return [t for g in panel.model.groups(item, fixed) for _, t, _ in g.drawables.texts]

    def shown() -> bool:
        publisher.put(payload)
        return layer_ok(panel, KEY) and placeholder in texts()

    def shown_model() -> list:
        picks = panel.view.shown_picks()
        return [xy for xy, item in zip(picks.xy, picks.payloads, strict=True)
                if item.key == KEY]

    try:
        qtbot.waitUntil(shown, timeout=TIMEOUT_MS)
        # Where the model would stand (as the frame on screen drew it), a click names it and
        # its URL.
        qtbot.waitUntil(lambda: bool(shown_model()), timeout=TIMEOUT_MS)
        x, y = shown_model()[0]
        picked = panel.view.pick_at(float(x), float(y))
        assert picked is not None and placeholder in picked.text
        qtbot.wait(500)  # time for a fetch, had anything started one
    finally:
        publisher.close()
    assert model_server.requests == []
