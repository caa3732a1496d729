"""The console mount: `/` serves the Vite build when there is one, a how-to-build page otherwise."""

from __future__ import annotations

from pathlib import Path

import httpx
from fastapi import FastAPI

from tfrobotserver.app.static import mount_console


async def _get(app: FastAPI, path: str) -> httpx.Response:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1") as client:
        return await client.get(path)


async def test_serves_the_build_at_root_and_its_assets(tmp_path: Path) -> None:
    (tmp_path / "assets").mkdir()
    (tmp_path / "index.html").write_text('<div id="root"></div><script src="/assets/app.js"></script>')
    (tmp_path / "assets" / "app.js").write_text("console.log(1)")
    app = FastAPI()
    mount_console(app, tmp_path)
    index = await _get(app, "/")
    assert index.status_code == 200
    assert '<div id="root"></div>' in index.text
    assert index.headers["cache-control"] == "no-cache"
    asset = await _get(app, "/assets/app.js")
    assert asset.status_code == 200
    assert asset.text == "console.log(1)"
    assert (await _get(app, "/assets/missing.js")).status_code == 404


async def test_without_a_build_root_says_how_to_build(tmp_path: Path) -> None:
    app = FastAPI()
    mount_console(app, tmp_path)
    page = await _get(app, "/")
    assert page.status_code == 200
    assert "make web" in page.text
    assert "/docs" in page.text
