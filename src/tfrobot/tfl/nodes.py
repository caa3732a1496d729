"""The syntax tree of a TFL program: small frozen nodes that know their source span and their height.

`height` (the longest chain of nested nodes below and including this one) is computed bottom-up while
parsing, so the depth limit is checked once, before evaluation, and the recursive evaluator never
descends deeper than `TFLLimits.max_depth`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeAlias


@dataclass(frozen=True, slots=True)
class Span:
    """Where a node is in the source: 1-based line and column of its start and just past its end."""

    line: int
    column: int
    end_line: int
    end_column: int


@dataclass(frozen=True, slots=True)
class Node:
    """Fields shared by every node."""

    span: Span
    height: int = field(default=1, kw_only=True)


# ---- expressions ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Const(Node):
    """A literal: null, true, false, a number or a string."""

    value: bool | int | float | str | None


@dataclass(frozen=True, slots=True)
class Var(Node):
    """A variable read."""

    name: str


@dataclass(frozen=True, slots=True)
class ListExpr(Node):
    """`[a, b, …]`."""

    items: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class DictExpr(Node):
    """`{key: value, …}`; keys are expressions that must evaluate to strings."""

    pairs: tuple[tuple[Expr, Expr], ...]


@dataclass(frozen=True, slots=True)
class Unary(Node):
    """`-x`, `+x` or `not x`."""

    op: str
    operand: Expr


@dataclass(frozen=True, slots=True)
class BinOp(Node):
    """Arithmetic (`+ - * / // %`) and comparison (`== != < <= > >= in` and `not in`)."""

    op: str
    left: Expr
    right: Expr
    op_span: Span


@dataclass(frozen=True, slots=True)
class BoolOp(Node):
    """`a and b and …` / `a or b or …`: short-circuit, the value of the deciding operand (as Python)."""

    op: str
    operands: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Index(Node):
    """`target[index]`: list or string position, or dict key. The only way into a container."""

    target: Expr
    index: Expr


@dataclass(frozen=True, slots=True)
class Keyword(Node):
    """One `name=value` argument of a call."""

    name: str
    value: Expr


@dataclass(frozen=True, slots=True)
class Call(Node):
    """`name(args…, key=value…)`: a builtin or a registered tool. Only names can be called."""

    name: str
    args: tuple[Expr, ...]
    kwargs: tuple[Keyword, ...]
    name_span: Span


Expr: TypeAlias = Const | Var | ListExpr | DictExpr | Unary | BinOp | BoolOp | Index | Call


# ---- statements ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Assign(Node):
    """`name = value` or `name[i][j] = value` (which rebinds `name` to an updated copy: values are immutable)."""

    name: str
    indexes: tuple[Expr, ...]
    value: Expr


@dataclass(frozen=True, slots=True)
class ExprStmt(Node):
    """An expression on its own line; a call, usually. The last one's value is echoed like a console."""

    expr: Expr


@dataclass(frozen=True, slots=True)
class Pass(Node):
    """`pass`: an empty block."""


@dataclass(frozen=True, slots=True)
class If(Node):
    """`if c: … elif c: … else: …` — `branches` are the (condition, body) pairs in order."""

    branches: tuple[tuple[Expr, tuple[Stmt, ...]], ...]
    orelse: tuple[Stmt, ...]


@dataclass(frozen=True, slots=True)
class For(Node):
    """`for name in iterable: …` over a list, a string, a dict's keys or a `range`: always bounded."""

    var: str
    var_span: Span
    iterable: Expr
    body: tuple[Stmt, ...]


Stmt: TypeAlias = Assign | ExprStmt | Pass | If | For


@dataclass(frozen=True, slots=True)
class Program(Node):
    """A whole script."""

    body: tuple[Stmt, ...]
