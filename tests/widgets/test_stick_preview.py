"""The stick and trigger previews: a reading inside the profile's dead zone is drawn as not
counting, one outside as counting (green), and out-of-range or NaN readings are clamped."""

from __future__ import annotations

import math

from PySide6.QtGui import QColor

from widgets.status_light import ONLINE
from widgets.stick_preview import SignedBar, StickPreview, TriggerPreview


def green_pixels(widget) -> int:
    image = widget.grab().toImage()
    green = QColor(ONLINE).rgb()
    return sum(image.pixel(x, y) == green for x in range(image.width())
               for y in range(image.height()))


def test_a_stick_inside_its_dead_zone_does_not_light_up(qtbot) -> None:
    stick = StickPreview("left")
    qtbot.addWidget(stick)
    stick.resize(120, 140)
    stick.set_dead_zone(0.3)
    stick.set_value(0.2, 0.1)
    assert not stick.outside_dead_zone() and green_pixels(stick) == 0
    stick.set_value(0.0, -1.0)
    assert stick.outside_dead_zone() and green_pixels(stick) > 20


def test_readings_are_clamped_and_nan_reads_as_rest(qtbot) -> None:
    stick, trigger, bar = StickPreview(), TriggerPreview(), SignedBar()
    for widget in (stick, trigger, bar):
        qtbot.addWidget(widget)
    stick.set_value(5.0, math.nan)
    trigger.set_value(-2.0)
    bar.set_value(-3.0, "-1.50 m/s")
    assert stick.value() == (1.0, 0.0)
    assert trigger.value() == 0.0
    assert bar.fraction() == -1.0 and bar.text() == "-1.50 m/s"


def test_a_trigger_past_its_dead_zone_lights_up(qtbot) -> None:
    trigger = TriggerPreview("RT")
    qtbot.addWidget(trigger)
    trigger.resize(40, 120)
    trigger.set_dead_zone(0.2)
    trigger.set_value(0.1)
    assert green_pixels(trigger) == 0
    trigger.set_value(0.9)
    assert green_pixels(trigger) > 20
