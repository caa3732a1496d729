"""The static checker of TFL: every problem a script has that shows without running it.

`TFLInterpreter.validate` is this (the plan-validate path: a planner can reject a script before any tool has
side effects), and `arun` checks before it evaluates. It finds syntax-level limits (nesting), unknown tools,
builtins and variables, and argument names and counts, up to `MAX_REPORTED_ERRORS` at once so that the LLM can
fix them in one go.
"""

from __future__ import annotations

import difflib
import itertools
import re
from collections.abc import Iterable, Sequence

from tfrobot.tfl.errors import ErrorKind, TFLError
from tfrobot.tfl.nodes import (
    Assign,
    BinOp,
    BoolOp,
    Call,
    DictExpr,
    ExprStmt,
    For,
    If,
    Index,
    Keyword,
    ListExpr,
    Node,
    Program,
    Span,
    Stmt,
    Unary,
    Var,
)
from tfrobot.tfl.parser import KEYWORDS, RESERVED
from tfrobot.tfl.tool_registry import TFLToolRegistry
from tfrobot.tfl.values import fail

__all__ = ["BUILTINS", "MAX_REPORTED_ERRORS", "check", "children", "shown", "suggest", "tool_name_problem"]

BUILTINS: dict[str, tuple[int, int | None, frozenset[str], str]] = {
    "print": (0, None, frozenset({"sep"}), 'print(value, …, sep=" ") writes a line of output'),
    "attach": (1, None, frozenset(), "attach(x, …) adds media a tool returned to the output"),
    "len": (1, 1, frozenset(), "len(x): characters of a string, items of a list or dict"),
    "str": (1, 1, frozenset(), "str(x): a value as text"),
    "int": (1, 1, frozenset(), "int(x): a number or numeric string as an integer"),
    "float": (1, 1, frozenset(), "float(x): a number or numeric string as a float"),
    "range": (1, 3, frozenset(), "range(stop) / range(start, stop[, step]): a list of integers"),
    "keys": (1, 1, frozenset(), "keys(d): a dict's keys"),
    "values": (1, 1, frozenset(), "values(d): a dict's values"),
    "items": (1, 1, frozenset(), "items(d): a dict's [key, value] pairs"),
}
"""Builtin name -> (min positional, max positional or None, keywords, one-line help)."""

MAX_REPORTED_ERRORS = 10

_SHOWN_KEY = 60
"""Characters of a missing key that an error message repeats."""
_SUGGESTED = 1_000
"""Names compared with a missing one for a "did you mean" (difflib is quadratic in their length)."""


def check(program: Program, tools: TFLToolRegistry, max_depth: int) -> list[TFLError]:
    """The static errors of `program` against `tools` (at most `MAX_REPORTED_ERRORS`); [] means it may run."""
    deep = _too_deep(program, max_depth)
    if deep is not None:
        return [deep]
    checker = _Checker(tools)
    checker.block(program.body, set())
    return checker.errors[:MAX_REPORTED_ERRORS]


def children(node: Node) -> tuple[Node, ...]:
    """The direct sub-nodes of any node, in source order."""
    match node:
        case Program():
            return node.body
        case ListExpr():
            return node.items
        case DictExpr():
            return tuple(n for pair in node.pairs for n in pair)
        case Unary():
            return (node.operand,)
        case BinOp():
            return (node.left, node.right)
        case BoolOp():
            return node.operands
        case Index():
            return (node.target, node.index)
        case Keyword():
            return (node.value,)
        case Call():
            return (*node.args, *node.kwargs)
        case Assign():
            return (*node.indexes, node.value)
        case ExprStmt():
            return (node.expr,)
        case If():
            return (*(n for cond, body in node.branches for n in (cond, *body)), *node.orelse)
        case For():
            return (node.iterable, *node.body)
    return ()


def _too_deep(program: Program, limit: int) -> TFLError | None:
    """The first place where nesting exceeds `limit`, found by walking down the tallest branch."""
    for stmt in program.body:
        if stmt.height <= limit:
            continue
        node: Node = stmt
        for _ in range(limit):
            below = children(node)
            if not below:
                break
            node = max(below, key=lambda n: n.height)
        span = node.span
        return TFLError(
            kind="limit",
            message=f"nesting limit: expressions and blocks nest at most {limit} levels deep here; "
            "split the expression with intermediate variables",
            line=span.line,
            column=span.column,
            end_line=span.end_line,
            end_column=span.end_column,
        )
    return None


def _assigned(body: Sequence[Stmt]) -> set[str]:
    """Every variable a block assigns, at any depth."""
    names: set[str] = set()
    for stmt in body:
        if isinstance(stmt, Assign):
            names.add(stmt.name)
        elif isinstance(stmt, For):
            names.add(stmt.var)
            names |= _assigned(stmt.body)
        elif isinstance(stmt, If):
            for _, block in stmt.branches:
                names |= _assigned(block)
            names |= _assigned(stmt.orelse)
    return names


