"""`hmem forget` and `hmem restore`: closing a fact by hand and undoing it, through the
same ``Memory.close`` / ``Memory.restore`` the API's close and restore routes call."""

from __future__ import annotations

import click

from hmem.cli._common import open_memory as _memory
from hmem.cli.main import _line, _tenanted, _when

__all__ = ["forget", "restore"]


@click.command()
@_tenanted
@click.option("--user", "user_id", required=True)
@click.option(
    "--never-true",
    is_flag=True,
    help="a correction: it was never true (its world window becomes empty); default: a "
    "retraction, it stopped being true now",
)
@click.option("--at", help="when it stopped being true (ISO-8601 with zone; default: now)")
@click.argument("fact_id")
def forget(user_id: str, never_true: bool, at: str | None, fact_id: str) -> None:
    """Close a fact with no successor (never deletes; `hmem restore` undoes it)."""
    from hmem.models import SupersedeReason

    reason = SupersedeReason.USER_EDIT if never_true else SupersedeReason.RETRACTION
    if never_true and at is not None:
        raise click.BadParameter("--at is when it stopped being true; --never-true has none")
    with _memory(embed=False) as memory:
        fact = memory.close(fact_id, user_id=user_id, at=_when(at), reason=reason)
    click.echo(f"closed ({reason.value}): {_line(fact)}")


@click.command()
@_tenanted
@click.option("--user", "user_id", required=True)
@click.argument("fact_id")
def restore(user_id: str, fact_id: str) -> None:
    """Undo a close or a supersession: the fact is believed again."""
    with _memory(embed=False) as memory:
        fact = memory.restore(fact_id, user_id=user_id)
    click.echo(f"restored: {_line(fact)}")
