"""The grammar: every construct parses to the node it names, with spans; bad input fails with positions."""

from __future__ import annotations

import pytest

from tfrobot.tfl import TFLScriptError, grammar_text, parse
from tfrobot.tfl.nodes import (
    Assign,
    BinOp,
    BoolOp,
    Call,
    Const,
    DictExpr,
    ExprStmt,
    For,
    If,
    Index,
    ListExpr,
    Pass,
    Unary,
    Var,
)


def expr(source: str) -> object:
    (stmt,) = parse(source).body
    assert isinstance(stmt, ExprStmt)
    return stmt.expr


def syntax(source: str) -> tuple[int, int, str]:
    with pytest.raises(TFLScriptError) as caught:
        parse(source)
    err = caught.value.error
    assert err.kind == "syntax"
    return err.line, err.column, err.message


@pytest.mark.parametrize(
    ("source", "value"),
    [
        ("42", 42),
        ("3.5", 3.5),
        ("1e3", 1000.0),
        ("2.5E-1", 0.25),
        ('"a\\nb\\t\\"q\\" \\u00e9 \\x41 \\\\"', 'a\nb\t"q" é A \\'),
        ("'single \\' quote'", "single ' quote"),
        ('"""two\nlines"""', "two\nlines"),
        ("'''x\"y'''", 'x"y'),
        ("true", True),
        ("True", True),
        ("false", False),
        ("False", False),
        ("null", None),
        ("None", None),
        ('""', ""),
    ],
)
def test_literals(source: str, value: object) -> None:
    node = expr(source)
    assert isinstance(node, Const)
    assert node.value == value
    assert type(node.value) is type(value)


def test_names_that_start_like_keywords_are_names() -> None:
    for name in ("index", "notes", "truely", "None_", "iffy", "format_", "is_ok", "imported"):
        node = expr(name)
        assert isinstance(node, Var), name
        assert node.name == name


def test_operator_precedence_and_associativity() -> None:
    node = expr("1 + 2 * 3 - 4")
    assert isinstance(node, BinOp)
    assert node.op == "-"
    assert isinstance(node.left, BinOp)
    assert node.left.op == "+"
    assert isinstance(node.left.right, BinOp)
    assert node.left.right.op == "*"
    node = expr("not a == b and c or d")
    assert isinstance(node, BoolOp)
    assert node.op == "or"
    first = node.operands[0]
    assert isinstance(first, BoolOp)
    assert first.op == "and"
    negation = first.operands[0]
    assert isinstance(negation, Unary)
    assert negation.op == "not"
    assert isinstance(negation.operand, BinOp)
    assert negation.operand.op == "=="


@pytest.mark.parametrize("op", ["==", "!=", "<", "<=", ">", ">=", "in", "not in"])
def test_comparisons(op: str) -> None:
    node = expr(f"a {op} b")
    assert isinstance(node, BinOp)
    assert node.op == op
    assert node.op_span.column == 3


def test_collections_indexing_and_calls() -> None:
    node = expr('{"a": [1, 2,], "b": {}}')
    assert isinstance(node, DictExpr)
    assert len(node.pairs) == 2
    assert isinstance(node.pairs[0][1], ListExpr)
    assert len(node.pairs[0][1].items) == 2
    node = expr('search("cats", n=2)[0]["title"]')
    assert isinstance(node, Index)
    assert isinstance(node.target, Index)
    call = node.target.target
    assert isinstance(call, Call)
    assert call.name == "search"
    assert len(call.args) == 1
    assert [k.name for k in call.kwargs] == ["n"]
    assert (call.name_span.line, call.name_span.column, call.name_span.end_column) == (1, 1, 7)


def test_statements_and_blocks() -> None:
    program = parse(
        "x = 1  # comment\n"
        "# a whole-line comment\n"
        'd["k"][0] = x\n'
        "if x > 1:\n"
        "    pass\n"
        "elif x:\n"
        "    y = 2\n"
        "else: y = 3\n"
        "for i in [1, 2]:\n"
        "    for j in range(i):\n"
        "        print(i, j)\n"
        "f(\n  a=1,\n  b=[1,\n 2])\n"
    )
    kinds = [type(s) for s in program.body]
    assert kinds == [Assign, Assign, If, For, ExprStmt]
    indexed = program.body[1]
    assert isinstance(indexed, Assign)
    assert indexed.name == "d"
    assert len(indexed.indexes) == 2
    branch = program.body[2]
    assert isinstance(branch, If)
    assert len(branch.branches) == 2
    assert isinstance(branch.branches[0][1][0], Pass)
    assert len(branch.orelse) == 1
    loop = program.body[3]
    assert isinstance(loop, For)
    assert loop.var == "i"
    assert isinstance(loop.body[0], For)
    assert (program.body[4].span.line, program.body[4].span.end_line) == (12, 15)


