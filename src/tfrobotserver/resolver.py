"""The protocol's front-end parameter rules, in Python (`resolve_params`).

A console fills an action's parameters from namespaces: the clicked element's (its x-namespace
evaluated on that element), the container's, and whatever x-fetch brought in. The rules (seed
section 1 and 4.4) are:

- each element has its own scope; element variables override container variables, which
  override fetched ones (a null value does not shadow a lower scope);
- a parameter tries x-ref (a variable name), then x-default (JMESPath over the namespace);
- only when both give nothing may its x-fetch action run; after a fetch the parameter is tried
  again, and so is every parameter still unresolved; the fetch target's own parameters are
  resolved by the same rules (a chain);
- fetches are cached and deduplicated by action + canonical JSON of the resolved params;
- at most 10 fetches per resolution chain, and no cycles: both abort with a clear error;
- an expression that cannot be evaluated on the data (`abs(docId)` on a string) aborts with
  `expression_error` naming the variable or parameter; a comparison of unlike types is null.

Expressions are evaluated by `tfrobotserver.actions.expressions`, the JMESPath the console runs
too. The TypeScript console implements the same rules; both must pass the vectors in `conformance/`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tfrobotserver.actions.expressions import ExpressionError, evaluate
from tfrobotserver.actions.schema_walk import deref, field_meta

MAX_FETCHES = 10
LIMIT_HINT_ZH = "自动补全触发次数过多，已中止，请手动补全参数或检查依赖关系"
CYCLE_HINT_ZH = "自动补全存在循环依赖，已中止，请手动补全参数或检查依赖关系"


@dataclass(frozen=True)
class ActionSchemas:
    """What the resolver knows of an action: its name and the two schemas the API lists."""

    name: str
    params_schema: Mapping[str, Any]
    ret_schema: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class FetchCall:
    """One x-fetch call: the action and its resolved parameters."""

    action: str
    params: dict[str, Any]

    def __str__(self) -> str:
        return f"{self.action}({canonical_json(self.params)})"


@dataclass
class Resolution:
    """Resolved params, required params still without a value, and the fetches made."""

    params: dict[str, Any]
    missing: list[str]
    fetches: list[FetchCall]


class ResolverError(Exception):
    """Resolution aborted; `code` is stable (fetch_limit, fetch_cycle, unknown_fetch_target, expression_error)."""

    def __init__(self, code: str, message: str, chain: list[str]) -> None:
        super().__init__(message)
        self.code = code
        self.chain = chain


Fetch = Callable[[str, dict[str, Any]], Any]
"""Calls an action (e.g. POST …/actions/{name}) and returns its JSON result."""


def canonical_json(value: Any) -> str:
    """The cache key form of params: sorted keys, no whitespace, unicode kept."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class FetchCache:
    """Results by (action + canonical params); share one per form or render round."""

    def __init__(self) -> None:
        self.results: dict[str, Any] = {}

    @staticmethod
    def key(action: str, params: Mapping[str, Any]) -> str:
        """`action` + canonical JSON of `params`."""
        return action + canonical_json(params)


def _evaluate(where: str, expression: str, data: Any) -> Any:
    try:
        return evaluate(expression, data)
    except ExpressionError as exc:
        raise ResolverError(
            "expression_error",
            f"{where}: {exc} — the console shows no value here; fix the expression or the data it reads",
            [],
        ) from exc


def evaluate_namespace(namespace: Mapping[str, Any], element: Any) -> dict[str, Any]:
    """Variables of one x-namespace evaluated against `element` (JMESPath relative to it).

    An Options entry yields {labels, keys, values}: `values` is read from the element, `labels`
    and `keys` from the element with `values` bound to that result (so "values[*].id" works).
    Raises `ResolverError` (`expression_error`) when an expression fails on this element.
    """
    out: dict[str, Any] = {}
    for var, spec in namespace.items():
        where = f"x-namespace.{var}"
        if isinstance(spec, dict) and isinstance(spec.get("Options"), dict):
            opts = spec["Options"]
            values = _evaluate(f"{where}.Options.values", opts["values"], element)
            context = {**element, "values": values} if isinstance(element, dict) else {"values": values}
            out[var] = {
                "labels": _evaluate(f"{where}.Options.labels", opts["labels"], context),
                "keys": _evaluate(f"{where}.Options.keys", opts["keys"], context),
                "values": values,
            }
        elif isinstance(spec, str):
            out[var] = _evaluate(where, spec, element)
    return out


def root_namespace(ret_schema: Mapping[str, Any], data: Any) -> dict[str, Any]:
    """The container-level (root) scope of a result: its root x-namespace on the whole result."""
    root = deref(ret_schema, ret_schema)
    return evaluate_namespace(root.get("x-namespace", {}), data)


def element_namespace(ret_schema: Mapping[str, Any], collection: str, element: Any) -> dict[str, Any]:
    """The scope of one element of `collection` (items / nodes / edges) of a result."""
    root = deref(ret_schema, ret_schema)
    prop = deref(ret_schema, root.get("properties", {}).get(collection, {}))
    item = deref(ret_schema, prop.get("items", {}))
    return evaluate_namespace(item.get("x-namespace", {}), element)


