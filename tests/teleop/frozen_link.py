"""A TCP link that can be cut without closing it, as a pulled cable or a dead radio cuts
one: a proxy on loopback that forwards both ways until frozen, then forwards nothing and
closes nothing (zenoh finds out only by its lease)."""

from __future__ import annotations

import contextlib
import socket
import threading
import time


class FreezableLink:
    def __init__(self, target_port: int) -> None:
        self._target = ("127.0.0.1", target_port)
        self._server = socket.create_server(("127.0.0.1", 0))
        self.port = self._server.getsockname()[1]
        self.frozen = threading.Event()
        self._closed = threading.Event()
        self._sockets: list[socket.socket] = [self._server]
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def endpoint(self) -> str:
        return f"tcp/127.0.0.1:{self.port}"

    def freeze(self) -> None:
        self.frozen.set()

    def close(self) -> None:
        self._closed.set()
        for sock in self._sockets:
            with contextlib.suppress(OSError):
                sock.close()

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            self._sockets.append(client)
            if self.frozen.is_set():
                continue  # a reconnection while cut: it hangs, as over a dead link
            try:
                upstream = socket.create_connection(self._target)
            except OSError:
                client.close()
                continue
            self._sockets.append(upstream)
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        while True:
            try:
                data = source.recv(65536)
            except OSError:
                return
            while self.frozen.is_set() and not self._closed.is_set():
                time.sleep(0.05)  # held: nothing crosses a cut link
            if not data or self._closed.is_set():
                return
            try:
                sink.sendall(data)
            except OSError:
                return
