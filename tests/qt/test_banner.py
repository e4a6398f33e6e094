"""The arming banner's words (app.qt.safety_bar.banner): the robot named once."""

from __future__ import annotations

from app.qt.safety_bar import banner
from app.teleop.arming import Arming


def test_a_reason_that_starts_with_the_robot_does_not_name_it_twice() -> None:
    shown = banner(Arming.DISARMED, "ctr-1", "ctr-1 lists no command teleop can drive", "",
                   "gamepad")
    assert shown.text == "DISARMED · ctr-1 · lists no command teleop can drive"  # was
    # 'DISARMED · ctr-1 · ctr-1 lists no com…' in the banner's width


def test_a_reason_that_only_mentions_the_robot_later_is_kept_whole() -> None:
    shown = banner(Arming.STALE, "rover-1", "link lost: rover-1 offline", "", "gamepad")
    assert shown.text == "STALE · rover-1 · link lost: rover-1 offline"
    shown = banner(Arming.DISARMED, "rover", "rover-1 is e-stopped", "", "gamepad")
    assert shown.text == "DISARMED · rover · rover-1 is e-stopped"  # another robot's id
