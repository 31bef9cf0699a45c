# Quick start: `make demo` runs the main job on a bundled example, `make test` runs the tests.
# Both create (or reuse) a virtual environment in .venv and install polysched into it.
PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed

.PHONY: demo test venv clean

$(STAMP): setup.cfg pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	$(VENV)/bin/pip install -q -e '.[test,plot]'
	touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/polysched demo

test: $(STAMP)
	$(VENV)/bin/python -m pytest -n 2 tests

clean:
	rm -rf $(VENV) build *.egg-info
