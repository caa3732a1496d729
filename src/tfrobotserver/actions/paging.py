"""The paging declaration of a get_list's parameters, written into its params schema at registration.

The list container's schema already says how it pages (`x-paging: {"mode": ...}`, see
`dtos.pageable`); this marks which parameters drive it, so that a console reads the protocol
instead of guessing from parameter names: each gets `x-paging: "page" | "pageSize" | "cursor"`.
A parameter named like the container field it echoes (`page`, `page_size`, `cursor`) gets its role
from the container's `PAGING_ROLES`; any other name declares it in its Field's `json_schema_extra`.
A role the container does not page by, or one role on two parameters, fails registration.
"""

from __future__ import annotations

from typing import Any, get_args

from tfrobotserver.actions.errors import ActionProtocolError
from tfrobotserver.actions.typing_tools import unwrap_annotated
from tfrobotserver.dtos.pageable import PAGING_KEY, BasePageableList, PagingRole

_ROLES: frozenset[str] = frozenset(get_args(PagingRole))


def declare_paging(action: str, return_type: Any, params_schema: dict[str, Any]) -> None:
    """Mark the paging parameters of `params_schema` (in place) for a list returning `return_type`."""
    container = unwrap_annotated(return_type)
    if not (isinstance(container, type) and issubclass(container, BasePageableList)):
        return
    roles = container.PAGING_ROLES
    taken: dict[str, str] = {}
    for name, prop in (params_schema.get("properties") or {}).items():
        declared = prop.get(PAGING_KEY)
        role = declared if declared is not None else roles.get(name)
        if role is None:
            continue
        where = f"paramsSchema.properties.{name}.{PAGING_KEY}"
        if role not in _ROLES:
            raise ActionProtocolError(
                action=action,
                field=where,
                problem="is not a paging role",
                fix=f"use one of {sorted(_ROLES)}",
                value=role,
            )
        if role not in roles.values():
            mode = container.PAGING_MODE or "no paging"
            raise ActionProtocolError(
                action=action,
                field=where,
                problem=f"{container.__name__} pages by {mode}, which takes {sorted(set(roles.values()))} only",
                fix="return the container that pages this way (PageableList: page, CursorPageableList: cursor) "
                "or drop the parameter's x-paging",
                value=role,
            )
        if role in taken:
            raise ActionProtocolError(
                action=action,
                field=where,
                problem=f"parameter {taken[role]!r} already drives {role!r}",
                fix=f"declare {role!r} on one parameter only",
                value=role,
            )
        taken[role] = name
        prop[PAGING_KEY] = role
