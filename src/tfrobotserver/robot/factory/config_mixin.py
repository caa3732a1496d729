"""Run-time configuration of components: validated, persisted, effective at once, and recorded.

A component's configuration is its pydantic fields. A config action (`resource_op_type="config"`)
calls `ConfigurableMixin._change_config`, which

1. validates the whole new configuration with the component's own model (a bad value is a 422
   naming the field, and nothing changes);
2. saves it with `SaverLoader` into the server's SQL store (`component_configs`, a `DocumentStore`
   over the action's session) so that a restart starts from it (`load_saved_config`);
3. writes one `config_changes` row per changed field: who, when, the old and the new value —
   listed, newest first, by the pageable action `aget_config_changes`;
4. applies it to the live component when that transaction commits (the next request sees it; no
   restart).

Either the change is saved, recorded and applied, or none of it. What a config action returns and
what the change log lists is redacted (`tfrobotserver.redaction`): a configuration may hold credentials.
A saved configuration overrides the robot file at every start; `aget_config_provenance` says so per
field and `arevert_config` goes back to the file (`config_provenance.py`).
"""

from __future__ import annotations

import logging
import time
from typing import Any, ClassVar

from pydantic import PrivateAttr, ValidationError
from sqlalchemy import JSON, BigInteger, Column, Integer, String, Table, Text, delete, event, func, insert, select
from sqlalchemy.ext.asyncio import AsyncSession

from tfrobot.schema.saver_loader import SaverLoader
from tfrobotserver.actions.alias import ActionAlias
from tfrobotserver.actions.component import TFSComponent
from tfrobotserver.actions.decorator import tfs_action
from tfrobotserver.actions.errors import ActionInputError
from tfrobotserver.actions.injected import Principal
from tfrobotserver.dtos.factory.config import ConfigChange, ConfigProvenance, ConfigUpdate
from tfrobotserver.dtos.pageable import PageableList, PageNumber, PageSize
from tfrobotserver.redaction import redact
from tfrobotserver.robot.factory.config_provenance import provenance
from tfrobotserver.storage import metadata

logger = logging.getLogger("tfrobotserver")

CONFIG_KIND = "component-config"

component_configs = Table(
    "component_configs",
    metadata,
    Column("kind", String(100), primary_key=True),
    Column("key", String(300), primary_key=True),
    Column("payload", Text, nullable=False),
    Column("updated_ts", BigInteger, nullable=False),
)

config_changes = Table(
    "config_changes",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("component_path", String(300), nullable=False, index=True),
    Column("field", String(128), nullable=False),
    Column("old_value", JSON, nullable=True),
    Column("new_value", JSON, nullable=True),
    Column("changed_by", String(255), nullable=False),
    Column("changed_ts", BigInteger, nullable=False),
)


