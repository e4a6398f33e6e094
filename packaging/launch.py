"""Entry script of the PyInstaller bundle: the ``fieldstation`` executable runs ``app.cli``.

Two switches for the packaging tests and the start-up benchmark, read before anything else:
``FIELDSTATION_BUNDLE_CHECK=1`` imports and exercises the libraries the bundle must carry
(``bundle_check.py``); ``FIELDSTATION_BARE_WINDOW=1`` shows the bare PySide6 window the
start-up benchmark compares the app with (``bare_window.py``), frozen the same way.
"""

from __future__ import annotations

import multiprocessing
import os
import sys


def main() -> int:
    if os.environ.get("FIELDSTATION_BUNDLE_CHECK"):
        from bundle_check import check

        return check()
    if os.environ.get("FIELDSTATION_BARE_WINDOW"):
        from bare_window import main as bare_main

        return bare_main()
    from app.cli import run

    run()


if __name__ == "__main__":
    multiprocessing.freeze_support()  # pyqtgraph.multiprocess spawns through multiprocessing
    sys.exit(main())
