"""What every ``hmem`` command module shares: the settings, read once at the edge, and
the ``Memory`` a command opens."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from hmem.config import Config
    from hmem.memory import Memory

__all__ = ["load_config", "open_memory"]


def load_config() -> Config:
    from hmem.config import Config  # pydantic-settings: only for commands that run

    try:
        return Config()
    except Exception as exc:  # pydantic's error names the bad HMEM_ variable
        raise click.ClickException(f"bad configuration: {exc}") from exc


def open_memory(config: Config | None = None, *, embed: bool = True) -> Memory:
    """A ``Memory`` for one command. ``embed=False`` for commands that never embed
    (listing, history, export, erase): they neither load nor download a model."""
    from hmem.memory import Memory

    config = config or load_config()
    if not embed:
        config = config.model_copy(update={"embed_provider": "none"})
    return Memory(config)
