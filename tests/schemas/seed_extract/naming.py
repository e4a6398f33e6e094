"""Name translation of PROTOCOL.md for the protobuf-documented families."""

import re


def type_name(seed_name: str) -> str:
    """`GearCommand_Constants` -> `GearCommandConstants` (per path component)."""
    return ".".join(part.replace("_", "") for part in seed_name.split("."))


def member_name(seed_name: str) -> str:
    """Field or enumerant name -> lowerCamelCase, by rules (a) and (b)."""
    if not any(c.islower() for c in seed_name):
        words = [w.lower() for w in seed_name.split("_") if w]
        return words[0] + "".join(w[:1].upper() + w[1:] for w in words[1:])
    joined = re.sub(r"_(.)", lambda m: m.group(1).upper(), seed_name).replace("_", "")
    run = len(joined) - len(joined.lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
    if run > 1 and run < len(joined) and joined[run].islower():
        run -= 1
    return joined[:run].lower() + joined[run:]
