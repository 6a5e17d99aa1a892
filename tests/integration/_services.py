"""What an integration test does when a service it needs is not there."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def unavailable(message: str, *, required: str) -> NoReturn:
    """A service a test needs is not there: skip and say why, or fail when the variable
    ``required`` is 1 (``scripts/test`` sets it for the services it starts, so there a
    missing one is a broken run, never a silent skip)."""
    if os.environ.get(required) == "1":
        pytest.fail(message)
    pytest.skip(message)
