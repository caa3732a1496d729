"""The prompt component: sandboxed rendering with errors as results, variables, and a recorded template change."""

from __future__ import annotations

import time
from collections.abc import Callable

import httpx

from tests.stalls import largest_stall
from tfrobotserver.robot.base import Robot
from tfrobotserver.robot.factory.prompt import MAX_TEMPLATE_CHARS, PromptComponent

from ...conftest import act, refused


async def test_render_show_variables_and_errors_as_results(api: httpx.AsyncClient) -> None:
    assert await act(api, "prompt", "arender") == {
        "ok": True, "text": "You are TFRobot demo. Answer the user in English.", "error": None, "line": None,
        "variables": ["language", "robot", "user"],
    }  # fmt: skip
    assert (await act(api, "prompt", "arender", {"variables": {"language": "French"}}))["text"].endswith("in French.")
    assert await act(api, "prompt", "aget_variables") == {
        "template": "You are {{ robot }}. Answer {{ user }} in {{ language }}.",
        "variables": ["language", "robot", "user"],
        "defaults": {"robot": "TFRobot demo", "user": "the user", "language": "English"},
    }
    await act(api, "prompt", "aset_template", {"template": "Hi {{ name }} {{ robot.__class__.__mro__ }}"})
    missing = await act(api, "prompt", "arender")
    assert (missing["ok"], missing["text"]) == (False, None)
    assert "'name' is undefined; the template uses ['name', 'robot']" in missing["error"]
    unsafe = await act(api, "prompt", "arender", {"variables": {"name": "Ada"}})
    assert unsafe["ok"] is False
    assert "__class__" in unsafe["error"]
    broken = await refused(api, "prompt", "aset_template", {"template": "line one\n{% if %}"})
    assert "template syntax error on line 2" in broken["errors"][0]["message"]


async def test_an_unsaved_draft_renders_with_given_variables_and_is_not_saved(api: httpx.AsyncClient) -> None:
    draft = await act(api, "prompt", "arender_draft", {"template": "Hi {{ name }}, in {{ language }}.",
                                                       "variables": {"name": "Ada"}})  # fmt: skip
    assert (draft["ok"], draft["text"], draft["variables"]) == (True, "Hi Ada, in English.", ["language", "name"])
    broken = await act(api, "prompt", "arender_draft", {"template": "{% if %}"})
    assert (broken["ok"], broken["line"]) == (False, 1)
    saved = await act(api, "prompt", "aget_variables")
    assert saved["template"] == "You are {{ robot }}. Answer {{ user }} in {{ language }}."


async def test_template_change_is_recorded_and_survives_a_restart(
    serve: Callable[[list[Robot] | None], httpx.AsyncClient],
) -> None:
    async with serve(None) as api:
        update = await act(api, "prompt", "aset_template", {"template": "Be {{ mood }}.", "defaults": {"mood": "kind"}})
        assert update["changed"] == ["template", "defaults"]
        assert (await act(api, "prompt", "arender"))["text"] == "Be kind."
        same = await act(api, "prompt", "aset_template", {"template": "Be {{ mood }}."})
        assert same["changed"] == []
        log = await act(api, "prompt", "aget_config_changes")
        assert [(c["field"], c["component"]) for c in log["items"]] == [("defaults", "demo/prompt"),
                                                                          ("template", "demo/prompt")]  # fmt: skip
        assert log["items"][1]["oldValue"] == "You are {{ robot }}. Answer {{ user }} in {{ language }}."
        assert log["items"][1]["newValue"] == "Be {{ mood }}."
        assert log["items"][1]["changedTs"] > 1_700_000_000_000
        dry = (await api.post("/api/robots/demo/chat", json={"message": "hi", "dryRun": True})).json()
        assert dry["request"]["messages"][0]["content"] == "Be kind."  # effective without a restart
    async with serve(None) as restarted:
        assert (await act(restarted, "prompt", "arender"))["text"] == "Be kind."
        assert (await act(restarted, "llm", "aget_config_changes"))["total"] == 0


async def test_a_hostile_render_is_a_result_with_its_line_and_leaves_the_loop_free(api: httpx.AsyncClient) -> None:
    """Regression: renders ran on the event loop, and an error other than Jinja's (an OverflowError from
    `range`, a TypeError, a MemoryError of a 1 MB x 1 MB join) was a 500."""
    template = "line one\n{% for i in range(n) %}{% for j in range(n) %}{% endfor %}{% endfor %}{{ 1 + x }}"
    await act(api, "prompt", "aset_template", {"template": template, "defaults": {"n": 1, "x": 1}})
    for variables, errors in [({"n": 10**7}, ("range() of 10,000,000 numbers",)),
                              ({"n": 1, "x": "a"}, ("TypeError: unsupported operand",)),
                              ({"n": 1200}, ("loop iterations", "ran longer than 3 s"))]:  # fmt: skip
        started = time.monotonic()
        rendered, stall = await largest_stall(act(api, "prompt", "arender", {"variables": variables}))
        assert (rendered["ok"], rendered["line"]) == (False, 2), rendered
        # 1,440,000 iterations pass the iteration bound in about 2 s, or the time bound first where a tracer
        # (coverage in `make test`) and a busy machine slow each one: either bound is the render being bounded.
        assert any(e in rendered["error"] for e in errors), rendered
        assert stall < 0.25, f"the loop stalled {stall:.2f} s in a render of {time.monotonic() - started:.2f} s"


async def test_a_template_that_cannot_render_with_its_defaults_is_refused(api: httpx.AsyncClient) -> None:
    bomb = await refused(
        api, "prompt", "aset_template", {"template": "{{ s|indent(w) }}", "defaults": {"s": "a\n" * 1000, "w": 10**6}}
    )
    assert bomb["errors"][0]["path"] == "template"
    assert "cannot render with its defaults (line 1)" in bomb["errors"][0]["message"]
    assert "|indent would build a string of" in bomb["errors"][0]["message"]
    long = await refused(api, "prompt", "aset_template", {"template": "x" * (MAX_TEMPLATE_CHARS + 1)})
    assert long["errors"][0]["path"] == "template"
    left_to_callers = await act(api, "prompt", "aset_template", {"template": "Hi {{ name }}"})
    assert left_to_callers["changed"] == ["template"]


def test_the_system_prompt_is_rendered_once_per_configuration() -> None:
    """Each turn asks for it on the event loop; a template that takes a while renders there only once."""
    prompt = PromptComponent(template="{% for i in range(99999) %}{% endfor %}{{ a }}", defaults={"a": 1})
    first = time.perf_counter()
    assert prompt.render_default() == "1"
    second = time.perf_counter()
    assert prompt.render_default() == "1"
    third = time.perf_counter()
    assert third - second < (second - first) / 10
    prompt.defaults = {"a": 2}
    assert prompt.render_default() == "2"
