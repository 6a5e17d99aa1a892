"""The pages a person opens in a browser: /docs, /redoc and the memory inspector.

Nothing comes from a CDN: Swagger UI's and ReDoc's files are the ones the
``fastapi-offline`` package ships, and the inspector is plain HTML + JS in
``hmem/api/inspector/``. The pages hold no data: everything the inspector shows it reads
from the public API with the key the person pastes in it, so it can do only what that
key may do (it reads; it never writes).
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from fastapi import FastAPI
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles

__all__ = ["INSPECTOR_DIR", "install_pages"]

INSPECTOR_DIR = Path(__file__).with_name("inspector")
_ASSETS = "/_assets"


def install_pages(app: FastAPI, *, title: str) -> None:
    """Mount the docs' assets and the inspector, and route /docs and /redoc to them
    (the app is made with ``docs_url=None, redoc_url=None``)."""
    static = Path(str(files("fastapi_offline") / "static"))
    app.mount(_ASSETS, StaticFiles(directory=static), name="docs-assets")
    app.mount("/inspector", StaticFiles(directory=INSPECTOR_DIR, html=True), name="inspector")
    openapi_url = app.openapi_url or "/openapi.json"

    @app.get("/docs", include_in_schema=False)
    def swagger() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=openapi_url,
            title=f"{title} - API docs",
            swagger_js_url=f"{_ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{_ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{_ASSETS}/favicon.png",
        )

    @app.get("/redoc", include_in_schema=False)
    def redoc() -> HTMLResponse:
        return get_redoc_html(
            openapi_url=openapi_url,
            title=f"{title} - API reference",
            redoc_js_url=f"{_ASSETS}/redoc.standalone.js",
            redoc_favicon_url=f"{_ASSETS}/favicon.png",
            with_google_fonts=False,
        )

    @app.get("/inspector", include_in_schema=False)
    def inspector() -> RedirectResponse:
        return RedirectResponse("/inspector/")
