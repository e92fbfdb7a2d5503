# Set-up and the two commands the README shows first.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
CORE   := $(VENV)/.core-stamp
STAMP  := $(VENV)/.installed-stamp

.PHONY: demo test test-fast lint bench clean

# the core install: what `make demo` needs (demo, bench --suite quick, report), ~730 MB
$(CORE): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e .
	touch $(CORE)

# every extra the test suite exercises (README "Install" says what each brings), ~2.3 GB
$(STAMP): $(CORE)
	# the CPU build of torch that lies on this disk; an unpinned torch pulls a CUDA build
	$(BIN)/python -m pip install -q torch==2.13.0
	$(BIN)/python -m pip install -q -e ".[torch,dask,seq,text,io,network,extract,dev]"
	touch $(STAMP)

demo: $(CORE)
	$(BIN)/infometer demo
	$(BIN)/infometer bench --suite quick --out demo-out/bench
	$(BIN)/infometer report demo-out/bench -o demo-out/report.html

test: $(STAMP)
	bash .ci/ensure-chromium
	# the OS sandbox of extraction scripts (bubblewrap); the attack suite then requires it
	bash .ci/ensure-bwrap
	$(BIN)/ruff check src tests benchmarks
	# two pytest workers on two cores: one BLAS/OpenMP thread each (two each oversubscribe the
	# cores; a 1000x1000 eigendecomposition took 1.19 s with 2 threads vs 0.15 s with 1 at load 8);
	# the browser test leaves its 800/1400 px screenshots in test-artifacts/screenshots
	INFOMETER_REQUIRE_SANDBOX=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 \
		INFOMETER_TEST_ARTIFACTS=$(CURDIR)/test-artifacts \
		$(BIN)/python -m pytest -q -n 2 --durations=15

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks

# the fast lane: everything but the tests marked slow (under ~2 minutes on 2 cores);
# `make test` stays the whole suite and is what CI runs
test-fast: $(STAMP)
	OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 $(BIN)/python -m pytest -q -n 2 -m "not slow"

# the comparisons behind the README's claims (benchmarks/README.md says which is which)
bench: $(STAMP)
	$(BIN)/python -m pip install -q -e ".[peers]"
	$(BIN)/python benchmarks/peers/discrete.py --repeats 3
	$(BIN)/python benchmarks/peers/knn.py --cells 3x1e5,1x1e6 --repeats 3
	$(BIN)/python benchmarks/speed/coldstart.py --repeats 3

clean:
	rm -rf $(VENV) demo-out bench-out report.html .pytest_cache
