# Two commands on a fresh machine: `make run` and `make test`. Each creates .venv and
# installs what it needs the first time (and again whenever pyproject.toml changes):
# `make run` (and invite, backup, demo) only what the bot needs at run time, `make test`
# also the dev tools (pytest, hypothesis, ruff, mypy).
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
RUN_STAMP := $(VENV)/.installed-run
STAMP     := $(VENV)/.installed-dev

.PHONY: run invite backup test lint typecheck webtest pytest bench tournament demo reliability load clean activity

# The Activity's page (activity/web): its npm packages as the lock file pins them, then the
# bundle in activity/web/dist (not in git). Only `make run` with ACTIVITY_PORT set, and the
# tests, need it: the chat game alone needs no Node.
WEB := activity/web
WEB_SOURCES := $(wildcard $(WEB)/src/*) $(WEB)/build.mjs $(WEB)/package-lock.json

$(RUN_STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e .
	touch $(RUN_STAMP)

$(STAMP): $(RUN_STAMP)
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

run: $(RUN_STAMP)
	@if [ -n "$$ACTIVITY_PORT" ] || grep -qsE '^ACTIVITY_PORT=[0-9]+' .env; then \
		$(MAKE) --no-print-directory activity; fi
	$(PY) bot.py

$(WEB)/node_modules/.package-lock.json: $(WEB)/package-lock.json
	cd $(WEB) && npm ci --no-audit --no-fund

$(WEB)/dist/app.js: $(WEB)/node_modules/.package-lock.json $(WEB_SOURCES)
	cd $(WEB) && node build.mjs

activity: $(WEB)/dist/app.js

# The link that adds the bot to a server (docs/ADMIN.md), without starting it.
invite: $(RUN_STAMP)
	$(PY) -m tools.invite

# A consistent copy of the live database, safe while the bot runs: make backup DEST=file
backup: $(RUN_STAMP)
	$(PY) -m tools.backup $(if $(DEST),$(DEST),backups/sequence-$$(date +%Y%m%d-%H%M%S).db)

test: lint typecheck webtest pytest

lint: $(STAMP)
	$(PY) -m ruff check .

typecheck: $(STAMP)
	$(PY) -m mypy

# The page's state on its own (activity/web/test, Node's own test runner: no browser and no
# package of its own)
webtest:
	cd $(WEB) && node --test test/

# Slow tests (long fault runs) are left to `make reliability`. The tests mostly wait (on
# the fake Discord, on PostgreSQL, on bot processes they start), so they run in
# TEST_WORKERS processes at once (pytest-xdist; each test owns its ports, servers and
# files), whatever the number of cores; the 15 slowest are named at the end.
# Python keeps its compiled modules (__pycache__, ignored by git) even where the environment
# says not to (PYTHONDONTWRITEBYTECODE): the run starts about 100 Python processes (each
# worker collects every test module; the bot processes and benches import the bot), and
# each would compile it all again: a worker's collection takes 5.6 s against 2.0 s.
# Their temporary files (databases, PostgreSQL clusters, browser profiles) go in memory
# (tools/memory_tmp.py: a folder in /dev/shm for the run, removed after; on disk where
# there is none): on disk the kernel's work on them was a third of the run's CPU.
TEST_WORKERS ?= 4
pytest: $(STAMP) activity
	$(PY) -m compileall -q bot.py activity/*.py bench cogs engine manager store render runtime tools
	PYTHONDONTWRITEBYTECODE= $(PY) -m tools.memory_tmp -- $(PY) -m pytest -q -m "not slow" \
		-n $(TEST_WORKERS) --dist worksteal --durations=15

bench: $(STAMP)
	$(PY) -m bench

# Computer players against each other (bounded; see tools/tournament.py for options).
tournament: $(STAMP)
	$(PY) -m tools.tournament $(TOURNAMENT_ARGS)

# A whole game between computer players through the game manager, printed to the console;
# board images and a replay GIF land in demo/.
demo: $(RUN_STAMP)
	$(PY) -m tools.demo

# The crash-safety test with 60 SIGKILLs instead of the quick dozen in `make test`.
# Then the bot under faults, abuse and load (tools/reliability.py): kills of `python bot.py`,
# a storm of Discord faults, a fuzz of 3,000 interactions, the load bench; prints the table.
reliability: $(STAMP)
	CRASH_KILLS=60 $(PY) -m pytest -q -s tests/manager/test_crash.py
	$(PY) -m pytest -q -m slow tests/fakediscord tests/reliability -k "not thirty and not thousands"
	$(PY) -m tools.reliability

# Games one token carries under Discord's rate limits at a person's pace (acks p99 < 1 s, boards
# p99 < 2 s), then concurrent games with no limit until acks pass p99 1 s (bench/load_bench.py).
load: $(STAMP)
	$(PY) -m bench load

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
