# Quick start: `make demo` runs the main job on a bundled example, `make test` runs the tests.
# Both create (or reuse) a virtual environment in .venv and install polysched into it.
PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed

.PHONY: bytecode demo test venv clean

$(STAMP): setup.cfg pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	$(VENV)/bin/pip install -q -e '.[test,plot]'
	touch $(STAMP)

venv: $(STAMP)

# Bytecode as an install has it: where the environment sets PYTHONDONTWRITEBYTECODE
# (this workplace's does), every `python -m polysched` would compile the package again,
# about 0.5 s per process, and the tests start hundreds. Only stale files are redone.
bytecode: $(STAMP)
	$(VENV)/bin/python -m compileall -q polysched

demo: bytecode
	$(VENV)/bin/polysched demo

test: bytecode
	$(VENV)/bin/python -m pytest -n 2 tests

clean:
	rm -rf $(VENV) build *.egg-info
