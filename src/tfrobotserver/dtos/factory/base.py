"""Graph elements shared by every graphical component (the seed's `dtos/factory/base.py`).

The x-namespace variables carry the element type as prefix (nodeIri, edgeSource …) because the
namespace is one space per DataProtocol chain: a bare `id` or `label` on both nodes and docs
would collide (seed 7.3). `nodeVersion` / `edgeVersion` go back to the update actions, which refuse a
write over a newer version (409) rather than lose the other writer's change.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import ConfigDict, Field

from tfrobotserver.dtos.base import HttpModel


class Node(HttpModel):
    """A graph node; every rendered node gets its own nodeIri/nodeLabel/… scope."""

    iri: str
    label: str
    cls: str | list[str]
    properties: dict[str, Any] | None = None
    version: int = Field(default=1, ge=1, description="1 when created, one more per update (nodeVersion).")

    model_config: ClassVar[ConfigDict] = ConfigDict(
        json_schema_extra={
            "x-namespace": {
                "nodeIri": "iri",
                "nodeLabel": "label",
                "nodeCls": "cls",
                "nodeProperties": "properties",
                "nodeVersion": "version",
            },
            "x-actions": ["aupdate_node", "adelete_node"],
        }
    )


class Edge(HttpModel):
    """A directed, labelled edge; (source, target, property) identifies it."""

    source: str
    target: str
    label: str
    property: str
    properties: dict[str, Any] | None = None
    version: int = Field(default=1, ge=1, description="1 when created, one more per update (edgeVersion).")

    model_config: ClassVar[ConfigDict] = ConfigDict(
        json_schema_extra={
            "x-namespace": {
                "edgeSource": "source",
                "edgeTarget": "target",
                "edgeLabel": "label",
                "edgeProperty": "property",
                "edgeProperties": "properties",
                "edgeVersion": "version",
            },
            "x-actions": ["aupdate_edge", "adelete_edge"],
        }
    )
