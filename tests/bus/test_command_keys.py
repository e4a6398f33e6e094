"""Command keys: a setting or service that needs the admin or owner role goes on a key of
its own, so a router's access control (which sees keys, not payloads) can refuse it."""

from __future__ import annotations

from app.bus.keys import command_key, command_keys


def test_admin_and_owner_settings_and_services_go_on_their_roles_key() -> None:
    assert command_key("rover-1", "service", min_role="admin") == \
        "fleet/rover-1/command/service/admin"
    assert command_key("rover-1", "setting", "site", min_role="owner") == \
        "site/rover-1/command/setting/owner"


def test_every_other_command_stays_on_its_members_key() -> None:
    for min_role in ("", "viewer", "operator", 7):  # 7: a role this schema does not know
        assert command_key("rover-1", "service", min_role=min_role) == \
            "fleet/rover-1/command/service"
    assert command_key("rover-1", "goTo", min_role="admin") == "fleet/rover-1/command/go_to"


def test_a_robot_listens_on_each_key_a_command_may_come_on() -> None:
    assert command_keys("rover-1", "setting") == [
        "fleet/rover-1/command/setting", "fleet/rover-1/command/setting/admin",
        "fleet/rover-1/command/setting/owner"]
    assert command_keys("rover-1", "estop") == ["fleet/rover-1/command/estop"]
