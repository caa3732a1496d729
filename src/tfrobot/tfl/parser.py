"""Source text to `Program`: the lark LALR grammar in `grammar.lark`, an indentation post-lexer, and the
translation of lark's exceptions into `TFLError`s that an LLM can act on.

The tree is built by lark's non-recursive transformer, so a deeply nested script cannot overflow Python's
stack while parsing; the depth limit is then checked on the nodes' precomputed heights.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from importlib import resources
from typing import Any, NamedTuple, NoReturn, cast

from lark import Lark, Token, Transformer_NonRecursive, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError
from lark.indenter import Indenter
from lark.tree import Meta

from tfrobot.tfl.errors import TFLError, TFLScriptError
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
    Keyword,
    ListExpr,
    Node,
    Pass,
    Program,
    Span,
    Stmt,
    Unary,
    Var,
)

INT_MIN, INT_MAX = -(2**63), 2**63 - 1
"""TFL integers are 64-bit: JSON peers read them, and a bound keeps `x = x * x` from growing forever."""

_HINTS = {
    "import": 'TFL has no imports: call the registered tools by name, e.g. `result = search(query="…")`',
    "from": "TFL has no imports: call the registered tools by name",
    "def": "TFL has no function definitions: write the steps out directly",
    "lambda": "TFL has no functions: write the steps out directly",
    "class": 'TFL has no classes: use dicts, e.g. `p = {"name": "Ann"}`',
    "return": "TFL scripts do not return: `print(...)` what the reader should see",
    "yield": "TFL scripts do not yield: `print(...)` what the reader should see",
    "while": "TFL has no while loops: use a bounded loop, `for i in range(n):`",
    "try": "TFL has no exception handling: a failing step stops the script and reports where",
    "except": "TFL has no exception handling: a failing step stops the script and reports where",
    "finally": "TFL has no exception handling",
    "raise": "TFL has no exceptions: `print(...)` the problem instead",
    "is": "TFL has no `is`: compare values with `==` and `!=`",
}

_TOKEN_WORDS = {
    "_NL": "end of line",
    "_INDENT": "an indented block",
    "_DEDENT": "the end of an indented block",
    "$END": "end of script",
    "NAME": "a name",
    "INT": "a number",
    "FLOAT": "a number",
    "TRUE": "true",
    "FALSE": "false",
    "NULL": "null",
    "STRING": "a string",
    "LONG_STRING": "a string",
    "CMP": "a comparison",
    "ADD_OP": "'+' or '-'",
    "MUL_OP": "an operator",
}


class _TFLIndenter(Indenter):
    """Python-style INDENT/DEDENT tokens; a dedent to a column that opened no block is a positioned error."""

    NL_type = "_NL"
    OPEN_PAREN_types = ["LPAR", "LSQB", "LBRACE"]  # noqa: RUF012 — lark's Indenter declares them as lists
    CLOSE_PAREN_types = ["RPAR", "RSQB", "RBRACE"]  # noqa: RUF012
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 8

    def process(self, stream: Iterator[Token]) -> Iterator[Token]:
        """A fresh indenter per parse: lark shares one postlexer between parses, and its indentation
        stack must not be shared by two threads parsing at once."""
        worker = type(self)()
        return cast(Iterator[Token], worker._process(stream))  # type: ignore[no-untyped-call]

    def handle_NL(self, token: Token) -> Iterator[Token]:
        if self.paren_level > 0:
            return
        yield token
        indent_str = token.rsplit("\n", 1)[1]
        indent = indent_str.count(" ") + indent_str.count("\t") * self.tab_len
        if indent > self.indent_level[-1]:
            self.indent_level.append(indent)
            yield Token.new_borrow_pos(self.INDENT_type, indent_str, token)
            return
        while indent < self.indent_level[-1]:
            self.indent_level.pop()
            yield Token.new_borrow_pos(self.DEDENT_type, indent_str, token)
        if indent != self.indent_level[-1]:
            line = token.end_line or token.line or 1
            raise TFLScriptError(
                TFLError(
                    kind="syntax",
                    message=(
                        f"this line is indented to column {indent + 1}, which matches no enclosing block "
                        f"(expected column {self.indent_level[-1] + 1}); indent every line of a block alike"
                    ),
                    line=line,
                    column=indent + 1,
                )
            )


RESERVED = frozenset(
    [
        "import",
        "from",
        "def",
        "class",
        "while",
        "lambda",
        "return",
        "with",
        "try",
        "except",
        "finally",
        "raise",
        "global",
        "nonlocal",
        "del",
        "yield",
        "async",
        "await",
        "assert",
        "is",
        "exec",
        "eval",
    ]
)
"""Python words that TFL does not have. They cannot be names, so that `import os` fails at `import`."""

KEYWORDS = frozenset(
    "if elif else for in and or not pass true false null True False None".split()  # noqa: SIM905 - readable
)
"""TFL's own keywords: no variable or tool can be called this."""


