"""The bounded sandbox: hostile templates are refused before they allocate, ordinary ones render as Jinja's.

Each hostile template below made Jinja build hundreds of megabytes (or loop for minutes) before the old
bound on the result was checked; `tracemalloc` shows the peak of each render now.
"""

from __future__ import annotations

import time
import tracemalloc
from typing import Any

import jinja2
import pytest
from jinja2.sandbox import SandboxedEnvironment

from tfrobotserver.robot.factory.sandbox import MAX_SIZE, BoundedSandbox, BoundExceeded
from tfrobotserver.robot.factory.sandbox.filters import PREDICTORS

ENV = BoundedSandbox(undefined=jinja2.StrictUndefined, autoescape=False)
PEAK = 20_000_000
"""Bytes a refused render may allocate above what it was given."""
MEGA = "x" * 1_000_000

HOSTILE: dict[str, tuple[str, dict[str, Any]]] = {
    "format width": ('{{ "{:>{w}}".format("x", w="200000000") }}', {}),  # was 200 MB
    "format width from a variable": ("{{ f.format(1) }}", {"f": "{:>1000001}"}),
    "% with *": ('{{ "%*d" % (w, 1) }}', {"w": 10**9}),
    "% width built by ~": ('{{ ("%" ~ w ~ "d") % 1 }}', {"w": "200000000"}),
    "|format width": ("{{ f|format(1) }}", {"f": "%1000001d"}),
    "|indent": ("{{ s|indent(999999) }}", {"s": "a\n" * 500_000}),  # was 2.4 GB, MemoryError
    "|indent with a string": ("{{ s|indent(p) }}", {"s": "a\n" * 1000, "p": "x" * 999_999}),  # was 2 GB
    "|join": ("{{ l|join(s) }}", {"l": list(range(1000)), "s": "x" * 999_999}),  # was 1 GB
    "1 MB x 1 MB join": ("{{ ([s] * 1000)|join(s) }}", {"s": MEGA}),  # was 2 GB
    "|replace": ('{{ s|replace("a", r) }}', {"s": "a" * 1000, "r": "x" * 999_999}),  # was 1 GB
    "|replace of nothing": ('{{ s|replace("", r) }}', {"s": "a" * 1000, "r": "x" * 99_999}),
    "|wordwrap": ("{{ s|wordwrap(1, wrapstring=w) }}", {"s": "a " * 100_000, "w": "x" * 9999}),  # was 1 GB
    "str of a list of megabytes": ("{{ [s] * 1000 }}", {"s": MEGA}),  # was 1.1 GB
    "|string of a list": ("{{ ([s] * 1000)|string|length }}", {"s": MEGA}),  # was 1.1 GB
    "~ of many megabytes": ("{{ s ~ s ~ s ~ s ~ s ~ s ~ s ~ s }}", {"s": MEGA}),
    "~ in a loop": (
        '{% set ns = namespace(s="") %}{% for i in range(9000) %}{% set ns.s = ns.s ~ "x" * 999 %}{% endfor %}',
        {},
    ),
    "* of a list": ("{{ ([s] * 999999)|length }}", {"s": "x"}),
    "|list of a string": ("{{ (s|list)|length }}", {"s": "€" * 999_999}),  # was 84 MB
    "|tojson with an indent": ("{{ l|tojson(999999) }}", {"l": [[[1]]]}),
    "|pprint": ("{{ l|pprint }}", {"l": [["x" * 10] * 1000] * 101}),
    "|urlize": ("{{ s|urlize }}", {"s": "http://a.b " * 90_000}),
    "|truncate": ("{{ s|truncate(10, end=e) }}", {"s": "x" * 100, "e": "y" * 999_999}),
    "|sum of lists": ("{{ (l|sum(start=[]))|length }}", {"l": [[1] * 1000] * 1000}),
    "|dictsort": ("{{ d|dictsort|length }}", {"d": {str(i): i for i in range(200_000)}}),
    "|sort of megabytes": ("{{ ([s, s ~ ''] * 2000)|sort|length }}", {"s": MEGA}),  # was 2.4 GB, MemoryError
    "list.extend doubling": ("{% set l = [1] %}{% for i in range(25) %}{{ l.extend(l) }}{% endfor %}", {}),  # 268 MB
    "|slice": ("{{ ([]|slice(999999)|list)|length }}", {}),  # was 64 MB and 6 s
    "str.expandtabs": ("{{ s.expandtabs(999999) }}", {"s": "\t" * 100}),
    "str.translate": ('{{ s.translate(s.maketrans({"a": r})) }}', {"s": "a" * 1000, "r": "x" * 99_999}),
    "str.split": ('{{ (s.split(",")|length) }}', {"s": "€," * 499_999}),  # was 42 MB
    "lipsum": ("{{ lipsum(999999)|length }}", {}),  # ran for minutes
    "range": ("{{ range(1000000) }}", {}),  # was an OverflowError: a 500
    "exponential macro": (
        "{% macro m(n) %}{% if n %}{{ m(n-1) }}{{ m(n-1) }}{% endif %}{% endmacro %}{{ m(40) }}",
        {},
    ),  # ran for minutes
    "deep nesting turned into text": (
        "{% set ns = namespace(l=[]) %}{% for i in range(200) %}{% set ns.l = [ns.l] %}{% endfor %}{{ ns.l }}",
        {},
    ),
    "|escape": ("{{ s|e }}", {"s": '"' * 999_999}),
    "|upper": ("{{ s|upper }}", {"s": "ß" * 999_999}),
    "+ of strings": ("{{ (s + s)|length }}", {"s": MEGA}),
    "many megabyte variables": ("".join(f"{{% set v{i} = s ~ {i} %}}" for i in range(20)), {"s": "x" * 900_000}),
    "integer *": (
        "{% set ns = namespace(x=10 ** 30000) %}{% for i in range(5) %}{% set ns.x = ns.x * ns.x %}{% endfor %}",
        {},
    ),
    "float precision": ('{{ "%.999999f" % 1.0 }}', {}),
    "format precision": ('{{ "{:.999999f}".format(1.0) }}', {}),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_template_is_refused_before_it_allocates(name: str) -> None:
    template, variables = HOSTILE[name]
    ENV._compiled(template)  # compiled (and its constants folded) before the measurement
    tracemalloc.start()
    started = time.monotonic()
    try:
        with pytest.raises((jinja2.TemplateError, RecursionError)):
            ENV.render_bounded(template, variables)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    took = time.monotonic() - started
    print(f"\n{name}: refused after {took * 1000:.0f} ms, peak {peak / 1e6:.1f} MB")
    assert peak < PEAK
    assert took < 5


ORDINARY = [
    ("Hi {{ x }}: {{ '%5d' % 3 }}|{{ '{:>4}'.format(2) }}|{{ 'a'|center(5) }}|{{ [1, 2] * 2 }}|{{ 2 ** 10 }}",
     {"x": 1}),
    ("{% for i in range(3) %}{{ i }}{% endfor %}|{{ 'ab' ~ 'cd' }}|{{ 'a' + 'b' }}|{{ 7 % 3 }}|{{ 'x' * 3 }}", {}),
    ("{{ docs|map(attribute='title')|join(', ') }} ({{ docs|length }})", {"docs": [{"title": "A"}, {"title": "B"}]}),
    ("{{ text|wordwrap(10) }}|{{ text|truncate(12) }}|{{ text|wordcount }}|{{ text|upper|replace('O', '0') }}",
     {"text": "the quick brown fox jumps over the lazy dog"}),
    ("{{ d|dictsort }}|{{ d|tojson }}|{{ d.items()|list }}|{{ d|xmlattr }}|{{ d|pprint }}",
     {"d": {"b": 1, "a": "<x>"}}),
    ("{{ '%s and %(x)s'|format(1) if false else '%(x)s'|format(x=2) }}|{{ '{0!r}-{1:^7}'.format('a', 'b') }}", {}),
    ("{{ l|sort|unique|list }}|{{ l|sum }}|{{ l|batch(2)|list }}|{{ l|slice(2)|list }}|{{ l|reverse|list }}",
     {"l": [3, 1, 2, 3]}),
    ("{{ s.split(',') }}|{{ s.ljust(8, '.') }}|{{ s.zfill(8) }}|{{ ','.join(['a', 'b']) }}|{{ s[::-1] }}",
     {"s": "a,b,c"}),
    ("{% set l = [1] %}{% set _ = l.append(2) %}{{ l }}|{{ s|indent(2, true) }}|{{ s|e }}|{{ 'a b'|urlencode }}",
     {"s": "<a>\nb"}),
    ("{{ lipsum(1, false, 3, 4)|wordcount > 0 }}|{{ (1).to_bytes(2, 'big') }}|{{ items|groupby('k')|list }}",
     {"items": [{"k": 1}, {"k": 1}]}),
]  # fmt: skip


@pytest.mark.parametrize(("template", "variables"), ORDINARY)
def test_ordinary_templates_render_as_jinjas_own_sandbox_renders_them(template: str, variables: dict[str, Any]) -> None:
    plain = SandboxedEnvironment(undefined=jinja2.StrictUndefined, autoescape=False)
    expected = plain.from_string(template).render(**variables)
    assert ENV.render_bounded(template, variables) == expected


def test_every_filter_has_a_size_predictor() -> None:
    """A Jinja upgrade that adds a filter must add its predictor: the sandbox refuses to start otherwise."""
    assert set(SandboxedEnvironment().filters) == set(PREDICTORS)


def test_the_rendered_text_and_each_value_are_bounded() -> None:
    with pytest.raises(BoundExceeded, match="the rendered text is longer than"):
        ENV.render_bounded("{% for i in range(3) %}{{ s }}{% endfor %}", {"s": "x" * (MAX_SIZE // 2)})
    assert len(ENV.render_bounded("{{ s }}", {"s": "x" * MAX_SIZE})) == MAX_SIZE


def test_a_render_stops_at_its_time_limit() -> None:
    started = time.monotonic()
    with pytest.raises(BoundExceeded, match=r"ran longer than 0\.2 s"):
        ENV.render_bounded("{% for i in range(99999) %}{% for j in range(9) %}{% endfor %}{% endfor %}", {}, 0.2)
    assert time.monotonic() - started < 2
