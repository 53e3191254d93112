# IntervalPro: the commands a developer types. See README.md.
SHELL := bash
SWIFT ?= swift
PLAN ?= Plans/first-cadence-session.json
SPEED ?= 60
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
PACKAGES := $(shell grep -v '^\s*\#' .ci/packages.txt)
TEST_PACKAGES := $(shell grep -v '^\s*\#' .ci/test-packages.txt)
# The Python checks run in a venv that also sees Debian's modules (dbusmock for the fake).
TEST_VENV := .build/test-venv
TEST_PYTHON := $(TEST_VENV)/bin/python3

.PHONY: run deps deps-test build release test test-swift test-schema test-fakebluez test-exports test-formats test-report report-screenshot e2e bench bench-live bench-audio bench-history fuzz clean

## run: install what is needed, build, and run an example plan: live sensors when found, else the bundled recording at 60x
run: deps release
	.build/release/intervalpro run $(PLAN) --speed $(SPEED) --fallback recording

## deps: install the system packages listed in .ci/packages.txt
deps:
	@$(call install-missing,$(PACKAGES))

## deps-test: also what the tests need: .ci/test-packages.txt and a venv with .ci/test-requirements.txt
deps-test:
	@$(call install-missing,$(PACKAGES) $(TEST_PACKAGES))
	@[ -x $(TEST_PYTHON) ] || /usr/bin/python3 -m venv --system-site-packages $(TEST_VENV)
	@$(TEST_PYTHON) -m pip install -q --disable-pip-version-check -r .ci/test-requirements.txt

define install-missing
missing=$$(for p in $(1); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
if [ -n "$$missing" ]; then \
	echo "installing: $$missing"; \
	$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq $$missing; \
fi
endef

build:
	$(SWIFT) build

release:
	$(SWIFT) build -c release --product intervalpro

## test: every test: the Swift suites (core, runtime, I/O, D-Bus, BlueZ, sound, audio, history,
## storage, CLI), the plan schema check, the fake org.bluez's own check, the FIT/TCX/jsonl
## exports checked by third-party decoders, workouts and activities made by other tools
## (fit-tool, Garmin's FIT SDK), and the HTML report rendered in headless Chromium
test: deps-test test-swift test-schema test-fakebluez test-exports test-formats test-report

test-swift:
	$(SWIFT) test

test-schema:
	$(TEST_PYTHON) Tests/Schema/check_schema.py

## test-fakebluez: the fake org.bluez that the live-sensor tests use, checked on its own
## (Debian's python3: python3-dbusmock, python3-dbus and python3-gi live there)
test-fakebluez:
	/usr/bin/python3 Tests/FakeBlueZ/smoke_test.py

test-exports:
	$(SWIFT) build --product intervalpro
	$(TEST_PYTHON) Tests/Exports/check_exports.py "$$($(SWIFT) build --show-bin-path)/intervalpro"

## test-formats: FIT workouts and activities written by fit-tool, TCX in Garmin's form, and
## `plan export --format fit` decoded by Garmin's FIT SDK
test-formats:
	$(SWIFT) build --product intervalpro
	$(TEST_PYTHON) Tests/Formats/check_formats.py "$$($(SWIFT) build --show-bin-path)/intervalpro"

test-report:
	$(SWIFT) build --product intervalpro
	$(TEST_PYTHON) Tests/Report/check_report.py "$$($(SWIFT) build --show-bin-path)/intervalpro"

## report-screenshot: render the bundled cadence ladder's report into docs/ (for the README)
report-screenshot:
	$(SWIFT) build --product intervalpro
	$(TEST_PYTHON) Tests/Report/check_report.py "$$($(SWIFT) build --show-bin-path)/intervalpro" docs/report-cadence-ladder.png

## e2e: the real-stack test: the live path against bluetoothd and Linux's Bluetooth stack in a
## QEMU VM, with virtual devices (Tests/E2E; about 8 minutes; see README.md, "The real-stack test")
e2e:
	Tests/E2E/run.sh

## bench: parser throughput, a 70-minute replay, and the history figures (not pass/fail)
bench:
	Benchmarks/run.sh
	Benchmarks/history.sh

## bench-history: saving a session per sample, `history` over 1,000 sessions, FIT export of an hour
bench-history:
	Benchmarks/history.sh

## bench-live: live sensors against the fake org.bluez, side by side with bleak: CPU per
## notification (AcquireNotify, StartNotify, bleak), a 60 s run's CPU, RSS, wake-ups and latency
bench-live: deps-test release
	/usr/bin/python3 Benchmarks/live.py $$($(SWIFT) build -c release --show-bin-path)/intervalpro $(TEST_PYTHON)

## bench-audio: render cost per second of audio, speech synthesis, a 45-minute render-audio
bench-audio:
	Benchmarks/audio.sh

## fuzz: libFuzzer on each parser, the plan decoder and the recording reader (RUNS per target)
RUNS ?= 1000000
fuzz:
	Fuzz/run.sh $(RUNS)

clean:
	rm -rf .build .build-*
