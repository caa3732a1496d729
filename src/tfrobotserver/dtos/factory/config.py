"""What the config actions of every configurable component take and return (`robot/factory/config_mixin.py`):
the change log, the result of a change, and where the configuration in effect comes from.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from tfrobotserver.dtos.base import HttpModel


class ConfigChange(HttpModel):
    """One recorded change of one configuration field."""

    change_id: int
    component: str
    field: str
    old_value: Any = None
    new_value: Any = None
    changed_by: str
    changed_ts: int = Field(description="When (ms since the epoch, UTC).")


class ConfigUpdate(HttpModel):
    """What a config action did: the fields it changed and the configuration now in effect."""

    changed: list[str]
    config: dict[str, Any]


class FieldProvenance(HttpModel):
    """One configuration field: the robot file's value, the value in effect, and whether they differ."""

    field: str
    file_value: Any = None
    saved_value: Any = None
    differs: bool


class ConfigProvenance(HttpModel):
    """Whether a saved configuration overrides the robot file, since when, by whom, and in which fields."""

    component: str
    saved: bool = Field(description="A configuration saved through the console is in effect (not the file's).")
    saved_ts: int | None = Field(default=None, description="When it was saved (ms since the epoch, UTC).")
    saved_by: str | None = Field(default=None, description="Who saved it last (the token's name).")
    differs: bool = Field(description="The configuration in effect differs from the robot file.")
    fields: list[FieldProvenance] = Field(default_factory=list)
    summary: str = Field(description="One sentence for the console: saved on …, differs from the file in …")
