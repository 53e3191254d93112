# IntervalPro: the commands a developer types. See README.md.
SHELL := bash
SWIFT ?= swift
PLAN ?= Plans/first-cadence-session.json
SPEED ?= 60
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
PACKAGES := $(shell grep -v '^\s*\#' .ci/packages.txt)

.PHONY: run deps build release test test-swift test-schema test-exports test-report report-screenshot bench bench-history fuzz clean

## run: install what is needed, build, and run an example plan (bundled recording, 60x speed)
run: deps release
	.build/release/intervalpro run $(PLAN) --speed $(SPEED)

## deps: install the system packages listed in .ci/packages.txt
deps:
	@missing=$$(for p in $(PACKAGES); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing: $$missing"; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq $$missing; \
	fi

build:
	$(SWIFT) build

release:
	$(SWIFT) build -c release --product intervalpro

## test: every test: the Swift suites (core, runtime, I/O, history, storage, CLI), the plan
## schema check, the FIT/TCX/jsonl exports checked by third-party decoders, and the HTML
## report rendered in headless Chromium
test: test-swift test-schema test-exports test-report

test-swift:
	$(SWIFT) test

test-schema:
	python3 Tests/Schema/check_schema.py

test-exports:
	$(SWIFT) build --product intervalpro
	python3 Tests/Exports/check_exports.py "$$($(SWIFT) build --show-bin-path)/intervalpro"

test-report:
	$(SWIFT) build --product intervalpro
	python3 Tests/Report/check_report.py "$$($(SWIFT) build --show-bin-path)/intervalpro"

## report-screenshot: render the bundled cadence ladder's report into docs/ (for the README)
report-screenshot:
	$(SWIFT) build --product intervalpro
	python3 Tests/Report/check_report.py "$$($(SWIFT) build --show-bin-path)/intervalpro" docs/report-cadence-ladder.png

## bench: parser throughput, a 70-minute replay, and the history figures (not pass/fail)
bench:
	Benchmarks/run.sh
	Benchmarks/history.sh

## bench-history: saving a session per sample, `history` over 1,000 sessions, FIT export of an hour
bench-history:
	Benchmarks/history.sh

## fuzz: libFuzzer on each parser, the plan decoder and the recording reader (RUNS per target)
RUNS ?= 1000000
fuzz:
	Fuzz/run.sh $(RUNS)

clean:
	rm -rf .build .build-*
