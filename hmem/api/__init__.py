"""The HTTP API (FastAPI): routes, API-key auth, problem+json errors, metrics, logs.

HTTP status codes are decided here and nowhere else (``hmem.api.problems``).
"""

from hmem.api.app import create_app

__all__ = ["create_app"]
