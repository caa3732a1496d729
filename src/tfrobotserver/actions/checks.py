"""Static protocol checks run when a component class is created.

Each check turns a mistake that a console would only reveal as a dead button or an empty form
into an import-time `ActionProtocolError` naming the action, the schema field and the fix:

1. x-actions names an action the component does not register;
2. x-fetch names a missing action or one that is not a read operation;
3. x-ref names a variable no x-namespace of the component's return schemas provides;
4. x-namespace on a list/graph container reads per-element fields (seed 7.1); reading the
   container's own fields (`page`, `@.page`) or nothing (a literal) is fine;
5. x-namespace on an element reads a field its wire form does not have (`row_id` where the
   alias makes it `rowId`): the console would show null forever;
6. one variable is bound to different sources by different resources (seed 7.3);
7. x-ref / x-default / x-fetch in a return schema, or x-namespace / x-actions in a params
   schema (seed 7.2: each key is read in one place only);
plus malformed x-namespace entries and expressions the protocol's JMESPath
(`expressions.compile_expression`, the one the console runs too) refuses.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tfrobotserver.actions.errors import ActionProtocolError
from tfrobotserver.actions.expressions import ExpressionError, compile_expression, root_fields
from tfrobotserver.actions.registry import BoundAction
from tfrobotserver.actions.schema_walk import deref, field_meta, iter_schema_nodes
from tfrobotserver.actions.typing_tools import unwrap_annotated
from tfrobotserver.dtos.graph import BaseGraph
from tfrobotserver.dtos.pageable import BasePageableList

_OPTION_KEYS = frozenset({"labels", "keys", "values"})


@dataclass(frozen=True)
class _Binding:
    source: str
    expression: str
    resource: str
    action: str


def _compile(action: str, field: str, expr: Any) -> str:
    if not isinstance(expr, str):
        raise ActionProtocolError(
            action=action,
            field=field,
            problem="must be a JMESPath string",
            fix="write a JMESPath expression",
            value=expr,
        )
    try:
        compile_expression(expr)
    except ExpressionError as exc:
        raise ActionProtocolError(
            action=action,
            field=field,
            problem=f"is not valid JMESPath ({exc.kind}: {exc.message})",
            fix="fix the expression",
            value=expr,
        ) from exc
    return expr


def namespace_expressions(action: str, field: str, namespace: Any) -> dict[str, list[str]]:
    """variable → the expressions that read the element (for Options: values, labels, keys)."""
    if not isinstance(namespace, dict):
        raise ActionProtocolError(
            action=action, field=field, problem="must map variable names to JMESPath or Options", fix="use a dict"
        )
    exprs: dict[str, list[str]] = {}
    for var, spec in namespace.items():
        where = f"{field}.{var}"
        if isinstance(spec, dict):
            options = spec.get("Options")
            if (
                set(spec) != {"Options"}
                or not isinstance(options, dict)
                or set(options) != {"labels", "keys", "values"}
            ):
                raise ActionProtocolError(
                    action=action,
                    field=where,
                    problem="an object value must be exactly {'Options': {'labels', 'keys', 'values'}}",
                    fix="write a JMESPath string or an Options structure",
                    value=spec,
                )
            exprs[var] = [
                _compile(action, f"{where}.Options.{part}", options[part]) for part in ("values", "labels", "keys")
            ]
        else:
            exprs[var] = [_compile(action, where, spec)]
    return exprs


def _is_container(tp: Any) -> bool:
    bare = unwrap_annotated(tp)
    return isinstance(bare, type) and issubclass(bare, BasePageableList | BaseGraph)


def check_component(component: str, actions: Mapping[str, BoundAction]) -> None:
    """Run every static check over one component's bound actions; raise on the first mistake."""
    provided: dict[str, list[_Binding]] = {}
    for name, act in actions.items():
        qual = f"{component}.{name}"
        schema = act.ret_schema
        for path, node in iter_schema_nodes(schema):
            where = f"retSchema{'.' + path if path else ''}"
            _check_misplaced(qual, where, node, _PARAM_KEYS, "belongs on the action's parameters (seed 7.2)")
            if "x-actions" in node:
                names = node["x-actions"]
                if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
                    raise ActionProtocolError(
                        action=qual, field=f"{where}.x-actions", problem="must be a list of action names",
                        fix='write e.g. ["aupdate_doc", "adelete_doc"]', value=names,
                    )  # fmt: skip
                for ref in names:
                    if ref not in actions:
                        raise ActionProtocolError(
                            action=qual,
                            field=f"{where}.x-actions",
                            problem=f"names {ref!r}, which {component} does not register",
                            fix=f"register {ref!r} with @tfs_action on {component} or remove it; "
                            f"registered: {sorted(actions)}",
                            value=ref,
                        )
            if "x-namespace" in node:
                exprs = namespace_expressions(qual, f"{where}.x-namespace", node["x-namespace"])
                source = str(node.get("title", where))
                for var, var_exprs in exprs.items():
                    raw = json.dumps(node["x-namespace"][var], sort_keys=True)
                    provided.setdefault(var, []).append(_Binding(source, raw, act.alias.resource, name))
                    if path == "" and _is_container(act.return_type):
                        _check_container_var(qual, schema, var, var_exprs[0])
                    else:
                        _check_element_var(qual, where, deref(schema, node), var, var_exprs)
    _check_collisions(component, provided)
    for name, act in actions.items():
        _check_params(component, name, act, actions, provided)


