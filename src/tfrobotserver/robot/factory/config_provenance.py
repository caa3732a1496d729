"""Where a component's configuration comes from: its robot file, or a configuration saved through the console.

A configuration saved by a config action overrides the robot file at every start (`load_saved_config`).
That is the point of saving it, but it must not be silent: the start-up log says which components run a
saved configuration, and `aget_config_provenance` answers, per field, the file's value, the saved value
and whether they differ — with when the configuration was saved and by whom. `arevert_config` drops the
saved configuration so the file rules again (recorded in `config_changes` like any change).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from tfrobotserver.dtos.factory.config import ConfigProvenance, FieldProvenance

HIDDEN = "***"
"""What a secret field's value is shown as."""


def provenance(
    component: str,
    file_config: dict[str, Any],
    live_config: dict[str, Any],
    *,
    saved_ts: int | None,
    saved_by: str | None,
    secret: frozenset[str],
) -> ConfigProvenance:
    """Compare the file's configuration with the one in effect, field by field (secret values hidden)."""
    fields = [
        FieldProvenance(
            field=name,
            file_value=HIDDEN if name in secret else file_config.get(name),
            saved_value=HIDDEN if name in secret else live_config.get(name),
            differs=file_config.get(name) != live_config.get(name),
        )
        for name in live_config
    ]
    changed = [f.field for f in fields if f.differs]
    if saved_ts is None:
        summary = "the robot file's configuration is in effect (nothing saved through the console)"
    else:
        when = datetime.fromtimestamp(saved_ts / 1000, UTC).strftime("%Y-%m-%d %H:%M UTC")
        who = f" by {saved_by}" if saved_by else ""
        differs = f"differs from the file in {', '.join(changed)}" if changed else "same as the file"
        summary = f"saved on {when}{who}, {differs}"
    return ConfigProvenance(
        component=component,
        saved=saved_ts is not None,
        saved_ts=saved_ts,
        saved_by=saved_by,
        differs=bool(changed),
        fields=fields,
        summary=summary,
    )
