.PHONY: demo test unit int slow lint neo4j-start neo4j-stop

demo:  ## start Neo4j, seed the Maya demo once, run the API (RESET=1: seed again, new key; SHARED=1: Redis queue + a worker)
	RESET=$(RESET) SHARED=$(SHARED) scripts/demo

test:  ## lint, types, unit + integration tests against a real Neo4j (started and stopped)
	scripts/test

unit:  ## the unit tier: no services, no slow tests (target: under 30 s)
	.venv/bin/pytest -p no:cacheprovider -q -m "not slow" tests/unit

int:  ## the integration tier on a Neo4j 5.26 that scripts/test starts and stops
	HMEM_COVERAGE_FLOOR=0 HMEM_TEST_LINES=5.26 scripts/test tests/integration

slow:  ## the unit tests left out of `make unit`
	.venv/bin/pytest -p no:cacheprovider -q -m slow tests/unit

lint:
	scripts/bootstrap && .venv/bin/ruff check hmem hmem_bench tests && .venv/bin/ruff format --check hmem hmem_bench tests && .venv/bin/mypy

neo4j-start:
	scripts/bootstrap && .venv/bin/hmem neo4j start

neo4j-stop:
	.venv/bin/hmem neo4j stop
