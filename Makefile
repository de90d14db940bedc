# duelbench: on-ramp for a fresh machine with Python 3.11+.
#
#   make figures   build every figure and table at the default (paper) fidelity, reading
#                  finished simulations from the committed results archive (ARCHIVE=off
#                  rebuilds every shard from scratch: CPU-hours, see README)
#   make test      run the test suite
#
# Both create the virtual environment .venv from requirements.lock first if it is
# missing or out of date. Run `make help` for the other targets.

PYTHON ?= python3
VENV ?= .venv
LOCK := requirements.lock
# Tools of the test runner only (they compute no number): kept out of $(LOCK), whose sha256 is
# part of every archived result's key, so adding one invalidates no archived shard. build and
# twine: tests/test_package_install.py builds the sdist and wheel offline and checks them.
TEST_LOCK := requirements-test.lock
TEST_TOOLS := pytest-xdist==3.8.0 snakefmt==2.1.0 build==1.6.1 twine==6.2.0
STAMP := $(VENV)/.duelbench-installed
BIN := $(CURDIR)/$(VENV)/bin
CORES ?= all
SNAKEMAKE_ARGS ?=
ARCHIVE ?= archive
PYTEST_ARGS ?=
# pytest-xdist workers; each test file runs whole on one worker (its module fixtures built once)
TEST_WORKERS ?= auto
BENCH_ARGS ?=

# Compiled numba functions are cached inside the checkout; the venv's tools come first
# on PATH so that workflow rules calling `python` or `duelbench` use the locked packages.
export NUMBA_CACHE_DIR ?= $(CURDIR)/.numba_cache
RUN := PATH="$(BIN):$$PATH"

.DEFAULT_GOAL := help
.PHONY: help venv data figures quick test test-cluster bench lock lock-test clean clean-venv clean-results

help:
	@echo "make figures        all figures and tables at the default fidelity (snakemake --cores $(CORES)),"
	@echo "                    from the results archive; ARCHIVE=off rebuilds every shard from scratch"
	@echo "make data           fetch the downloaded data (MSLR matrices; \$$DUELBENCH_DATA_MIRROR or the web)"
	@echo "make quick          the same at reduced fidelity (profile config/profiles/quick)"
	@echo "make test           the test suite (pytest), but the SLURM cluster test"
	@echo "make test-cluster   the SLURM cluster test (installs slurm-wlm and munge; root)"
	@echo "make bench          engine throughput benchmark (duelbench bench)"
	@echo "make venv           create/refresh .venv from $(LOCK)"
	@echo "make lock           re-resolve pyproject.toml's dependencies into $(LOCK)"
	@echo "make clean          remove caches (bytecode, pytest, numba, build files)"
	@echo "make clean-venv     remove .venv"
	@echo "make clean-results  remove results/ and .snakemake/ (simulation outputs: costly to rebuild)"
	@echo "Variables: CORES=$(CORES) ARCHIVE=$(ARCHIVE) SNAKEMAKE_ARGS='...' PYTEST_ARGS='...' TEST_WORKERS=$(TEST_WORKERS) BENCH_ARGS='...' PYTHON=$(PYTHON)"

venv: $(STAMP)

# Reinstalls whenever the lock or the package metadata changes. Every package comes from the
# lock (hash-checked); the project itself is installed editable without touching the network.
$(STAMP): $(LOCK) $(TEST_LOCK) pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
	  { echo "error: duelbench needs Python 3.11 or newer; '$(PYTHON)' is $$($(PYTHON) -V 2>&1). Use make PYTHON=python3.11 ..." >&2; exit 1; }
	@test -x $(VENV)/bin/python || { echo "creating $(VENV) with $$($(PYTHON) -V)"; $(PYTHON) -m venv $(VENV); }
	$(VENV)/bin/python -m pip install --disable-pip-version-check --no-input -q -r $(LOCK) -r $(TEST_LOCK)
	$(VENV)/bin/python -m pip install --disable-pip-version-check --no-input -q --no-deps --no-build-isolation -e .
	$(VENV)/bin/python -m pip check
	@touch $@

# The data come first: an archived shard is used only once its matrix's sha256 can be checked.
data: $(STAMP)
	$(RUN) $(BIN)/duelbench fetch-data --dest data/mslr

figures: data
	$(RUN) $(BIN)/duelbench config-check --snakemake-args "$(SNAKEMAKE_ARGS)"
	$(RUN) $(BIN)/snakemake --cores $(CORES) --config archive=$(ARCHIVE) $(SNAKEMAKE_ARGS)

quick: $(STAMP)
	$(RUN) $(BIN)/duelbench config-check --snakemake-args "$(SNAKEMAKE_ARGS)"
	$(RUN) $(BIN)/snakemake --cores $(CORES) --profile config/profiles/quick $(SNAKEMAKE_ARGS)

# The SLURM cluster test (marker `cluster`: a one-node cluster on this machine, about 7 minutes
# of a worker) runs in its own target, so that `make test` (what CI runs) stays within 30 minutes.
test: $(STAMP)
	$(RUN) $(BIN)/pytest -q -n $(TEST_WORKERS) --dist loadfile --durations=25 -m "not cluster" $(PYTEST_ARGS)

test-cluster: $(STAMP)
	workflow/cluster/local-slurm.sh install
	$(RUN) $(BIN)/pytest -q -m cluster $(PYTEST_ARGS)

bench: $(STAMP)
	$(RUN) $(BIN)/duelbench bench $(BENCH_ARGS)

