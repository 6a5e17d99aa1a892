"""What every ``hmem`` command module shares: the settings, read once at the edge."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from hmem.config import Config

__all__ = ["load_config"]


def load_config() -> Config:
    from hmem.config import Config  # pydantic-settings: only for commands that run

    try:
        return Config()
    except Exception as exc:  # pydantic's error names the bad HMEM_ variable
        raise click.ClickException(f"bad configuration: {exc}") from exc