def _refuse_reserved(token: Token) -> Token:
    word = str(token)
    if word in RESERVED:
        hint = _HINTS.get(word, "TFL is not Python: see the TFL grammar for what it has")
        raise _syntax(f"`{word}` is not part of TFL: {hint}", _tspan(token))
    return token


@cache
def _lark() -> Lark:
    """The parser, built once per process (building the LALR tables is the slow part)."""
    return Lark(
        grammar_text(),
        parser="lalr",
        lexer="basic",
        postlex=_TFLIndenter(),
        lexer_callbacks={"NAME": _refuse_reserved},
        propagate_positions=True,
        maybe_placeholders=True,
    )


def grammar_text() -> str:
    """The grammar source, for documentation and for prompts that teach an LLM the language."""
    return resources.files("tfrobot.tfl").joinpath("grammar.lark").read_text(encoding="utf-8")


def _span(meta: Meta) -> Span:
    if meta.empty:
        return Span(0, 0, 0, 0)
    return Span(meta.line, meta.column, meta.end_line, meta.end_column)


def _tspan(token: Token) -> Span:
    line, column = token.line or 0, token.column or 0
    return Span(line, column, token.end_line or line, token.end_column or column)


def _syntax(message: str, span: Span) -> TFLScriptError:
    return TFLScriptError(
        TFLError(
            kind="syntax",
            message=message,
            line=span.line,
            column=span.column,
            end_line=span.end_line,
            end_column=span.end_column,
        )
    )


def _height(*children: Node | None) -> int:
    return 1 + max((c.height for c in children if c is not None), default=0)


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", '"': '"', "'": "'", "\n": "", "b": "\b", "f": "\f"}
_HEX = {"x": 2, "u": 4, "U": 8}


