"""Server-side template injection against the prompt component: refused by the sandbox and its bounds.

Escapes (reaching Python objects, globals, the OS) are Jinja2's sandbox's job; the bounds (size, loop
iterations, integer size, format widths, output length) are ours: without them one template or one
variable takes the server down with `{{ 'x' * 10**10 }}` or two nested loops.
"""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from tests.tfrobotserver.app.conftest import WRITE_SECRET, bearer, call
from tfrobotserver.dtos.factory.prompt import RenderedPrompt
from tfrobotserver.robot.factory.prompt import PromptComponent

ESCAPES = [
    "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "{{ ().__class__.__base__.__subclasses__() }}",
    "{% for c in [].__class__.__base__.__subclasses__() %}{{ c }}{% endfor %}",
    "{{ cycler.__init__.__globals__.os.popen('id').read() }}",
    "{{ joiner.__init__.__globals__ }}",
    "{{ lipsum.__globals__['os'].system('id') }}",
    "{{ namespace.__init__.__globals__ }}",
    "{{ self._TemplateReference__context }}",
    "{{ 'a'|attr('__class__') }}",
    "{{ x.__class__ }}",
    "{{ 'x'.format.__globals__ }}",
    "{{ '{0.__class__}'.format(1) }}",
    "{{ '{0.__class__.__mro__}'.format(x) }}",
    "{{ range.__self__ }}",
    "{{ config.items() }}",
    "{{ request.application.__globals__ }}",
    "{{ x.__init__ }}",
    "{{ ''.__class__.__subclasses__ }}",
    "{% import 'os' as os %}",
    "{% include '/etc/passwd' %}",
    "{% extends '/etc/passwd' %}",
]

BOMBS = [
    "{{ 'x' * 10000000000 }}",
    "{{ [1] * 100000000 }}",
    "{{ 10 ** 1000000 }}",
    "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
    "{% set ns = namespace(s='x') %}{% for i in range(60) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}",
    "{% set ns = namespace(s='x') %}{% for i in range(60) %}{% set ns.s = ns.s + ns.s %}{% endfor %}",
    "{{ 'x'|center(10000000000) }}",
    "{{ 'x'|indent(10000000000) }}",
    "{{ 'x'.ljust(10000000000) }}",
    "{{ 'x'.zfill(10000000000) }}",
    "{{ '{:>10000000000}'.format(1) }}",
    "{{ '%10000000000d' % 1 }}",
    "{{ '%*d'|format(10000000000, 1) }}",
    "{{ lipsum(10000000) }}",
    "{% for i in range(100000) %}{{ 'xxxxxxxxxxxxxxxxxxxx' }}{% endfor %}",
]


async def _render(template: str, variables: dict[str, Any] | None = None) -> RenderedPrompt:
    return await PromptComponent(template=template).arender(variables=variables or {"x": 1})


def _refused(rendered: RenderedPrompt) -> None:
    """Refused: a result that says so (template errors are results, not failures), and nothing leaked."""
    assert rendered.ok is False, rendered
    assert rendered.text is None
    assert rendered.error
    assert "root:" not in rendered.error
    assert "<class" not in rendered.error


@pytest.mark.parametrize("template", ESCAPES)
async def test_escapes_are_refused(template: str) -> None:
    _refused(await _render(template))


@pytest.mark.parametrize("template", BOMBS)
async def test_resource_bombs_are_refused_quickly(template: str) -> None:
    start = time.perf_counter()
    _refused(await _render(template))
    assert time.perf_counter() - start < 5


async def test_a_variable_cannot_smuggle_a_format_bomb() -> None:
    """The variables come from any caller with a read token; they are data, and bounded as such."""
    _refused(await _render("{{ x|format(1) }}", {"x": "%10000000000d"}))
    _refused(await _render("{{ x.format(1) }}", {"x": "{:>10000000000}"}))
    assert (await _render("{{ x }}", {"x": "{{ 7 * 7 }} {% for %}"})).text == "{{ 7 * 7 }} {% for %}"


async def test_ordinary_templates_still_render() -> None:
    template = (
        "Hi {{ x }}: {{ '%5d' % 3 }}|{{ '{:>4}'.format(2) }}|{{ 'a'|center(5) }}|{{ [1, 2] * 2 }}|{{ 2 ** 10 }}|"
        "{% for i in range(3) %}{{ i }}{% endfor %}|{{ 'ab' ~ 'cd' }}|{{ 'a' + 'b' }}|{{ 7 % 3 }}|{{ 'x' * 3 }}"
    )
    assert (await _render(template)).text == "Hi 1:     3|   2|  a  |[1, 2, 1, 2]|1024|012|abcd|ab|1|xxx"


async def test_over_http_an_injection_is_refused_and_the_server_keeps_serving(secured: httpx.AsyncClient) -> None:
    """A template that cannot render with its defaults (an escape, a bound crossed) is refused when it is set
    (it used to be saved, and to fail every turn); through variables it is a result, not a server error."""
    for template in [ESCAPES[0], BOMBS[0]]:
        changed = await call(secured, "prompt", "aset_template", {"template": template}, headers=bearer(WRITE_SECRET))
        assert changed.status_code == 422, changed.text
        assert "cannot render with its defaults" in changed.json()["errors"][0]["message"]
    await call(secured, "prompt", "aset_template", {"template": "ok {{ x|center(w) }}"}, headers=bearer(WRITE_SECRET))
    bomb = await call(secured, "prompt", "arender", {"variables": {"x": 1, "w": 10**10}}, headers=bearer(WRITE_SECRET))
    assert bomb.status_code == 200, bomb.text
    assert (bomb.json()["ok"], bomb.json()["line"]) == (False, 1)
    assert "SecurityError" in bomb.json()["error"] or "BoundExceeded" in bomb.json()["error"]
    fine = await call(secured, "prompt", "arender", {"variables": {"x": 1, "w": 3}}, headers=bearer(WRITE_SECRET))
    assert fine.json()["text"] == "ok  1 "
