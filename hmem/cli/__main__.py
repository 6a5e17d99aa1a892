"""``python -m hmem.cli``: the worker subprocesses start the command this way."""

from hmem.cli.main import main

main()
