.PHONY: demo test lint neo4j-start neo4j-stop

demo:  ## start Neo4j, seed the Maya demo once, run the API (RESET=1: seed again, new key; SHARED=1: Redis queue + a worker)
	RESET=$(RESET) SHARED=$(SHARED) scripts/demo

test:  ## lint, types, unit + integration tests against a real Neo4j (started and stopped)
	scripts/test

lint:
	scripts/bootstrap && .venv/bin/ruff check hmem tests && .venv/bin/ruff format --check hmem tests && .venv/bin/mypy

neo4j-start:
	scripts/bootstrap && .venv/bin/hmem neo4j start

neo4j-stop:
	.venv/bin/hmem neo4j stop
