"""No way out of the sandbox: Python objects, attributes, imports and builtins are unreachable."""

from __future__ import annotations

import pytest

from tests.tfl.conftest import interpreter, run

ESCAPES = [
    "().__class__",
    "().__class__.__bases__[0].__subclasses__()",
    "x = [].__class__",
    '"".join(["a"])',
    "print.__self__",
    "search.__globals__",
    "import os",
    "__import__('os')",
    "open('/etc/passwd')",
    "eval('1')",
    "exec('x = 1')",
    "getattr(search, '__globals__')",
    "globals()",
    "vars()",
    "locals()",
    "compile('1', 'f', 'eval')",
    "x = __builtins__",
    "x = __class__",
    "x = search\nx('q')",
    "type(1)",
    "lambda: 1",
    "def f(): pass",
    "class A: pass",
    "from os import system",
    "print(f'{1}')",
    "x = [i for i in range(3)]",
    "with open('f') as h: pass",
    "while true: pass",
    "x = {1, 2}",
    "x = (1, 2)",
    "x = search('q')[0:2]",
    "x = 1 if true else 2",
    "x = *[1]",
    "del x",
    "x = not_a_tool()",
    "x = __name__",
    "assert false",
    "raise Exception()",
]


@pytest.mark.parametrize("script", ESCAPES)
def test_python_constructs_fail_as_syntax_or_name_errors(script: str) -> None:
    result = run(script)
    meta = result.trace_meta
    assert meta is not None
    assert meta["ok"] is False
    assert isinstance(meta["error"], dict)
    assert meta["error"]["kind"] in ("syntax", "name"), result.result
    assert meta["steps"] == 0  # refused before anything ran
    assert meta["tool_calls"] == 0


def test_attribute_access_has_a_hint() -> None:
    result = run('r = search("q")\nprint(r.title)')
    assert 'd["key"]' in result.result
    assert "2 | print(r.title)" in result.result


def test_dunder_names_are_ordinary_variables_with_no_meaning() -> None:
    result = run('__class__ = 1\n__import__ = "x"\nprint(__class__, __import__)')
    assert result.result == "1 x"


def test_values_never_expose_python_objects() -> None:
    result = run('p = photo("x")\nprint(p, [p], {"p": p})')
    assert result.result == '<image: x> [<image: x>] {"p": <image: x>}'
    assert "object at 0x" not in interpreter().run('print(chart(title="t"))').result
