# IntervalPro: the commands a developer types. See README.md.
SHELL := bash
SWIFT ?= swift
PLAN ?= Plans/first-cadence-session.json
SPEED ?= 60
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
PACKAGES := $(shell grep -v '^\s*\#' .ci/packages.txt)

.PHONY: run deps build release test test-swift test-schema test-fakebluez e2e bench fuzz clean

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

## test: every test: the Swift suites (core, runtime, I/O, CLI) and the plan schema check
test: test-swift test-schema test-fakebluez

test-swift:
	$(SWIFT) test

test-schema:
	python3 Tests/Schema/check_schema.py

## test-fakebluez: the fake org.bluez that the live-sensor tests use, checked on its own
## (Debian's python3: python3-dbusmock, python3-dbus and python3-gi live there)
test-fakebluez:
	/usr/bin/python3 Tests/FakeBlueZ/smoke_test.py

## e2e: the real-stack test: the live path against bluetoothd and Linux's Bluetooth stack in a
## QEMU VM, with virtual devices (Tests/E2E; about 6 minutes; see docs/README-e2e.md)
e2e:
	Tests/E2E/run.sh

## bench: parser throughput and a 70-minute replay (figures, not pass/fail)
bench:
	Benchmarks/run.sh

## fuzz: libFuzzer on each parser, the plan decoder and the recording reader (RUNS per target)
RUNS ?= 1000000
fuzz:
	Fuzz/run.sh $(RUNS)

clean:
	rm -rf .build .build-*
