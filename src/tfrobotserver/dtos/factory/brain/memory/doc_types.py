"""The file types a memory accepts, offered to forms as an Options namespace."""

from __future__ import annotations

from typing import ClassVar

from pydantic import ConfigDict, Field

from tfrobotserver.dtos.base import HttpModel


class DocType(HttpModel):
    """One accepted file type: `key` is stored, `label` is shown."""

    key: str
    label: str


class DocTypeCatalog(HttpModel):
    """Accepted file types; `fileTypeOptions` gives a select box its labels, keys and values."""

    types: list[DocType] = Field(default_factory=list)

    model_config: ClassVar[ConfigDict] = ConfigDict(
        json_schema_extra={
            "x-namespace": {
                "fileTypeOptions": {
                    "Options": {"labels": "values[*].label", "keys": "values[*].key", "values": "types"},
                }
            }
        }
    )
