"""Input devices that feed teleop, each producing ``app.teleop.model.InputState``: gamepads
(``gamepad``, pygame imported only when one is started), the keyboard (``keyboard``, plain
key names from whatever view has focus). Qt-free."""
