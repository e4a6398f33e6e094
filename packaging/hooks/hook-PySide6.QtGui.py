# Replaces PyInstaller's QtGui hook (same helper) to leave out plugins a desktop station never
# loads: PyInstaller collects QtGui's plugin folders whole, and each of these would pull in
# libraries of its own (GTK and cairo, QtPdf, QtQuick/QML, the EGL full-screen stack).
# Kept: platforms xcb, wayland, offscreen and minimal (plus each OS's own); imageformats and
# iconengines with svg.
from pathlib import PurePath

from PyInstaller.utils.hooks.qt import add_qt6_dependencies

UNWANTED = {  # plugin folder -> plugin names (file name without "lib" and suffix); None: all
    "platformthemes": {"qgtk3"},  # the GTK look; the station sets Fusion and its own palette
    "platforminputcontexts": {"qtvirtualkeyboardplugin"},  # needs QtQuick/QML
    "imageformats": {"qpdf"},  # needs QtPdf
    "platforms": {"qeglfs", "qminimalegl", "qvnc", "qlinuxfb", "qvkkhrdisplay"},
    "egldeviceintegrations": None,
}


def _wanted(src: str, dest: str) -> bool:
    parts = PurePath(dest).parts
    if "plugins" not in parts:
        return True
    folder = "/".join(parts[parts.index("plugins") + 1:])
    names = UNWANTED.get(folder, set())
    name = PurePath(src).name.split(".")[0].removeprefix("lib")
    return names is not None and name not in names


hiddenimports, binaries, datas = add_qt6_dependencies(__file__)
binaries = [(src, dest) for src, dest in binaries if _wanted(src, dest)]