# Resolve the newest versions allowed by pyproject.toml in a throw-away venv (the project itself
# is not built), then record every installed distribution with the hashes of all its published
# files (so the lock also installs on other platforms). Needs the package index; review the
# diff before committing.
PIP_TOOLS_VERSION := 7.6.2
lock:
	@set -eu; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	$(PYTHON) -m venv "$$tmp/env"; \
	$(PYTHON) -c "$$DEPS_FROM_PYPROJECT" > "$$tmp/deps.in"; \
	"$$tmp/env/bin/python" -m pip install --disable-pip-version-check -q -r "$$tmp/deps.in"; \
	"$$tmp/env/bin/python" -m pip freeze --all --exclude pip > "$$tmp/pins.in"; \
	$(PYTHON) -m venv "$$tmp/tools"; \
	"$$tmp/tools/bin/python" -m pip install --disable-pip-version-check -q 'pip-tools==$(PIP_TOOLS_VERSION)'; \
	{ echo "# Exact versions of every package in the duelbench environment (Python 3.11),"; \
	  echo "# with hashes. Generated by 'make lock' from pyproject.toml; do not edit by hand."; \
	  echo "# environment.yml mirrors these pins (tests/test_packaging.py checks it)."; \
	  env -u PIP_FIND_LINKS -u PIP_EXTRA_INDEX_URL -u PIP_INDEX_URL PIP_CONFIG_FILE=/dev/null \
	    "$$tmp/tools/bin/pip-compile" -q --no-header --no-annotate --generate-hashes --allow-unsafe \
	      --strip-extras --no-emit-index-url --output-file - "$$tmp/pins.in"; } > $(LOCK).new; \
	mv $(LOCK).new $(LOCK); \
	$(PYTHON) -c "$$ENV_YML_FROM_LOCK" $(LOCK) > environment.yml; \
	echo "wrote $(LOCK) and environment.yml"

# The test runner's tools, resolved within the pins of $(LOCK) and without the packages it holds.
lock-test:
	@set -eu; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	$(PYTHON) -m venv "$$tmp/tools"; \
	"$$tmp/tools/bin/python" -m pip install --disable-pip-version-check -q 'pip-tools==$(PIP_TOOLS_VERSION)'; \
	grep -oE '^[A-Za-z0-9_.-]+==[^ ;\\]+' $(LOCK) > "$$tmp/constraints.txt"; \
	printf '%s\n' $(TEST_TOOLS) > "$$tmp/tools.in"; \
	env -u PIP_FIND_LINKS -u PIP_EXTRA_INDEX_URL -u PIP_INDEX_URL PIP_CONFIG_FILE=/dev/null \
	  "$$tmp/tools/bin/pip-compile" -q --no-header --no-annotate --generate-hashes --allow-unsafe \
	    --strip-extras --no-emit-index-url -c "$$tmp/constraints.txt" --output-file "$$tmp/tools.lock" "$$tmp/tools.in"; \
	{ echo "# Exact versions, with hashes, of the test runner's tools that requirements.lock does not"; \
	  echo "# hold. Generated by 'make lock-test' from TEST_TOOLS in the Makefile; do not edit by hand."; \
	  $(PYTHON) -c "$$DROP_LOCKED" $(LOCK) "$$tmp/tools.lock"; } > $(TEST_LOCK); \
	echo "wrote $(TEST_LOCK)"

# The requirement blocks (a pin and its hash lines) of argv[2] whose package argv[1] does not pin.
define DROP_LOCKED
import re, sys
name = lambda line: (m := re.match(r"([A-Za-z0-9._-]+)==", line)) and m.group(1).lower().replace("_", "-")
locked = {name(l) for l in open(sys.argv[1]) if name(l)}
keep = False
for line in open(sys.argv[2]):
    if line.startswith("#") or not line.strip():
        continue
    if not line[0].isspace():
        keep = name(line) not in locked
    if keep:
        sys.stdout.write(line)
endef
export DROP_LOCKED

# pyproject.toml's dependencies, its optional ones and the build backend (installed into the
# venv so that the editable install needs no build isolation).
define DEPS_FROM_PYPROJECT
import tomllib
meta = tomllib.load(open("pyproject.toml", "rb"))
deps = list(meta["project"]["dependencies"])
for extra in meta["project"].get("optional-dependencies", {}).values():
    deps += extra
deps += meta["build-system"]["requires"]
print("\n".join(deps))
endef
export DEPS_FROM_PYPROJECT

# environment.yml = python 3.11 + pip + the lock's pins (without hashes, which conda's pip
# section cannot carry).
define ENV_YML_FROM_LOCK
import re, sys
pins = [m.group(0) for line in open(sys.argv[1])
        if (m := re.match(r"[A-Za-z0-9._-]+==[^\s;\\]+", line))]
print("# Conda environment mirroring requirements.lock (generated by 'make lock').")
print("# conda env create -f environment.yml && conda activate duelbench && pip install --no-deps -e .")
print("name: duelbench")
print("channels:\n  - conda-forge")
print("dependencies:\n  - python=3.11\n  - pip\n  - pip:")
for pin in sorted(pins, key=str.lower):
    print("      - " + pin)
endef
export ENV_YML_FROM_LOCK

clean:
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +
	rm -rf .pytest_cache .numba_cache build dist src/*.egg-info .duelbench_tmp

clean-venv:
	rm -rf $(VENV)

clean-results:
	rm -rf results .snakemake
