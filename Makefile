# Quick start:  make demo   (sets everything up, then runs a real task)
#               make test   (sets everything up, type-checks, then runs the whole suite)
#               make typecheck (mypy --strict over ego_browser/ only)
VENV   := .venv
PY     := $(VENV)/bin/python
PYTEST_ARGS ?= -q

.PHONY: setup demo test typecheck bench bench-tasks bench-density dist plugins clean

setup:
	@./scripts/setup.sh

# the demo needs Chromium and the venv only: no Java, no Grid, no Xvfb (make test installs those)
demo:
	@./scripts/setup.sh --demo
	@$(PY) demo/run_demo.py

# the type check first: seconds (about 2 s with mypy's cache, 13 s without), and a type error fails the run
test: setup
	@$(PY) -m mypy
	@$(PY) -m pytest $(PYTEST_ARGS)

# mypy --strict over ego_browser/ (settings in pyproject.toml); make test runs it too
typecheck: setup
	@$(PY) -m mypy

bench: setup
	@./benchmarks/setup_peers.sh
	@$(PY) benchmarks/run_all.py

# whole tasks on local apps vs agent-browser and Playwright; updates its section of docs/benchmarks.md
bench-tasks: setup
	@./benchmarks/setup_peers.sh
	@$(PY) benchmarks/tasks/run.py
	@$(PY) benchmarks/tasks/run.py --mcp

# many agents on one machine (1, 10, 25, 50 agents x 20 rounds, agent-browser baseline, a Grid
# placement run); replaces its section of docs/benchmarks.md, with the load average. Quiet machine only.
bench-density: setup
	@./benchmarks/setup_peers.sh
	@$(PY) benchmarks/bench_density.py --sizes 1,10,25,50 --rounds 20 --grid --write-docs

# sdist + manylinux wheel (built from the sdist, repaired and checked by auditwheel) in dist/
dist: setup
	@./scripts/dist.sh dist

# the skill packaged for nine agent hosts, in dist/plugins/
plugins: setup
	@$(PY) -m ego_browser package-plugins --output dist/plugins

clean:
	rm -rf build dist *.egg-info ego_browser/_snapshot.c ego_browser/_snapshot*.so .pytest_cache
