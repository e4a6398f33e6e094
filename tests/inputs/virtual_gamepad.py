"""SDL's virtual joystick of type game controller, attached through ctypes on the SDL2 that
pygame bundles (the same library, so the process's one SDL sees it as a real pad).

Its axes and buttons map one-to-one to the standard layout, so tests move ``leftx`` or
press ``leftshoulder`` by name. Call it only after SDL's joystick subsystem is up (the
gamepad thread has started) and from any thread: SDL locks its joystick list itself.
"""

from __future__ import annotations

import contextlib
import ctypes
import glob
from collections.abc import Iterator
from pathlib import Path

AXES = ("leftx", "lefty", "rightx", "righty", "lefttrigger", "righttrigger")
BUTTONS = ("a", "b", "x", "y", "back", "guide", "start", "leftstick", "rightstick",
           "leftshoulder", "rightshoulder", "dpup", "dpdown", "dpleft", "dpright")
TRIGGERS = ("lefttrigger", "righttrigger")
SDL_JOYSTICK_TYPE_UNKNOWN = 0  # a raw joystick: a game controller only once mapped
SDL_JOYSTICK_TYPE_GAMECONTROLLER = 1
SDL_VIRTUAL_JOYSTICK_DESC_VERSION = 1


class _Guid(ctypes.Structure):
    _fields_ = [("data", ctypes.c_uint8 * 16)]


class _VirtualJoystickDesc(ctypes.Structure):
    """SDL_VirtualJoystickDesc of SDL 2.24+ (version 1)."""

    _fields_ = [
        ("version", ctypes.c_uint16),
        ("type", ctypes.c_uint16),
        ("naxes", ctypes.c_uint16),
        ("nbuttons", ctypes.c_uint16),
        ("nhats", ctypes.c_uint16),
        ("vendor_id", ctypes.c_uint16),
        ("product_id", ctypes.c_uint16),
        ("padding", ctypes.c_uint16),
        ("button_mask", ctypes.c_uint32),
        ("axis_mask", ctypes.c_uint32),
        ("name", ctypes.c_char_p),
        ("userdata", ctypes.c_void_p),
        ("Update", ctypes.c_void_p),
        ("SetPlayerIndex", ctypes.c_void_p),
        ("Rumble", ctypes.c_void_p),
        ("RumbleTriggers", ctypes.c_void_p),
        ("SetLED", ctypes.c_void_p),
        ("SendEffect", ctypes.c_void_p),
    ]


def sdl_library_path() -> Path:
    """pygame's own libSDL2 (pygame.libs/ in Linux wheels, beside the package elsewhere)."""
    import pygame

    package = Path(pygame.__file__).parent
    patterns = [str(package.parent / "pygame.libs" / "libSDL2-2*.so*"),
                str(package / "libSDL2-2*.so*"), str(package / "SDL2.dll"),
                str(package / ".dylibs" / "libSDL2*.dylib")]
    for pattern in patterns:
        found = sorted(glob.glob(pattern))
        if found:
            return Path(found[0])
    raise FileNotFoundError(f"no SDL2 library in pygame's package ({package})")


def sdl() -> ctypes.CDLL:
    # pygame has already loaded this file: dlopen hands back that same library.
    lib = ctypes.CDLL(str(sdl_library_path()))
    lib.SDL_JoystickAttachVirtualEx.argtypes = [ctypes.POINTER(_VirtualJoystickDesc)]
    lib.SDL_JoystickAttachVirtualEx.restype = ctypes.c_int
    lib.SDL_JoystickDetachVirtual.argtypes = [ctypes.c_int]
    lib.SDL_JoystickDetachVirtual.restype = ctypes.c_int
    lib.SDL_NumJoysticks.restype = ctypes.c_int
    lib.SDL_JoystickGetDeviceInstanceID.argtypes = [ctypes.c_int]
    lib.SDL_JoystickGetDeviceInstanceID.restype = ctypes.c_int32
    lib.SDL_JoystickOpen.argtypes = [ctypes.c_int]
    lib.SDL_JoystickOpen.restype = ctypes.c_void_p
    lib.SDL_JoystickClose.argtypes = [ctypes.c_void_p]
    lib.SDL_JoystickSetVirtualAxis.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int16]
    lib.SDL_JoystickSetVirtualAxis.restype = ctypes.c_int
    lib.SDL_JoystickSetVirtualButton.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint8]
    lib.SDL_JoystickSetVirtualButton.restype = ctypes.c_int
    lib.SDL_JoystickGetDeviceGUID.argtypes = [ctypes.c_int]
    lib.SDL_JoystickGetDeviceGUID.restype = _Guid
    lib.SDL_JoystickGetGUIDString.argtypes = [_Guid, ctypes.c_char_p, ctypes.c_int]
    lib.SDL_JoystickGetGUIDFromString.argtypes = [ctypes.c_char_p]
    lib.SDL_JoystickGetGUIDFromString.restype = _Guid
    lib.SDL_GameControllerMappingForGUID.argtypes = [_Guid]
    lib.SDL_GameControllerMappingForGUID.restype = ctypes.c_void_p  # freed with SDL_free
    lib.SDL_free.argtypes = [ctypes.c_void_p]
    lib.SDL_GetError.restype = ctypes.c_char_p
    return lib