def suggest(name: str, known: Iterable[str]) -> str:
    """A close match among the first `_SUGGESTED` short names. A key can be a megabyte of text, and
    difflib on two such strings takes seconds in one step that the time limit cannot interrupt."""
    if len(name) > _SHOWN_KEY:
        return ""
    candidates = [k for k in itertools.islice(known, _SUGGESTED) if len(k) <= _SHOWN_KEY]
    close = difflib.get_close_matches(name, candidates, n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def shown(key: str) -> str:
    """A key as an error message shows it: its beginning, and its length when it is long."""
    if len(key) <= _SHOWN_KEY:
        return repr(key)
    return f"{key[:_SHOWN_KEY]!r}… ({len(key):,} characters)"


_TFL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
"""The grammar's NAME: ASCII only (`str.isidentifier` also takes `天气`, which no script can write)."""


def tool_name_problem(name: str) -> str | None:
    """Why no TFL script could call a tool named `name` (None: it can), said so a user can act on it."""
    if not _TFL_NAME.fullmatch(name):
        return "not an ASCII name: TFL names are letters A-Z, digits and _, not starting with a digit"
    if name in KEYWORDS or name in RESERVED:
        return f"{name!r} is a TFL keyword"
    if name in BUILTINS:
        return f"{name!r} is a TFL builtin"
    return None


class _Checker:
    """One walk over a program: the names known at each point, and the errors found so far."""

    def __init__(self, tools: TFLToolRegistry) -> None:
        self.tools = tools
        self.errors: list[TFLError] = []

    def error(self, kind: ErrorKind, message: str, span: Span) -> None:
        self.errors.append(fail(kind, message, span).error)

    def block(self, body: Sequence[Stmt], known: set[str]) -> None:
        for stmt in body:
            if isinstance(stmt, Assign):
                self.expr(stmt.value, known)
                for index in stmt.indexes:
                    self.expr(index, known)
                if stmt.indexes and stmt.name not in known:
                    self.error("name", f"variable {stmt.name!r} is not defined before this line", stmt.span)
                known.add(stmt.name)
            elif isinstance(stmt, ExprStmt):
                self.expr(stmt.expr, known)
            elif isinstance(stmt, If):
                for cond, block in stmt.branches:
                    self.expr(cond, known)
                    self.block(block, known)
                self.block(stmt.orelse, known)
            elif isinstance(stmt, For):
                self.expr(stmt.iterable, known)
                known.add(stmt.var)
                # a body may read on turn 2 what it assigns on turn 1 (`prev = i` after `print(prev)`)
                known.update(_assigned(stmt.body))
                self.block(stmt.body, known)

    def expr(self, expr: Node, known: set[str]) -> None:
        if isinstance(expr, Var) and expr.name not in known:
            hint = suggest(expr.name, known)
            if not hint and (expr.name in BUILTINS or self.tools.signature(expr.name) is not None):
                hint = f"; {expr.name} is a {'builtin' if expr.name in BUILTINS else 'tool'}: call it, {expr.name}(…)"
            self.error("name", f"variable {expr.name!r} is not defined{hint}", expr.span)
        if isinstance(expr, Call):
            self.call(expr)
        for child in children(expr):
            self.expr(child, known)

    def call(self, call: Call) -> None:
        name, nargs = call.name, len(call.args)
        if name in BUILTINS:
            low, high, keywords, usage = BUILTINS[name]
            if nargs < low or (high is not None and nargs > high):
                self.error("argument", f"wrong number of arguments: {usage}", call.span)
            for kw in call.kwargs:
                if kw.name not in keywords:
                    self.error("argument", f"{name}() takes no keyword {kw.name!r}: {usage}", kw.span)
            return
        sig = self.tools.signature(name)
        if sig is None:
            known = [*self.tools.names(), *BUILTINS]
            self.error("name", f"unknown tool {name!r}{suggest(name, known)}", call.name_span)
            return
        params = ", ".join(sig.parameters) or "no parameters"
        if nargs and not sig.positional:
            self.error("argument", f"tool {name!r} takes keyword arguments only ({params})", call.span)
            return
        if nargs > len(sig.parameters):
            self.error("argument", f"tool {name!r} takes at most {len(sig.parameters)} arguments ({params})", call.span)
            return
        given = set(sig.parameters[:nargs])
        for kw in call.kwargs:
            if kw.name in given:
                self.error("argument", f"argument {kw.name!r} of tool {name!r} is given twice", kw.span)
            elif kw.name not in sig.parameters and not sig.any_keyword:
                hint = suggest(kw.name, sig.parameters)
                self.error("argument", f"tool {name!r} has no parameter {kw.name!r}{hint} (takes {params})", kw.span)
            given.add(kw.name)
        missing = sorted(sig.required - given)
        if missing:
            self.error("argument", f"tool {name!r} needs argument(s) {', '.join(missing)} (takes {params})", call.span)
