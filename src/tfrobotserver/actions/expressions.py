"""The protocol's one JMESPath: the expressions of x-namespace and x-default, server side.

The console evaluates the same expressions in the browser (`web/src/protocol/jmespath.ts`), so
both must give the same value for every expression and every JSON document. The language is
JMESPath as Python `jmespath` 1.x parses it (the official compliance suite passes unchanged,
`conformance/jmespath/`), with the gaps closed that made the two sides disagree or crash:

- `<`, `<=`, `>`, `>=` order two numbers, or two strings by code point; anything else gives
  null as the specification says (Python `jmespath` raised a bare TypeError for `"7" < 5`);
- `==`/`!=` are JSON equality at every depth; functions behave as `expression_functions` says;
- backtick literals must be JSON with finite numbers (the deprecated unquoted form is refused);
- unknown functions, wrong arity, a zero slice step and an `&expr` outside a function's
  expression argument are refused when the expression is compiled, not when a branch runs.

Every failure is an `ExpressionError` with a stable `kind` (the compliance suite's error names:
syntax, invalid-type, invalid-arity, unknown-function, invalid-value), never another exception.
"""

from __future__ import annotations

import json
import math
import operator
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import jmespath
from jmespath import exceptions
from jmespath.lexer import Lexer
from jmespath.visitor import Options, TreeInterpreter

from tfrobotserver.actions.expression_functions import ProtocolFunctions, js_values, json_equal

MAX_EXPRESSION_CHARS = 4096
"""Longer expressions are refused before parsing (schemas carry short expressions)."""
MAX_NESTING = 128
"""At most this many nesting tokens (see `_nesting`): Python's stack is 1000 frames deep."""

_FUNCTIONS = ProtocolFunctions()
_OPTIONS = Options(custom_functions=_FUNCTIONS)
_EXPREF_SLOTS = {"map": 0, "sort_by": 1, "min_by": 1, "max_by": 1}
_ORDERING = {"lt": operator.lt, "lte": operator.le, "gt": operator.gt, "gte": operator.ge}


class ExpressionError(ValueError):
    """A JMESPath expression that cannot be compiled, or cannot be evaluated on this data."""

    def __init__(self, kind: str, expression: str, message: str) -> None:
        self.kind = kind
        self.expression = expression
        self.message = message
        super().__init__(f"JMESPath {kind} error in {expression!r}: {message}")


@dataclass(frozen=True)
class CompiledExpression:
    """A checked expression: its text and the jmespath AST (a tree of plain dicts)."""

    expression: str
    ast: Any
    """jmespath's parse tree: dicts with type, children and value (a TypedDict only in its stubs)."""


def _kind(exc: BaseException) -> str:
    if isinstance(exc, exceptions.ArityError):
        return "invalid-arity"
    if isinstance(exc, exceptions.UnknownFunctionError):
        return "unknown-function"
    if isinstance(exc, exceptions.JMESPathTypeError | TypeError):
        return "invalid-type"
    if isinstance(exc, exceptions.ParseError | exceptions.EmptyExpressionError | PendingDeprecationWarning):
        return "syntax"
    if isinstance(exc, RecursionError):
        return "invalid-value"
    return "invalid-value"


def _nesting(expression: str) -> int:
    """( { [ (not []) ! (not !=) & (not &&) outside quotes, and [ { inside backtick literals.

    Counted on the text before parsing, identically in the console (`nesting` in jmespath.ts),
    so that a deep expression is refused with the same kind on both sides.
    """
    count, i, n = 0, 0, len(expression)
    while i < n:
        c = expression[i]
        if c in "\"'`":
            i += 1
            while i < n and expression[i] != c:
                if expression[i] == "\\":
                    i += 1
                elif c == "`" and expression[i] in "[{":
                    count += 1
                i += 1
        elif c in "({!&":
            if expression[i + 1 : i + 2] == {"!": "=", "&": "&"}.get(c):
                i += 1
            else:
                count += 1
        elif c == "[" and expression[i + 1 : i + 2] != "]":
            count += 1
        i += 1
    return count


def _first_line(exc: BaseException) -> str:
    if isinstance(exc, RecursionError):
        return "nested too deeply to evaluate"
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _finite_json(value: Any) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            return math.isfinite(float(value))
        except OverflowError:
            return False
    if isinstance(value, list):
        return all(_finite_json(v) for v in value)
    if isinstance(value, dict):
        return all(_finite_json(v) for v in value.values())
    return True


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _backtick_lexeme(expression: str, start: int) -> str:
    """The text between a literal's backticks, unescaped exactly as jmespath's lexer does."""
    i, chars = start + 1, []
    while expression[i] != "`":
        if expression[i] == "\\":
            chars.append("\\")
            i += 1
        chars.append(expression[i])
        i += 1
    return "".join(chars).replace("\\`", "`")


def _check_literals(expression: str) -> None:
    for token in Lexer().tokenize(expression):
        if token["type"] != "literal" or expression[token["start"]] != "`":
            continue
        lexeme = _backtick_lexeme(expression, token["start"])
        try:
            value = json.loads(lexeme, parse_constant=_refuse_constant)
        except ValueError as exc:
            raise ExpressionError(
                "syntax", expression, f"literal `{lexeme}` is not JSON (quote strings: `\"text\"` or 'text')"
            ) from exc
        if not _finite_json(value):
            raise ExpressionError("syntax", expression, f"literal `{lexeme}` holds a number beyond a double")


