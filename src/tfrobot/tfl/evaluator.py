"""The evaluator of TFL: runs a checked program, statement by statement, against its tools.

Values are immutable (assignment into a list or dict builds new containers), every step is counted and the
clock checked (`RunState`), and every operation that could build a huge value refuses before it builds it. Tools
are called on the caller's event loop (`RunState.home`) while the script runs on a worker thread; a failure of
any kind is raised as a `TFLScriptError` with its position, which the facade turns into the console result.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Iterable, Sequence
from typing import Any

from tfrobot.tfl.checker import BUILTINS, shown, suggest
from tfrobot.tfl.errors import TFLScriptError
from tfrobot.tfl.nodes import (
    Assign,
    BinOp,
    BoolOp,
    Call,
    Const,
    DictExpr,
    Expr,
    ExprStmt,
    For,
    If,
    Index,
    ListExpr,
    Pass,
    Program,
    Span,
    Stmt,
    Unary,
    Var,
)
from tfrobot.tfl.run_state import RunState
from tfrobot.tfl.values import (
    TList,
    a_type,
    fail,
    media_parts,
    plain,
    render,
    size_of,
    to_python,
    type_name,
)

__all__ = ["Evaluator"]

_WORK_BETWEEN_CHECKS = 100_000
"""Items or characters one comparison goes through between two looks at the clock."""


class Evaluator(RunState):
    """One run of one program: the walk over its tree, on top of the run's state and limits."""

    # ---- statements -----------------------------------------------------------------------------

    async def program(self, program: Program) -> None:
        last: object = None
        for index, stmt in enumerate(program.body):
            last = await self.stmt(stmt)
            if index == len(program.body) - 1 and isinstance(stmt, ExprStmt) and last is not None:
                self.emit([last], " ", stmt.span)

    async def block(self, body: Sequence[Stmt]) -> None:
        for stmt in body:
            await self.stmt(stmt)

    async def stmt(self, stmt: Stmt) -> object:
        self.tick(stmt.span)
        if isinstance(stmt, ExprStmt):
            return await self.expr(stmt.expr)
        if isinstance(stmt, Assign):
            value = await self.expr(stmt.value)
            if stmt.indexes:
                keys: list[object] = []
                for index in stmt.indexes:
                    keys.append(await self.expr(index))
                value = self.set_in(self.var(stmt.name, stmt.span), keys, stmt.indexes, value)
            self.vars[stmt.name] = value
        elif isinstance(stmt, If):
            for cond, body in stmt.branches:
                if self.truthy(await self.expr(cond)):
                    await self.block(body)
                    break
            else:
                await self.block(stmt.orelse)
        elif isinstance(stmt, For):
            iterable = plain(await self.expr(stmt.iterable))
            items: Iterable[object]
            if isinstance(iterable, list | dict):
                items = list(iterable)
            elif isinstance(iterable, str):
                items = iterable
            else:
                raise fail("type", f"cannot loop over {a_type(iterable)}", stmt.iterable.span)
            for item in items:
                self.tick(stmt.var_span)
                self.vars[stmt.var] = item
                await self.block(stmt.body)
        elif isinstance(stmt, Pass):
            pass
        return None

    def var(self, name: str, span: Span) -> object:
        try:
            return self.vars[name]
        except KeyError:
            raise fail("name", f"variable {name!r} is not defined{suggest(name, self.vars)}", span) from None

    def set_in(self, container: object, keys: list[object], nodes: Sequence[Expr], value: object) -> object:
        """`container` with `value` at the path `keys`, as new containers (values are immutable)."""
        target = plain(container)
        key, span = keys[0], nodes[0].span
        if isinstance(target, list):
            position = self.position(target, key, span)
            inner = value if len(keys) == 1 else self.set_in(target[position], keys[1:], nodes[1:], value)
            items = list(target)
            items[position] = inner
            return self.budget.new_list(items, span)
        if isinstance(target, dict):
            if not isinstance(key, str):
                raise fail("type", f"dict keys are strings, not {type_name(key)}", span)
            if len(keys) == 1:
                inner = value
            elif key in target:
                inner = self.set_in(target[key], keys[1:], nodes[1:], value)
            else:
                raise fail("index", f"no key {shown(key)} in this dict{self.key_hint(target, key)}", span)
            pairs = dict(target)
            pairs[key] = inner
            return self.budget.new_dict(pairs.items(), span)
        raise fail("type", f"cannot assign into {a_type(target)}", span)

    # ---- expressions ----------------------------------------------------------------------------

    async def expr(self, node: Expr) -> object:
        self.tick(node.span)
        if isinstance(node, Const):
            return node.value
        if isinstance(node, Var):
            return self.var(node.name, node.span)
        if isinstance(node, BinOp):
            left = await self.expr(node.left)
            right = await self.expr(node.right)
            return self.binop(node, plain(left), plain(right))
        if isinstance(node, Index):
            target = plain(await self.expr(node.target))
            if not isinstance(target, list | str | dict):
                raise fail("type", f"cannot index {a_type(target)}", node.target.span)
            return self.index(target, plain(await self.expr(node.index)), node.index.span)
        if isinstance(node, Call):
            return await self.call(node)
        if isinstance(node, BoolOp):
            decided: object = None
            for part in node.operands:
                decided = await self.expr(part)
                if self.truthy(decided) == (node.op == "or"):
                    return decided
            return decided
        if isinstance(node, Unary):
            operand = plain(await self.expr(node.operand))
            if node.op == "not":
                return not self.truthy(operand)
            if not isinstance(operand, int | float) or isinstance(operand, bool):
                raise fail("type", f"unary {node.op} needs a number, not {a_type(operand)}", node.span)
            result = -operand if node.op == "-" else operand
            return self.budget.check_int(result, node.span) if isinstance(result, int) else result
        if isinstance(node, ListExpr):
            items: list[object] = []
            for item in node.items:  # loops, not comprehensions, here: one stack frame per nesting level
                items.append(await self.expr(item))
            return self.budget.new_list(items, node.span)
        if isinstance(node, DictExpr):
            pairs: list[tuple[str, object]] = []
            for key_node, value_node in node.pairs:
                key = plain(await self.expr(key_node))
                if not isinstance(key, str):
                    raise fail("type", f"dict keys are strings, not {type_name(key)}", key_node.span)
                pairs.append((key, await self.expr(value_node)))
            return self.budget.new_dict(pairs, node.span)
        raise fail("internal", f"unknown node {type(node).__name__}", node.span)  # pragma: no cover

    @staticmethod
    def truthy(value: object) -> bool:
        value = plain(value)
        return bool(value) if value is None or isinstance(value, bool | int | float | str | list | dict) else True

    def binop(self, node: BinOp, left: object, right: object) -> object:
        op, span = node.op, node.op_span
        match op:
            case "==":
                return self.equal(left, right, span)
            case "!=":
                return not self.equal(left, right, span)
            case "in" | "not in":
                found = self.contains(right, left, span)
                return found if op == "in" else not found
            case "<" | "<=" | ">" | ">=":
                both_numbers = _number(left) and _number(right)
                if not (both_numbers or (isinstance(left, str) and isinstance(right, str))):
                    raise fail("type", f"cannot compare {type_name(left)} {op} {type_name(right)}", span)
                a: Any = left
                b: Any = right
                return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
            case "+":
                return self.add(left, right, span)
            case "*":
                return self.multiply(left, right, span)
        if not (_number(left) and _number(right)):
            raise fail("type", f"cannot apply {op} to {type_name(left)} and {type_name(right)}", span)
        x: Any = left
        y: Any = right
        if op in ("/", "//", "%") and y == 0:
            raise fail("value", "division by zero", span)
        result = {"-": lambda: x - y, "/": lambda: x / y, "//": lambda: x // y, "%": lambda: x % y}[op]()
        return self.number(result, span)

    def number(self, result: Any, span: Span) -> object:
        if isinstance(result, int):
            return self.budget.check_int(result, span)
        return self.budget.check_float(result, span)

    def add(self, left: object, right: object, span: Span) -> object:
        if _number(left) and _number(right):
            x: Any = left
            return self.number(x + right, span)
        if isinstance(left, str) and isinstance(right, str):
            self.budget.check_string_length(len(left) + len(right), span)
            return self.budget.string(left + right, span)
        if isinstance(left, list) and isinstance(right, list):
            size = size_of(left) + size_of(right) - 1
            if size > self.limits.max_value_size:  # refuse before building: `xs + xs` doubles
                raise fail(
                    "limit",
                    f"value limit: a list of {size:,} nested items exceeds {self.limits.max_value_size:,}",
                    span,
                )
            return self.budget.new_list([*left, *right], span)
        hint = "; convert with str(x) first" if isinstance(left, str) or isinstance(right, str) else ""
        raise fail("type", f"cannot add {type_name(left)} and {type_name(right)}{hint}", span)

    def multiply(self, left: object, right: object, span: Span) -> object:
        if _number(left) and _number(right):
            x: Any = left
            return self.number(x * right, span)
        if isinstance(right, str | list) and isinstance(left, int) and not isinstance(left, bool):
            left, right = right, left
        if isinstance(left, str | list) and isinstance(right, int) and not isinstance(right, bool):
            count = max(right, 0)
            if isinstance(left, str):
                self.budget.check_string_length(len(left) * count, span)
                return self.budget.string(left * count, span)
            items = len(left) * count
            if items + 1 > self.limits.max_value_size:  # refuse before building: `[0] * 10**12` is one step
                raise fail(
                    "limit",
                    f"value limit: a list of {items:,} items exceeds {self.limits.max_value_size:,}",
                    span,
                )
            return self.budget.new_list(left * count, span)
        raise fail("type", f"cannot multiply {type_name(left)} by {type_name(right)}", span)

    def equal(self, left: object, right: object, span: Span) -> bool:
        """`left == right`, with the clock checked as the comparison goes: one `xs == ys` of two lists of
        100,000 distinct megabyte strings compares 10^11 characters in what is a single step."""
        pairs: list[tuple[object, object]] = [(left, right)]
        work = 0
        while pairs:
            a, b = pairs.pop()
            a, b = plain(a), plain(b)
            if a is b:
                continue
            if isinstance(a, list) and isinstance(b, list):
                if len(a) != len(b):
                    return False
                pairs.extend(zip(a, b, strict=True))
                work += len(a)
            elif isinstance(a, dict) and isinstance(b, dict):
                if a.keys() != b.keys():
                    return False
                pairs.extend((a[key], b[key]) for key in a)
                work += len(a)
            else:
                if a != b:
                    return False
                work += len(a) if isinstance(a, str) else 1
            if work > _WORK_BETWEEN_CHECKS:
                self.check_clock(span)
                work = 0
        return True

    def contains(self, container: object, item: object, span: Span) -> bool:
        if isinstance(container, list):
            return any(self.equal(v, item, span) for v in container)
        if isinstance(container, dict):
            return isinstance(item, str) and item in container
        if isinstance(container, str):
            if not isinstance(item, str):
                raise fail("type", f"`in` a string needs a string on the left, not {type_name(item)}", span)
            return item in container
        raise fail("type", f"`in` needs a list, dict or string on the right, not {type_name(container)}", span)

    def position(self, target: list[object] | str, key: object, span: Span) -> int:
        if not isinstance(key, int) or isinstance(key, bool):
            raise fail("type", f"{a_type(target)} index is an integer, not {type_name(key)}", span)
        if not -len(target) <= key < len(target):
            what = "characters" if isinstance(target, str) else "items"
            raise fail("index", f"index {key} is out of range for {a_type(target)} of {len(target)} {what}", span)
        return key

    @staticmethod
    def key_hint(target: dict[str, object], key: str) -> str:
        """What the LLM needs to fix a missing key: the closest key, and the keys there are."""
        if not target:
            return " (it is empty)"
        names = itertools.islice(target, 10)
        more = ", …" if len(target) > 10 else ""
        listed = f"{', '.join(shown(n) for n in names)}{more}"
        suggestion = suggest(key, target)
        return f"{suggestion} Its keys: {listed}" if suggestion else f"; its keys: {listed}"

    def index(self, target: object, key: object, span: Span) -> object:
        if isinstance(target, list | str):
            position = self.position(target, key, span)
            return target[position]
        if isinstance(target, dict):
            if not isinstance(key, str):
                raise fail("type", f"dict keys are strings, not {type_name(key)}", span)
            if key not in target:
                raise fail("index", f"no key {shown(key)} in this dict{self.key_hint(target, key)}", span)
            return target[key]
        raise fail("type", f"cannot index {a_type(target)}", span)

    # ---- calls ----------------------------------------------------------------------------------

    async def call(self, node: Call) -> object:
        args: list[object] = []
        for arg in node.args:
            args.append(await self.expr(arg))
        kwargs: dict[str, object] = {}
        for kw in node.kwargs:
            kwargs[kw.name] = await self.expr(kw.value)
        if node.name in BUILTINS:
            return self.builtin(node, args, kwargs)
        return await self.tool(node, args, kwargs)

    async def tool(self, node: Call, args: list[object], kwargs: dict[str, object]) -> object:
        sig = self.tools.signature(node.name)
        if sig is None:  # validated before the run; a registry may still change under us
            raise fail("name", f"unknown tool {node.name!r}", node.name_span)
        arguments = {name: to_python(value) for name, value in zip(sig.parameters, args, strict=False)}
        arguments.update({name: to_python(value) for name, value in kwargs.items()})
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise fail("timeout", self.time_limit(), node.span)
        timeout = min(self.limits.tool_timeout_seconds, remaining)
        self.tool_calls += 1
        pending = asyncio.run_coroutine_threadsafe(self.tools.acall(node.name, arguments), self.home)
        self.pending = pending
        try:
            raw = await asyncio.wait_for(asyncio.wrap_future(pending), timeout)
        except TimeoutError:
            if timeout < self.limits.tool_timeout_seconds:
                raise fail("timeout", f"{self.time_limit()} (waiting for tool {node.name!r})", node.span) from None
            raise fail("timeout", f"tool {node.name!r} did not answer within {timeout:g} s", node.span) from None
        except asyncio.CancelledError:  # stop() cancelled the call; the step check reports it
            raise fail("timeout", "stopped: the turn that ran this script was cancelled", node.span) from None
        except TFLScriptError:
            raise
        except Exception as exc:
            raise fail("tool", f"tool {node.name!r} failed: {type(exc).__name__}: {exc}", node.span) from None
        finally:
            self.pending = None
        return self.budget.from_python(raw, node.span, node.name)

    def builtin(self, node: Call, args: list[object], kwargs: dict[str, object]) -> object:
        name, span = node.name, node.span
        if name == "print":
            sep = plain(kwargs.get("sep", " "))
            if not isinstance(sep, str):
                raise fail("type", f"print(sep=…) takes a string, not {type_name(sep)}", span)
            self.emit(args, sep, span)
            return None
        if name == "attach":
            for arg, arg_node in zip(args, node.args, strict=True):
                found = media_parts(arg)
                if found is None:
                    raise fail(
                        "type",
                        f"attach() takes media a tool returned (an image, audio, video or file part, or a tool "
                        f"result with attachments), not {type_name(arg)}",
                        arg_node.span,
                    )
                if len(self.attachments) + len(found) > self.limits.max_attachments:
                    raise fail(
                        "limit", f"attachment limit: at most {self.limits.max_attachments} attachments", arg_node.span
                    )
                self.attachments.extend(found)
            return None
        value = plain(args[0]) if args else None
        if name == "len":
            if isinstance(value, str | list | dict):
                return len(value)
            raise fail("type", f"len() of {a_type(value)}", span)
        if name == "str":
            return self.budget.string(self.text_of(value, self.limits.max_string_chars, span), span)
        if name in ("int", "float"):
            return self.convert(name, value, span)
        if name == "range":
            return self.range(args, span)
        if not isinstance(value, dict):
            raise fail("type", f"{name}() takes a dict, not {type_name(value)}", span)
        if name == "keys":
            return self.budget.new_list(value.keys(), span)
        if name == "values":
            return self.budget.new_list(value.values(), span)
        return self.budget.new_list((self.budget.new_list(pair, span) for pair in value.items()), span)

    def convert(self, name: str, value: object, span: Span) -> object:
        try:
            if isinstance(value, bool | int | float):
                result: int | float = int(value) if name == "int" else float(value)
            elif isinstance(value, str) and len(value) <= 100:
                result = int(value.strip()) if name == "int" else float(value.strip())
            else:
                raise fail("type", f"{name}() of {a_type(value)}", span)
        except (ValueError, OverflowError):
            raise fail("value", f"cannot convert {render(value, 60, top=False)[:60]} to {name}", span) from None
        return self.number(result, span)

    def range(self, args: list[object], span: Span) -> TList:
        values = [plain(a) for a in args]
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            raise fail("type", "range() takes integers", span)
        ints = [v for v in values if isinstance(v, int)]
        if len(ints) == 3 and ints[2] == 0:
            raise fail("value", "range() step cannot be zero", span)
        numbers = range(*ints)
        if len(numbers) + 1 > self.limits.max_value_size:
            raise fail(
                "limit",
                f"value limit: range of {len(numbers):,} numbers exceeds {self.limits.max_value_size:,} items",
                span,
            )
        return self.budget.new_list(numbers, span)


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
