"""The web console at `/`: the Vite build in `tfrobotserver/static/` (see `web/`).

`make web` (and therefore `make run` / `make test`) builds it; a wheel built after that carries
it. Without a build, `/` answers with a short page saying how to build it, and the API works as
usual. No `from __future__ import annotations`: FastAPI reads these signatures at run time.
"""

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.staticfiles import StaticFiles

STATIC_DIR = Path(__file__).resolve().parent.parent / "static"

_NOT_BUILT = """<!doctype html><meta charset="utf-8"><title>TFRobot console</title>
<p>The web console is not built. Run <code>make web</code> (Node.js 20+) and restart;
the API is at <a href="/docs">/docs</a>.</p>"""


def mount_console(app: FastAPI, static_dir: Path = STATIC_DIR) -> None:
    """Serve `index.html` at `/` and the hashed bundles under `/assets`."""
    index = static_dir / "index.html"
    assets = static_dir / "assets"
    if index.is_file() and assets.is_dir():
        app.mount("/assets", StaticFiles(directory=assets), name="console-assets")

        @app.get("/", include_in_schema=False)
        async def console() -> FileResponse:
            return FileResponse(index, headers={"Cache-Control": "no-cache"})

        return

    @app.get("/", include_in_schema=False)
    async def console_missing() -> HTMLResponse:
        return HTMLResponse(_NOT_BUILT)