def _walk(node: dict[str, Any], expref_ok: bool = False) -> Iterator[tuple[dict[str, Any], bool]]:
    yield node, expref_ok
    slot = _EXPREF_SLOTS.get(node["value"]) if node["type"] == "function_expression" else None
    for i, child in enumerate(node.get("children", ())):
        if isinstance(child, dict):
            yield from _walk(child, i == slot)


def _check_tree(expression: str, ast: dict[str, Any]) -> None:
    table = _FUNCTIONS.FUNCTION_TABLE
    for node, expref_ok in _walk(ast):
        kind = node["type"]
        if kind == "expref" and not expref_ok:
            raise ExpressionError(
                "invalid-type", expression, "&expr is only an argument of map, sort_by, min_by and max_by"
            )
        if kind == "slice" and node["children"][2] == 0:
            raise ExpressionError("invalid-value", expression, "a slice step cannot be 0")
        if kind == "function_expression":
            name, args = node["value"], len(node["children"])
            if name not in table:
                raise ExpressionError(
                    "unknown-function", expression, f"unknown function {name}(); use one of {sorted(table)}"
                )
            sig = table[name]["signature"]
            variadic = bool(sig) and sig[-1].get("variadic", False)
            if args < len(sig) or (args > len(sig) and not variadic):
                want = f"at least {len(sig)}" if variadic else str(len(sig))
                raise ExpressionError("invalid-arity", expression, f"{name}() takes {want} argument(s), got {args}")


@lru_cache(maxsize=1024)
def compile_expression(expression: str) -> CompiledExpression:
    """Parse and check `expression` once (cached); raise `ExpressionError` when it is refused."""
    if not isinstance(expression, str):
        raise ExpressionError("syntax", repr(expression), "an expression must be a string")
    if len(expression) > MAX_EXPRESSION_CHARS:
        raise ExpressionError("invalid-value", expression[:40] + "…", f"longer than {MAX_EXPRESSION_CHARS} characters")
    if _nesting(expression) > MAX_NESTING:
        raise ExpressionError("invalid-value", expression, f"nests more than {MAX_NESTING} levels")
    try:
        ast = dict(jmespath.compile(expression).parsed)
        _check_literals(expression)
    except ExpressionError:
        raise
    except (exceptions.JMESPathError, PendingDeprecationWarning, RecursionError) as exc:
        raise ExpressionError(_kind(exc), expression, _first_line(exc)) from exc
    _check_tree(expression, ast)
    return CompiledExpression(expression, ast)


class _Interpreter(TreeInterpreter):
    """jmespath's tree interpreter with total ordering, JSON equality and browser member order."""

    def visit_comparator(self, node: Any, value: Any) -> Any:
        left = self.visit(node["children"][0], value)
        right = self.visit(node["children"][1], value)
        op = node["value"]
        if op in ("eq", "ne"):
            return json_equal(left, right) is (op == "eq")
        numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (left, right))
        strings = isinstance(left, str) and isinstance(right, str)
        return _ORDERING[op](left, right) if numbers or strings else None

    def visit_value_projection(self, node: Any, value: Any) -> Any:
        base = self.visit(node["children"][0], value)
        if not isinstance(base, dict):
            return None
        collected = []
        for element in js_values(base):
            current = self.visit(node["children"][1], element)
            if current is not None:
                collected.append(current)
        return collected


def evaluate(expression: str, data: Any) -> Any:
    """The value of `expression` on the JSON `data`; raise `ExpressionError`, never anything else."""
    compiled = compile_expression(expression)
    try:
        return _Interpreter(_OPTIONS).visit(compiled.ast, data)
    except (exceptions.JMESPathError, TypeError, ValueError, RecursionError) as exc:
        raise ExpressionError(_kind(exc), expression, _first_line(exc)) from exc


_CHAINS = frozenset({"subexpression", "index_expression", "pipe"})
_PROJECTIONS = frozenset({"projection", "filter_projection", "value_projection", "flatten"})
_SAME_INPUT = frozenset({"comparator", "or_expression", "and_expression", "not_expression", "multi_select_list",
                         "multi_select_dict", "key_val_pair", "function_expression"})  # fmt: skip


def _root_reads(node: dict[str, Any]) -> Iterator[str]:
    kind, children = node["type"], node.get("children", [])
    if kind == "field":
        yield node["value"]
    elif kind in _CHAINS:
        for child in children:
            yield from _root_reads(child)
            if child["type"] not in ("current", "identity"):
                break  # the next step reads the previous step's value, not the document
    elif kind in _PROJECTIONS:
        yield from _root_reads(children[0])  # the rest reads each projected element
    elif kind in _SAME_INPUT:
        for child in children:
            if child["type"] != "expref":  # an &expr reads the elements of an argument
                yield from _root_reads(child)


def root_fields(expression: str) -> list[str]:
    """The top-level fields of the document that `expression` reads (`@.page` reads page).

    The registration checks compare them with the fields a schema declares, so that an
    x-namespace naming `row_id` where the wire says `rowId` fails at import, not as a null.
    """
    return list(dict.fromkeys(_root_reads(compile_expression(expression).ast)))
