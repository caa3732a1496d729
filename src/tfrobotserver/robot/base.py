"""`Robot`: a named set of components, the unit the HTTP API addresses."""

from __future__ import annotations

from collections.abc import Mapping

from tfrobotserver.actions.component import TFSComponent
from tfrobotserver.actions.errors import ActionProtocolError


class Robot:
    """A robot's components by name; checked once so that every served class is concrete."""

    def __init__(self, name: str, components: Mapping[str, TFSComponent], description: str = "") -> None:
        for comp_name, comp in components.items():
            type(comp).tfs_bound_actions()  # raises for generic component classes
            if not comp_name or "/" in comp_name:
                raise ActionProtocolError(
                    action=f"{name}.{comp_name}", field="component name", problem="must be a non-empty path segment",
                    fix="use a name without '/'", value=comp_name,
                )  # fmt: skip
        self.name = name
        self.description = description
        self.components: dict[str, TFSComponent] = dict(components)