def test_script_without_final_newline_and_empty_script() -> None:
    assert len(parse("x = 1").body) == 1
    assert parse("").body == ()
    assert parse("\n\n# only a comment").body == ()


def test_heights_count_nesting() -> None:
    assert parse("x = 1").body[0].height == 2
    assert parse("x = ((((1))))").body[0].height == 2  # parentheses are not nodes
    assert parse("x = [[[1]]]").body[0].height == 5


@pytest.mark.parametrize(
    ("source", "line", "column", "words"),
    [
        ("x = (1", 1, 7, "end of script"),
        ("x = 1 +", 1, 8, "end of line"),
        ("x.y = 1", 1, 2, "no attribute"),
        ("print(x.__class__)", 1, 8, "no attribute"),
        ("().__class__", 1, 2, "unexpected ')'"),
        ("import os", 1, 1, "no imports"),
        ("from os import path", 1, 1, "no imports"),
        ("x = 1\nwhile x:\n    pass", 2, 1, "bounded loop"),
        ("def f():\n    pass", 1, 1, "no function"),
        ("lambda: 1", 1, 1, "no functions"),
        ("x = 1\ny = x is None", 2, 7, "`is`"),
        ('x = "abc', 1, 5, "unterminated string"),
        ('x = "a\\qb"', 1, 7, "invalid escape"),
        ("f(a=1, 2)", 1, 8, "positional argument cannot follow"),
        ("f(a=1, a=2)", 1, 8, "given twice"),
        ("1 = 2", 1, 1, "can be assigned"),
        ("f() = 2", 1, 1, "can be assigned"),
        ("x = 1\n  y = 2", 2, 3, "unexpected indentation"),
        ("if x:\n    y = 1\n  z = 2", 3, 3, "matches no enclosing block"),
        ("if x:\nprint(1)", 2, 1, "indented block"),
        ("x = 99999999999999999999", 1, 5, "64-bit"),
        ("x = 1e999", 1, 5, "out of range"),
        ("a < b < c", 1, 7, "unexpected"),
        ("x = 1; y = 2", 1, 6, "own line"),
        ("f(x)(y)", 1, 5, "unexpected"),
        ("x = y \\\n + 1", 1, 7, "line continuation"),
        ("x = $", 1, 5, "unexpected character '$'"),
    ],
)
def test_syntax_errors_have_positions_and_hints(source: str, line: int, column: int, words: str) -> None:
    got_line, got_column, message = syntax(source)
    assert (got_line, got_column) == (line, column), message
    assert words in message


def test_deep_nesting_parses_without_recursion_error() -> None:
    # lark's LALR parser and our non-recursive transformer never recurse per nesting level
    program = parse("x = " + "(" * 5000 + "1" + ")" * 5000)
    assert program.body[0].height == 2
    program = parse("x = " + "[" * 3000 + "]" * 3000)
    assert program.body[0].height == 3001
    program = parse("x = " + "-" * 3000 + "1")
    assert program.body[0].height == 3002


def test_grammar_text_is_the_grammar() -> None:
    text = grammar_text()
    assert "for_stmt" in text
    assert "%declare _INDENT _DEDENT" in text


def test_parsing_from_many_threads_at_once_keeps_indentation_apart() -> None:
    # lark shares one post-lexer between parses; its indentation stack must not be shared
    import concurrent.futures

    scripts = [
        "".join("    " * level + f"if x{level}:\n" for level in range(depth)) + "    " * depth + "pass\nz = 1\n"
        for depth in range(1, 9)
    ]

    def shape(source: str) -> int:
        program = parse(source)
        assert len(program.body) == 2
        return program.body[0].height

    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        heights = list(pool.map(shape, scripts * 40))
    assert heights == [shape(s) for s in scripts] * 40
