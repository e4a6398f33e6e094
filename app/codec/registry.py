"""Maps wire type names (``family.Struct``, ``family.Outer.Inner``) to capnp types."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from schemas.loader import FAMILIES, PACKAGED_FAMILIES, load_family

# family -> what makes a struct of that family on first use (ROS 2 types: app.ros2.generic
# adds its own when imported); every registry asks the same
RESOLVERS: dict[str, Callable[[str], Any]] = {}


@dataclass
class SchemaRegistry:
    structs: dict[str, Any] = field(default_factory=dict)
    enums: dict[str, Any] = field(default_factory=dict)
    names_by_id: dict[int, str] = field(default_factory=dict)
    resolvers: dict[str, Callable[[str], Any]] = field(default_factory=lambda: RESOLVERS)

    def add_module(self, prefix: str, module: Any) -> None:
        for node in module.schema.node.nestedNodes:
            self._add(f"{prefix}.{node.name}", getattr(module, node.name))

    def _add(self, name: str, obj: Any) -> None:
        node = obj.schema.node
        kind = node.which()
        if kind == "struct":
            self.structs[name] = obj
        elif kind == "enum":
            self.enums[name] = obj
        else:
            return
        self.names_by_id[node.id] = name
        for nested in node.nestedNodes:
            child = getattr(obj, nested.name, None)
            if child is not None:
                self._add(f"{name}.{nested.name}", child)

    def struct(self, name: str) -> Any:
        found = self.find(name)
        if found is None:
            raise KeyError(name)
        return found

    def find(self, name: str) -> Any | None:
        """The struct of a wire type name, made by its family's resolver if it has one and
        it is not there yet; None when there is none."""
        found = self.structs.get(name)
        if found is None:
            resolve = self.resolvers.get(name.split(".", 1)[0])
            found = resolve(name) if resolve is not None else None
            if found is not None:
                self.structs[name] = found
        return found

    def name_of(self, type_id: int) -> str:
        return self.names_by_id[type_id]


def build_registry(families: tuple[str, ...] | list[str] = FAMILIES) -> SchemaRegistry:
    reg = SchemaRegistry()
    for family in families:
        for stem, module in load_family(family).items():
            prefix = f"{family}.{stem}" if family in PACKAGED_FAMILIES else family
            reg.add_module(prefix, module)
    return reg


@functools.cache
def registry() -> SchemaRegistry:
    """The registry of every family, built once."""
    return build_registry()