class SessionDocumentStore:
    """`DocumentStore` over the server's `component_configs` table, inside the caller's transaction."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    def __repr__(self) -> str:
        return "SessionDocumentStore(component_configs)"

    async def put_document(self, kind: str, key: str, payload: str) -> None:
        table = component_configs
        where = (table.c.kind == kind) & (table.c.key == key)
        await self.session.execute(table.delete().where(where))
        await self.session.execute(
            insert(table).values(kind=kind, key=key, payload=payload, updated_ts=int(time.time() * 1000))
        )

    async def get_document(self, kind: str, key: str) -> str | None:
        table = component_configs
        query = select(table.c.payload).where(table.c.kind == kind, table.c.key == key)
        return (await self.session.execute(query)).scalar_one_or_none()


class ConfigurableMixin(TFSComponent):
    """Base of components whose configuration can be changed at run time through config actions."""

    __tfs_secret_fields__: ClassVar[frozenset[str]] = frozenset()
    """Fields whose values are never written to the change log (only that they changed)."""
    _file_config: dict[str, Any] | None = PrivateAttr(default=None)
    """The configuration the robot file (or the code) gave, kept when a saved one replaces it at start-up."""

    def _saver(self) -> SaverLoader[Any]:
        return SaverLoader(type(self), kind=CONFIG_KIND)

    def _config_applied(self) -> None:
        """Hook: drop whatever was built from the old configuration (a cached client, say)."""

    async def load_saved_config(self, session: AsyncSession) -> bool:
        """Apply the configuration saved by an earlier config action, if any (called at start-up), and say so."""
        if self._file_config is None:  # a restarted runtime runs this again: the file's is the first one seen
            self._file_config = self.model_dump(mode="json")
        try:
            saved = await self._saver().aload(SessionDocumentStore(session), self.tfs_path)
        except KeyError:  # nothing saved yet
            return False
        self._apply(self._restored(saved))
        found = await self._config_provenance(session)
        logger.warning("%s: the configuration %s (overrides the robot file)", self.tfs_path, found.summary)
        return True

    def _restored(self, saved: TFSComponent) -> TFSComponent:
        """Hook: the configuration to run from a saved one, `self` being the one the robot file gave; e.g. with
        the settings only the robot file may decide (deployment settings) put back from `self`."""
        return saved

    async def _config_provenance(self, session: AsyncSession) -> ConfigProvenance:
        table, changes = component_configs, config_changes
        where = (table.c.kind == CONFIG_KIND) & (table.c.key == self.tfs_path)
        saved_ts = (await session.execute(select(table.c.updated_ts).where(where))).scalar_one_or_none()
        last = select(changes.c.changed_by).where(changes.c.component_path == self.tfs_path)
        saved_by = (await session.execute(last.order_by(changes.c.id.desc()).limit(1))).scalar_one_or_none()
        live = self.model_dump(mode="json")
        return provenance(
            self.tfs_path,
            redact(self._file_config if self._file_config is not None else live),
            redact(live),
            saved_ts=saved_ts,
            saved_by=saved_by if saved_ts is not None else None,
            secret=type(self).__tfs_secret_fields__,
        )

    def _apply(self, new: TFSComponent) -> None:
        for name in type(self).model_fields:
            object.__setattr__(self, name, getattr(new, name))
        self._config_applied()

    async def _change_config(
        self, session: AsyncSession, principal: Principal, changes: dict[str, Any]
    ) -> ConfigUpdate:
        """Validate, save, apply and record `changes` (field → new value); see the module docstring."""
        current = self.model_dump(mode="python")
        try:
            new = type(self).model_validate({**current, **changes})
        except ValidationError as exc:
            first = exc.errors(include_url=False)[0]
            cause = first.get("ctx", {}).get("error")
            if isinstance(cause, ActionInputError):  # raised by the component's own checks while validating
                raise cause from None
            path = ".".join(str(p) for p in first["loc"]) or "config"
            raise ActionInputError(path, first["msg"], first.get("input")) from None
        new._tfs_robot, new._tfs_name = self._tfs_robot, self._tfs_name
        old_json = self.model_dump(mode="json")
        new_json = new.model_dump(mode="json")
        changed = [name for name in changes if old_json.get(name) != new_json.get(name)]
        if changed:
            await self._saver().asave(new, SessionDocumentStore(session), self.tfs_path)
            now = int(time.time() * 1000)
            secret = type(self).__tfs_secret_fields__
            rows = [
                {
                    "component_path": self.tfs_path,
                    "field": name,
                    "old_value": None if name in secret else old_json.get(name),
                    "new_value": None if name in secret else new_json.get(name),
                    "changed_by": principal.name,
                    "changed_ts": now,
                }
                for name in changed
            ]
            await session.execute(insert(config_changes), rows)
            # live only once saved: a transaction that fails to commit leaves the running component as it was
            event.listen(session.sync_session, "after_commit", lambda _session: self._apply(new), once=True)
        return ConfigUpdate(changed=changed, config=redact(new_json))

    def model_post_init(self, context: Any, /) -> None:
        # every configuration is checked, however it arrives: a config action, a robot file, a saved config
        self._validate_config(self)

    def _validate_config(self, new: Any) -> None:
        """Hook: checks beyond the field types (raise `ActionInputError`); e.g. that an LLM can be built.
        Runs on every instance (`model_post_init`), so a config action's new configuration too."""

    @tfs_action(
        alias=ActionAlias(resource="config_provenance", resource_op_type="get"),
        description="Where the configuration in effect comes from: the robot file, or one saved through the "
        "console (when, by whom), with the file's and the saved value of every field.",
    )
    async def aget_config_provenance(self, async_session: AsyncSession) -> ConfigProvenance:
        return await self._config_provenance(async_session)

    @tfs_action(
        alias=ActionAlias(resource="config_provenance", resource_op_type="config"),
        description="Go back to the robot file's configuration: drop the saved one (each field that changes is "
        "recorded in the change log).",
    )
    async def arevert_config(self, async_session: AsyncSession, principal: Principal) -> ConfigUpdate:
        live = self.model_dump(mode="json")
        file_config = self._file_config if self._file_config is not None else live
        changes = {name: value for name, value in file_config.items() if value != live.get(name)}
        update = await self._change_config(async_session, principal, changes) if changes else None
        table = component_configs
        where = (table.c.kind == CONFIG_KIND) & (table.c.key == self.tfs_path)
        await async_session.execute(delete(table).where(where))  # the file rules again, at every start too
        return update or ConfigUpdate(changed=[], config=redact(self.model_dump(mode="json")))

    @tfs_action(
        alias=ActionAlias(category="pageable", resource="config_change", resource_op_type="get_list"),
        description="The configuration changes of this component, newest first: who, when, old and new value.",
    )
    async def aget_config_changes(
        self,
        async_session: AsyncSession,
        page: PageNumber = 1,
        page_size: PageSize = 20,
    ) -> PageableList[ConfigChange]:
        table = config_changes
        where = table.c.component_path == self.tfs_path
        total = (await async_session.execute(select(func.count()).select_from(table).where(where))).scalar_one()
        query = select(table).where(where).order_by(table.c.id.desc()).limit(page_size).offset((page - 1) * page_size)
        rows = (await async_session.execute(query)).mappings().all()
        items = [
            ConfigChange(
                change_id=r["id"],
                component=r["component_path"],
                field=r["field"],
                old_value=redact(r["old_value"]),
                new_value=redact(r["new_value"]),
                changed_by=r["changed_by"],
                changed_ts=r["changed_ts"],
            )
            for r in rows
        ]
        return PageableList[ConfigChange](items=items, page=page, page_size=page_size, total=total)