@contextlib.contextmanager
def joysticks_locked() -> Iterator[None]:
    """Holds SDL's joystick lock: the gamepad thread reads no pad and pumps no event until
    the block ends, so what the block does (pull a pad, plug another with its deadman held)
    reaches it as one change. SDL's lock is recursive: the block may call SDL freely."""
    lib = sdl()
    lib.SDL_LockJoysticks()
    try:
        yield
    finally:
        lib.SDL_UnlockJoysticks()


def mapping_for_guid(guid: str) -> str | None:
    """The mapping SDL now holds for a GUID (``GUID,name,bindings``), or None."""
    lib = sdl()
    found = lib.SDL_GameControllerMappingForGUID(lib.SDL_JoystickGetGUIDFromString(guid.encode()))
    if not found:
        return None
    try:
        return ctypes.string_at(found).decode()
    finally:
        lib.SDL_free(found)


def _raw(name: str, value: float) -> int:
    """A reading as SDL's joystick stores it: sticks -1..1, triggers 0..1 over the full
    -32768..32767 range (the game-controller layer maps a trigger's -32768 to 0)."""
    if name in TRIGGERS:
        value = value * 2.0 - 1.0
    value = max(-1.0, min(1.0, value))
    return -32768 if value <= -1.0 else round(value * 32767)


class VirtualGamepad:
    """One plugged virtual pad: ``set_axis("lefty", -1.0)``, ``press("a")``, ``unplug()``."""

    def __init__(self, name: str = "Virtual gamepad",
                 kind: int = SDL_JOYSTICK_TYPE_GAMECONTROLLER) -> None:
        self._lib = sdl()
        self._name = name.encode()
        desc = _VirtualJoystickDesc(
            version=SDL_VIRTUAL_JOYSTICK_DESC_VERSION, type=kind,
            naxes=len(AXES), nbuttons=len(BUTTONS), nhats=0, name=self._name)
        index = self._lib.SDL_JoystickAttachVirtualEx(ctypes.byref(desc))
        if index < 0:
            raise RuntimeError(f"SDL_JoystickAttachVirtualEx: {self._error()}")
        self.instance_id = self._lib.SDL_JoystickGetDeviceInstanceID(index)
        text = ctypes.create_string_buffer(33)
        self._lib.SDL_JoystickGetGUIDString(self._lib.SDL_JoystickGetDeviceGUID(index), text, 33)
        self.guid = text.value.decode()
        self._joystick = self._lib.SDL_JoystickOpen(index)
        if not self._joystick:
            raise RuntimeError(f"SDL_JoystickOpen: {self._error()}")
        self.name = name

    def set_axis(self, name: str, value: float) -> None:
        """Sticks -1..1 with SDL's signs (up is -1), triggers 0..1."""
        if self._lib.SDL_JoystickSetVirtualAxis(self._joystick, AXES.index(name),
                                                _raw(name, value)) < 0:
            raise RuntimeError(f"SDL_JoystickSetVirtualAxis: {self._error()}")

    def set_button(self, name: str, pressed: bool) -> None:
        if self._lib.SDL_JoystickSetVirtualButton(self._joystick, BUTTONS.index(name),
                                                  int(pressed)) < 0:
            raise RuntimeError(f"SDL_JoystickSetVirtualButton: {self._error()}")

    def press(self, name: str) -> None:
        self.set_button(name, True)

    def release(self, name: str) -> None:
        self.set_button(name, False)

    @property
    def plugged(self) -> bool:
        return self._joystick is not None

    def unplug(self) -> None:
        """Detach the pad (SDL sends the removal event, as for a pulled cable)."""
        if self._joystick is None:
            return
        self._lib.SDL_JoystickClose(self._joystick)
        self._joystick = None
        for index in range(self._lib.SDL_NumJoysticks()):
            if self._lib.SDL_JoystickGetDeviceInstanceID(index) == self.instance_id:
                self._lib.SDL_JoystickDetachVirtual(index)
                return

    def _error(self) -> str:
        return (self._lib.SDL_GetError() or b"").decode(errors="replace")
