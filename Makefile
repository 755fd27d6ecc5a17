# Two commands on a fresh machine: `make run` and `make test`. Each creates .venv and
# installs what it needs the first time (and again whenever pyproject.toml changes):
# `make run` (and invite, backup, demo) only what the bot needs at run time, `make test`
# also the dev tools (pytest, hypothesis, ruff, mypy).
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
RUN_STAMP := $(VENV)/.installed-run
STAMP     := $(VENV)/.installed-dev

.PHONY: run invite backup test lint typecheck pytest bench tournament demo reliability load clean

$(RUN_STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e .
	touch $(RUN_STAMP)

$(STAMP): $(RUN_STAMP)
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

run: $(RUN_STAMP)
	$(PY) bot.py

# The link that adds the bot to a server (docs/ADMIN.md), without starting it.
invite: $(RUN_STAMP)
	$(PY) -m tools.invite

# A consistent copy of the live database, safe while the bot runs: make backup DEST=file
backup: $(RUN_STAMP)
	$(PY) -m tools.backup $(if $(DEST),$(DEST),backups/sequence-$$(date +%Y%m%d-%H%M%S).db)

test: lint typecheck pytest

lint: $(STAMP)
	$(PY) -m ruff check .

typecheck: $(STAMP)
	$(PY) -m mypy

# Slow tests (long fault runs) are left to `make reliability`. The tests mostly wait (on
# the fake Discord, on PostgreSQL, on bot processes they start), so they run in
# TEST_WORKERS processes at once (pytest-xdist; each test owns its ports, servers and
# files), whatever the number of cores; the 15 slowest are named at the end.
TEST_WORKERS ?= 4
pytest: $(STAMP)
	$(PY) -m pytest -q -m "not slow" -n $(TEST_WORKERS) --dist worksteal --durations=15

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
