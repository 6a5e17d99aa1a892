"""`hmem bench …`: the benchmark's commands, loaded from the hmem_bench package (the
`bench` extra) only when one runs, each under ``stop_on_signals`` so that a run stopped by
SIGTERM (a timeout) or Ctrl-C stops the Neo4j it started."""

from __future__ import annotations

from typing import Any

import click

__all__ = ["bench"]


class _BenchGroup(click.Group):
    """`hmem bench …` lives in the hmem_bench package (the `bench` extra): loaded only when
    a bench command runs, so the product never imports the benchmark."""

    _BENCH_MISSING = (
        "the benchmark is not installed ({missing}): pip install 'hmem[bench]' "
        "(or run from a checkout, where hmem_bench sits beside hmem)"
    )

    def _bench(self) -> click.Group:
        try:
            from hmem_bench.cli import bench
        except ModuleNotFoundError as exc:
            raise click.ClickException(self._BENCH_MISSING.format(missing=exc.name)) from exc
        return bench

    def list_commands(self, ctx: click.Context) -> list[str]:
        return self._bench().list_commands(ctx)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return self._bench().get_command(ctx, cmd_name)

    def invoke(self, ctx: click.Context) -> Any:
        from hmem.localdb import stop_on_signals

        try:
            # a benchmark stopped by SIGTERM (a timeout) or Ctrl-C stops the Neo4j it started
            with stop_on_signals():
                return super().invoke(ctx)
        except ModuleNotFoundError as exc:  # a bench command's own dependency (matplotlib, ...)
            raise click.ClickException(self._BENCH_MISSING.format(missing=exc.name)) from exc


@click.group(cls=_BenchGroup)
def bench() -> None:
    """Benchmarks: LoCoMo retrieval, BEAM updates, speed and cost, graphiti side by side."""
