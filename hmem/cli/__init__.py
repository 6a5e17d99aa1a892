"""The ``hmem`` command line, in one folder: ``main`` (the group and the light commands),
``write`` (add, worker, job, import, relations), ``serve`` (serve, keys, mcp),
``import_graphiti``, and ``_common`` (the settings and the ``Memory`` a command opens).

Only ``main`` is imported here; the heavy command modules load when their command runs
(``main.LAZY_COMMANDS``), so ``hmem --help`` stays fast.
"""

from hmem.cli.main import LAZY_COMMANDS, main

__all__ = ["LAZY_COMMANDS", "main"]
