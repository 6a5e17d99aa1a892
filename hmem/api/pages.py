"""The pages a person opens in a browser: /docs, /redoc and the memory inspector.

Nothing comes from a CDN: Swagger UI's and ReDoc's files are the ones the
``fastapi-offline`` package ships, and the inspector is plain HTML + JS in
``hmem/api/inspector/``. The pages hold no data: everything the inspector shows it reads
from the public API with the key the person pastes in it, so it can do only what that
key may do; it changes a fact only when the person presses a button and confirms. The
key goes as a bearer header, never a cookie, so another site cannot act with it; the
inspector's files come with a Content-Security-Policy (its own scripts and styles only,
requests to this origin only, no framing) and ``Referrer-Policy: no-referrer``.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from fastapi import FastAPI
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles
from starlette.responses import Response
from starlette.types import Scope

__all__ = ["INSPECTOR_DIR", "INSPECTOR_HEADERS", "install_pages"]

INSPECTOR_DIR = Path(__file__).with_name("inspector")
_ASSETS = "/_assets"

# The inspector holds a pasted key and can erase: it runs only its own files, talks only
# to this origin, and is never framed (clickjacking) nor named in a Referer.
INSPECTOR_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
}


class _InspectorFiles(StaticFiles):
    """The inspector's files, each answer with ``INSPECTOR_HEADERS``."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        response.headers.update(INSPECTOR_HEADERS)
        return response


def install_pages(app: FastAPI, *, title: str) -> None:
    """Mount the docs' assets and the inspector, and route /docs and /redoc to them
    (the app is made with ``docs_url=None, redoc_url=None``)."""
    static = Path(str(files("fastapi_offline") / "static"))
    app.mount(_ASSETS, StaticFiles(directory=static), name="docs-assets")
    app.mount("/inspector", _InspectorFiles(directory=INSPECTOR_DIR, html=True), name="inspector")
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