def merge_scopes(*scopes: Mapping[str, Any]) -> dict[str, Any]:
    """Scopes from lowest to highest precedence; a null value does not shadow a lower scope."""
    merged: dict[str, Any] = {}
    for scope in scopes:
        for key, value in scope.items():
            if value is not None or key not in merged:
                merged[key] = value
    return merged


_UNSET = object()


def _lookup(name: str, meta: Mapping[str, Any], namespace: Mapping[str, Any]) -> Any:
    if isinstance(meta.get("x-ref"), str):
        value = namespace.get(meta["x-ref"])
        if value is not None:
            return value
    if isinstance(meta.get("x-default"), str):
        value = _evaluate(f"paramsSchema.properties.{name}.x-default", meta["x-default"], dict(namespace))
        if value is not None:
            return value
    return _UNSET


class _Chain:
    """One resolution chain: shared fetched scope, fetch counter and cache."""

    def __init__(self, fetch: Fetch, catalog: Mapping[str, ActionSchemas], cache: FetchCache, limit: int) -> None:
        self.fetch = fetch
        self.catalog = catalog
        self.cache = cache
        self.limit = limit
        self.calls: list[FetchCall] = []
        self.fetched: dict[str, Any] = {}

    def resolve(
        self, action: ActionSchemas, element: Mapping[str, Any], container: Mapping[str, Any], stack: tuple[str, ...]
    ) -> tuple[dict[str, Any], list[str]]:
        schema = action.params_schema
        root = deref(schema, schema)
        props: dict[str, Any] = root.get("properties", {})
        metas = {name: field_meta(schema, prop) for name, prop in props.items()}
        found: dict[str, Any] = {}
        grown = True
        while grown:  # a fetch may provide what an earlier parameter lacked: retry until nothing new
            before = dict(self.fetched)
            for name, meta in metas.items():
                if name in found:
                    continue
                value = self._lookup(name, meta, merge_scopes(self.fetched, container, element), stack)
                if value is _UNSET and isinstance(meta.get("x-fetch"), str):
                    self._fetch(meta["x-fetch"], element, container, stack)
                    value = self._lookup(name, meta, merge_scopes(self.fetched, container, element), stack)
                if value is not _UNSET:
                    found[name] = value
            grown = self.fetched != before
        required = set(root.get("required", ()))
        params = {name: found[name] for name in props if name in found}
        return params, [name for name in props if name in required and name not in found]

    @staticmethod
    def _lookup(name: str, meta: Mapping[str, Any], namespace: Mapping[str, Any], stack: tuple[str, ...]) -> Any:
        try:
            return _lookup(name, meta, namespace)
        except ResolverError as exc:
            raise ResolverError(exc.code, f"{stack[-1]}.{exc}", list(stack)) from exc.__cause__

    def _fetch(
        self, target: str, element: Mapping[str, Any], container: Mapping[str, Any], stack: tuple[str, ...]
    ) -> None:
        chain = [*stack, target]
        if target in stack:
            raise ResolverError(
                "fetch_cycle",
                f"{CYCLE_HINT_ZH} — x-fetch dependency cycle {' → '.join(chain)}; aborted. "
                "Fill the parameters manually or break the cycle.",
                chain,
            )
        schemas = self.catalog.get(target)
        if schemas is None:
            raise ResolverError(
                "unknown_fetch_target",
                f"x-fetch names {target!r}, which is not among the component's actions {sorted(self.catalog)}",
                chain,
            )
        params, missing = self.resolve(schemas, element, container, (*stack, target))
        if missing:
            return  # the fetch itself cannot be called; its dependants stay unresolved
        key = FetchCache.key(target, params)
        if key not in self.cache.results:
            call = FetchCall(target, params)
            if len(self.calls) >= self.limit:
                done = [str(c) for c in [*self.calls, call]]
                raise ResolverError(
                    "fetch_limit",
                    f"{LIMIT_HINT_ZH} — more than {self.limit} automatic x-fetch calls in one resolution chain; "
                    f"aborted. Fill the parameters manually or check the dependencies. Chain: {' → '.join(done)}",
                    done,
                )
            self.calls.append(call)
            self.cache.results[key] = self.fetch(target, params)
        try:
            self.fetched.update(root_namespace(schemas.ret_schema, self.cache.results[key]))
        except ResolverError as exc:
            raise ResolverError(exc.code, f"{target} result {exc}", chain) from exc.__cause__


def resolve_params(
    action: ActionSchemas,
    element_scope: Mapping[str, Any],
    container_scope: Mapping[str, Any],
    fetch: Fetch,
    *,
    catalog: Mapping[str, ActionSchemas] | None = None,
    cache: FetchCache | None = None,
    max_fetches: int = MAX_FETCHES,
) -> Resolution:
    """Fill `action`'s params from the scopes by the protocol's rules, calling `fetch` if needed.

    `catalog` holds the component's actions (x-fetch targets are looked up there); pass the same
    `cache` to several resolutions of one form or render round to deduplicate their fetches.
    Raises `ResolverError` when the chain loops or needs more than `max_fetches` calls.
    """
    chain = _Chain(fetch, catalog or {}, cache or FetchCache(), max_fetches)
    params, missing = chain.resolve(action, element_scope, container_scope, (action.name,))
    return Resolution(params=params, missing=missing, fetches=chain.calls)
