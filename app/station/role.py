"""The station's role (viewer, operator, admin, owner): what the operator may use of a
robot's controls. It is granted, not chosen: the user name of the station's zenoh
credentials names it, and the router's access control enforces it (schemas/README.md,
"Roles and access control"). The station only shows it, and disables the controls it
does not grant, so that the operator is not offered what the router would drop."""

from __future__ import annotations

from app.bus.config import BusConfig, user_name
from app.station.vitals import Enum

ROLES = ("viewer", "operator", "admin", "owner")  # fleet.Role, lowest first
DEFAULT_ROLE = "operator"


def role_of(config: BusConfig) -> tuple[str, str]:
    """The role the user name of ``config`` names (``operator``, or ``<name>-operator``
    such as ``ana-operator``), and where it comes from, for the operator. Without a user
    name (the embedded simulator, a plain link on loopback), or with one that names no
    role, the station is an operator."""
    user = user_name(config)
    if not user:
        return DEFAULT_ROLE, "no user name in the zenoh config"
    role = user.rsplit("-", 1)[-1].lower()
    if role in ROLES:
        return role, f"from user '{user}'"
    return DEFAULT_ROLE, f"user '{user}' names no role"


def refusal(station_role: str, min_role: Enum) -> str:
    """Why a control needing ``min_role`` is off limits to ``station_role`` ("" if it is
    not). A role this station does not know (a newer robot's) is off limits to all."""
    if not isinstance(min_role, str) or min_role not in ROLES:
        return f"needs role {min_role}, unknown to this station"
    if ROLES.index(station_role) < ROLES.index(min_role):
        return f"needs the {min_role} role (this station: {station_role})"
    return ""