_PARAM_KEYS = ("x-ref", "x-default", "x-fetch")
_RETURN_KEYS = ("x-namespace", "x-actions")


def _check_misplaced(qual: str, where: str, node: Mapping[str, Any], keys: tuple[str, ...], home: str) -> None:
    for key in keys:
        if key in node:
            raise ActionProtocolError(
                action=qual,
                field=f"{where}.{key}",
                problem=f"{key} {home}; here the console never reads it",
                fix=f"move {key} to the {'parameter annotation' if key in _PARAM_KEYS else 'element DTO model_config'}",
                value=node[key],
            )


def _check_container_var(qual: str, schema: Mapping[str, Any], var: str, expr: str) -> None:
    root = deref(schema, schema)
    fields = sorted(root.get("properties", {}))
    outside = [f for f in root_fields(expr) if f not in fields]
    if outside:
        raise ActionProtocolError(
            action=qual,
            field=f"retSchema.x-namespace.{var}",
            problem=f"sits on the container {root.get('title')!r} but reads {expr!r}, whose {outside[0]!r} is not one "
            f"of its fields {fields}: the console could not give each row its own value (seed 7.1)",
            fix="move the variable to the element DTO's model_config json_schema_extra (e.g. AIMemoryDoc, Node), "
            "or project over all rows on purpose with e.g. 'items[*].docId' for a batch action",
            value=expr,
        )


def _wire_hint(name: str, fields: list[str]) -> str:
    head, *rest = name.split("_")
    camel = head + "".join(part[:1].upper() + part[1:] for part in rest)
    near = [camel] if camel in fields else difflib.get_close_matches(name, fields, n=1)
    return f"read {near[0]!r}, its name on the wire" if near else f"read one of {fields}"


def _check_element_var(qual: str, where: str, node: Mapping[str, Any], var: str, exprs: list[str]) -> None:
    props = node.get("properties")
    if not isinstance(props, dict) or node.get("additionalProperties") not in (None, False):
        return  # not a fixed set of fields: any name may be on the wire
    fields = sorted(props)
    allowed = [*fields, "values"] if len(exprs) > 1 else fields  # Options labels/keys also see `values`
    for i, expr in enumerate(exprs):
        for name in root_fields(expr):
            if name not in (allowed if i else fields):
                raise ActionProtocolError(
                    action=qual,
                    field=f"{where}.x-namespace.{var}",
                    problem=f"reads {name!r}, which {node.get('title', 'the element')!r} does not have on the wire "
                    f"(its JSON fields are {fields}): the variable would always be null",
                    fix=_wire_hint(name, fields),
                    value=expr,
                )


def _check_collisions(component: str, provided: Mapping[str, list[_Binding]]) -> None:
    for var, bindings in provided.items():
        for a in bindings:
            for b in bindings:
                if (a.source, a.expression) != (b.source, b.expression) and a.resource != b.resource:
                    raise ActionProtocolError(
                        action=f"{component}.{b.action}",
                        field=f"x-namespace.{var}",
                        problem=f"resource {a.resource!r} binds {var!r} to {a.source}.{a.expression} while resource "
                        f"{b.resource!r} binds it to {b.source}.{b.expression}: the namespace is shared (seed 7.3)",
                        fix=f"prefix the variable with its resource (e.g. {a.resource}{var[:1].upper()}{var[1:]})",
                        value=var,
                    )


def _check_params(
    component: str, name: str, act: BoundAction, actions: Mapping[str, BoundAction], provided: Mapping[str, Any]
) -> None:
    qual = f"{component}.{name}"
    schema = act.params_schema
    for path, node in iter_schema_nodes(schema):
        where = f"paramsSchema{'.' + path if path else ''}"
        _check_misplaced(qual, where, node, _RETURN_KEYS, "belongs on the returned element DTO")
    for pname, prop in deref(schema, schema).get("properties", {}).items():
        meta = field_meta(schema, prop)
        where = f"paramsSchema.properties.{pname}"
        if "x-fetch" in meta:
            target = meta["x-fetch"]
            target_act = actions.get(target) if isinstance(target, str) else None
            if target_act is None or not target_act.is_read:
                reads = sorted(n for n, a in actions.items() if a.is_read)
                problem = "is not registered" if target_act is None else "is not a read operation"
                raise ActionProtocolError(
                    action=qual,
                    field=f"{where}.x-fetch",
                    problem=f"{target!r} {problem} on {component}; x-fetch may only call a get/get_one/get_list/"
                    "get_graph action",
                    fix=f"use one of {reads} or register a read action",
                    value=target,
                )
        if "x-ref" in meta and meta["x-ref"] not in provided:
            raise ActionProtocolError(
                action=qual,
                field=f"{where}.x-ref",
                problem=f"no x-namespace in the return schemas of {component}'s actions provides {meta['x-ref']!r}",
                fix=f"add it to an element DTO's x-namespace or use one of {sorted(provided)}",
                value=meta["x-ref"],
            )
        if "x-default" in meta:
            _compile(qual, f"{where}.x-default", meta["x-default"])