def _unescape(token: Token) -> str:
    """Decode a string literal's escapes by hand (no `eval`, no `literal_eval`); bad escapes are errors."""
    text = str(token)
    quote = 3 if text[:3] in ('"""', "'''") else 1
    body = text[quote:-quote]
    out: list[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        code = body[i + 1] if i + 1 < len(body) else ""
        if code in _ESCAPES:
            out.append(_ESCAPES[code])
            i += 2
            continue
        if code in _HEX:
            digits = body[i + 2 : i + 2 + _HEX[code]]
            if len(digits) == _HEX[code] and all(c in "0123456789abcdefABCDEF" for c in digits):
                point = int(digits, 16)
                if point <= 0x10FFFF:
                    out.append(chr(point))
                    i += 2 + _HEX[code]
                    continue
        before = text[: quote + i]
        line = (token.line or 1) + before.count("\n")
        column = len(before) - before.rfind("\n") if "\n" in before else (token.column or 1) + len(before)
        raise _syntax(
            f"invalid escape sequence '\\{code}' in a string; use \\\\ for a backslash, or \\n \\t \\\" \\' "
            "\\xHH \\uHHHH",
            Span(line, column, line, column + 2),
        )
    return "".join(out)


def _as_target(node: Expr) -> tuple[str, tuple[Expr, ...]]:
    indexes: list[Expr] = []
    cursor: Expr = node
    while isinstance(cursor, Index):
        indexes.append(cursor.index)
        cursor = cursor.target
    if not isinstance(cursor, Var):
        raise _syntax('only a variable or an index of one (`x = …`, `d["k"] = …`) can be assigned to', node.span)
    return cursor.name, tuple(reversed(indexes))


class _Elif(NamedTuple):
    cond: Expr
    body: tuple[Stmt, ...]


class _Else(NamedTuple):
    body: tuple[Stmt, ...]


@v_args(meta=True)
class _Builder(Transformer_NonRecursive[Token, Any]):
    """lark tree -> TFL nodes, with spans and heights. Stateless, so one instance serves every parse."""

    # statements
    def start(self, meta: Meta, children: list[Stmt]) -> Program:
        body = tuple(children)
        return Program(_span(meta), body, height=_height(*body))

    def assign(self, meta: Meta, children: list[Expr]) -> Assign:
        target, value = children
        name, indexes = _as_target(target)
        return Assign(_span(meta), name, indexes, value, height=_height(target, value))

    def expr_stmt(self, meta: Meta, children: list[Expr]) -> ExprStmt:
        return ExprStmt(_span(meta), children[0], height=_height(children[0]))

    def pass_stmt(self, meta: Meta, children: list[Any]) -> Pass:
        return Pass(_span(meta))

    def suite(self, meta: Meta, children: list[Stmt]) -> tuple[Stmt, ...]:
        return tuple(children)

    def elif_clause(self, meta: Meta, children: list[Any]) -> _Elif:
        return _Elif(children[0], children[1])

    def else_clause(self, meta: Meta, children: list[Any]) -> _Else:
        return _Else(children[0])

    def if_stmt(self, meta: Meta, children: list[Any]) -> If:
        branches: list[tuple[Expr, tuple[Stmt, ...]]] = [(children[0], children[1])]
        orelse: tuple[Stmt, ...] = ()
        for child in children[2:]:
            if isinstance(child, _Elif):
                branches.append((child.cond, child.body))
            elif isinstance(child, _Else):
                orelse = child.body
        nodes: list[Node] = [n for cond, body in branches for n in (cond, *body)]
        nodes.extend(orelse)
        return If(_span(meta), tuple(branches), orelse, height=_height(*nodes))

    def for_stmt(self, meta: Meta, children: list[Any]) -> For:
        name, iterable, body = children
        return For(_span(meta), str(name), _tspan(name), iterable, body, height=_height(iterable, *body))

    # expressions
    def or_op(self, meta: Meta, children: list[Expr]) -> BoolOp:
        return BoolOp(_span(meta), "or", tuple(children), height=_height(*children))

    def and_op(self, meta: Meta, children: list[Expr]) -> BoolOp:
        return BoolOp(_span(meta), "and", tuple(children), height=_height(*children))

    def unary(self, meta: Meta, children: list[Any]) -> Unary:
        op, operand = children
        return Unary(_span(meta), str(op), operand, height=_height(operand))

    def comp_op(self, meta: Meta, children: list[Token]) -> tuple[str, Span]:
        return " ".join(str(t) for t in children), _span(meta)

    def compare(self, meta: Meta, children: list[Any]) -> BinOp:
        left, (op, op_span), right = children
        return BinOp(_span(meta), op, left, right, op_span, height=_height(left, right))

    def binop(self, meta: Meta, children: list[Any]) -> BinOp:
        left, op, right = children
        return BinOp(_span(meta), str(op), left, right, _tspan(op), height=_height(left, right))

    def index(self, meta: Meta, children: list[Expr]) -> Index:
        target, key = children
        return Index(_span(meta), target, key, height=_height(target, key))

    def kwarg(self, meta: Meta, children: list[Any]) -> Keyword:
        name, value = children
        return Keyword(_tspan(name), str(name), value, height=_height(value))

    def arguments(self, meta: Meta, children: list[Any]) -> list[Any]:
        return [c for c in children if c is not None]

    def call(self, meta: Meta, children: list[Any]) -> Call:
        name, arguments = children
        args: list[Expr] = []
        kwargs: list[Keyword] = []
        for item in arguments or ():
            if isinstance(item, Keyword):
                if any(k.name == item.name for k in kwargs):
                    raise _syntax(f"keyword argument {item.name!r} is given twice", item.span)
                kwargs.append(item)
            elif kwargs:
                raise _syntax("a positional argument cannot follow a keyword argument", item.span)
            else:
                args.append(item)
        return Call(_span(meta), str(name), tuple(args), tuple(kwargs), _tspan(name), height=_height(*args, *kwargs))

    def list_lit(self, meta: Meta, children: list[Expr | None]) -> ListExpr:
        items = tuple(c for c in children if c is not None)
        return ListExpr(_span(meta), items, height=_height(*items))

    def pair(self, meta: Meta, children: list[Expr]) -> tuple[Expr, Expr]:
        return children[0], children[1]

    def dict_lit(self, meta: Meta, children: list[tuple[Expr, Expr] | None]) -> DictExpr:
        pairs = tuple(c for c in children if c is not None)
        return DictExpr(_span(meta), pairs, height=_height(*(n for p in pairs for n in p)))

    # atoms
    def var(self, meta: Meta, children: list[Token]) -> Var:
        return Var(_span(meta), str(children[0]))

    def int_lit(self, meta: Meta, children: list[Token]) -> Const:
        text = str(children[0])
        if len(text) > 19 or int(text) > INT_MAX:
            raise _syntax(f"integer literal {text[:24]} is out of range (TFL integers are 64-bit)", _span(meta))
        return Const(_span(meta), int(text))

    def float_lit(self, meta: Meta, children: list[Token]) -> Const:
        value = float(str(children[0]))
        if value in (float("inf"), float("-inf")):
            raise _syntax("number literal is out of range", _span(meta))
        return Const(_span(meta), value)

    def string_lit(self, meta: Meta, children: list[Token]) -> Const:
        return Const(_span(meta), _unescape(children[0]))

    def true_lit(self, meta: Meta, children: list[Token]) -> Const:
        return Const(_span(meta), True)

    def false_lit(self, meta: Meta, children: list[Token]) -> Const:
        return Const(_span(meta), False)

    def null_lit(self, meta: Meta, children: list[Token]) -> Const:
        return Const(_span(meta), None)


_BUILDER = _Builder()


def _readable(expected: set[str]) -> str:
    names: list[str] = []
    lark = _lark()
    for name in sorted(expected):
        if name in _TOKEN_WORDS:
            word = _TOKEN_WORDS[name]
        else:
            try:
                pattern = lark.get_terminal(name).pattern
            except KeyError:
                word = name
            else:
                word = f"'{pattern.value}'" if pattern.type == "str" else name
        if word not in names:
            names.append(word)
    if len(names) > 8:
        names = [*names[:8], "…"]
    return ", ".join(names)


def _describe(token: Token) -> str:
    if token.type == "$END":
        return "end of script"
    if token.type == "_NL":
        return "end of line"
    if token.type == "_INDENT":
        return "indentation"
    if token.type == "_DEDENT":
        return "end of block"
    if token.type == "NAME":
        return f"name {str(token)!r}"
    return repr(str(token))


def _end_of(source: str) -> tuple[int, int]:
    """Line and column just past the last character of the script, as lark counts them (only "\\n" ends
    a line; str.splitlines would also split on form feeds and Unicode separators)."""
    lines = source.rstrip("\r\n").split("\n")
    return len(lines), len(lines[-1]) + 1


def _translate(exc: UnexpectedInput, source: str) -> TFLError:
    """Turn a lark exception into a positioned message that says what TFL expected, and why when we can."""
    line, column = max(exc.line, 0), max(exc.column, 0)  # lark uses -1 for "unknown"
    end_line: int | None = None
    end_column: int | None = None
    if isinstance(exc, UnexpectedCharacters):
        char = exc.char
        if char == ".":
            message = (
                "unexpected '.': TFL has no attribute or method access; read dict values with d[\"key\"] "
                "and call tools and builtins by name, e.g. len(x)"
            )
        elif char in "\"'":
            message = "unterminated string: close it on the same line, or use triple quotes for several lines"
        elif char == ";":
            message = "unexpected ';': put each statement on its own line"
        elif char == "\\":
            message = "unexpected '\\': TFL has no line continuation; break lines inside (), [] or {} instead"
        else:
            message = f"unexpected character {char!r}"
    elif isinstance(exc, UnexpectedToken):
        token = exc.token
        if token.type in ("_INDENT", "_DEDENT"):  # they borrow the position of the newline before them
            line, column = token.end_line or line, token.end_column or column
        message = f"unexpected {_describe(token)}; expected {_readable(set(exc.expected))}"
        if token.type not in ("$END", "_NL", "_INDENT", "_DEDENT"):
            end_line, end_column = token.end_line, token.end_column
        if token.type == "$END":
            line, column = _end_of(source)
    elif isinstance(exc, UnexpectedEOF):
        line, column = _end_of(source)
        message = f"unexpected end of script; expected {_readable(set(exc.expected))}"
    else:
        message = str(exc)
    return TFLError(kind="syntax", message=message, line=line, column=column, end_line=end_line, end_column=end_column)


def _unwrap(exc: BaseException) -> NoReturn:
    if isinstance(exc, VisitError) and isinstance(exc.orig_exc, TFLScriptError):
        raise exc.orig_exc from None
    raise exc


def parse(source: str) -> Program:
    """Parse a script; raises `TFLScriptError` (kind "syntax") with the position of the first problem."""
    text = source if source.endswith("\n") else source + "\n"
    try:
        tree = _lark().parse(text)
    except UnexpectedInput as exc:
        raise TFLScriptError(_translate(exc, source)) from None
    try:
        program = _BUILDER.transform(tree)
    except VisitError as exc:
        _unwrap(exc)
    if not isinstance(program, Program):  # pragma: no cover - the grammar's start rule builds a Program
        raise TypeError(f"parser built {type(program).__name__}, not a Program")
    return program
