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

# Where `make install` puts things (DESTDIR stages them, as a package build does).
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR := $(PREFIX)/bin
# intervalpro-web, the page's server, which `intervalpro` hands `serve` and `run --web` to.
LIBEXECDIR := $(PREFIX)/libexec/intervalpro
DATADIR := $(PREFIX)/share/intervalpro
# The README and docs/ as in the repository, so that their links to each other hold.
DOCDIR := $(PREFIX)/share/doc/intervalpro
MANDIR := $(PREFIX)/share/man/man1
BASHDIR := $(PREFIX)/share/bash-completion/completions
# zsh reads a package's completions from vendor-completions under /usr, a local install's
# from site-functions (Debian's zsh searches /usr/local/share/zsh/site-functions, not
# /usr/local/share/zsh/vendor-completions).
ifeq ($(PREFIX),/usr)
ZSHDIR := $(PREFIX)/share/zsh/vendor-completions
else
ZSHDIR := $(PREFIX)/share/zsh/site-functions
endif
FISHDIR := $(PREFIX)/share/fish/vendor_completions.d
# Read by every user's systemd (both /usr/local/lib and /usr/lib are on its unit path).
USERUNITDIR := $(PREFIX)/lib/systemd/user
# udev and the system bus read a package's files under /usr, a local administrator's under /etc.
# Any other prefix (~/.local, a folder of one's own) keeps them with the rest, where neither
# reads them: /etc is not that prefix's to write (a user's install stopped there half done).
ifeq ($(PREFIX),/usr)
UDEVDIR := /usr/lib/udev/rules.d
DBUSDIR := /usr/share/dbus-1/system.d
else ifeq ($(PREFIX),/usr/local)
UDEVDIR := /etc/udev/rules.d
DBUSDIR := /etc/dbus-1/system.d
else
UDEVDIR := $(PREFIX)/lib/udev/rules.d
DBUSDIR := $(PREFIX)/share/dbus-1/system.d
endif
RELEASE_BIN = $$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/intervalpro
# What `make release` built, found without Swift: `sudo make install` runs with root's PATH,
# where a toolchain from swift.org or swiftly is not, and said "build first" of a built tree.
BUILT_BIN := .build/release/intervalpro
# Man pages carry the date of the last commit, so the same source gives the same pages.
MAN_DATE := $(shell git log -1 --format=%cs 2>/dev/null || date +%F)
# The debug build (make test-swift's) has a folder of its own, so that it can build while the
# release build does: SwiftPM holds a folder's lock for a whole build.
DEBUG_SCRATCH := .build/debug-tree
MAN_OUT := .build/man

.PHONY: help run deps deps-test deps-test-system deps-test-python build release install uninstall man deb test-package test test-swift test-docs test-imports test-schema test-readiness test-alpha1 test-fakebluez test-fakempris test-fakeservices test-exports test-formats test-services test-report test-web report-screenshot web-screenshot e2e release-flags bench bench-startup bench-live bench-audio bench-history bench-import bench-ant bench-ant-usb bench-web symbol-order fuzz clean

## help: the targets and what each does (these ## lines)
help:
	@awk '/^## / { sub(/^## /, ""); print (within ? "    " : "") $$0; within = 1; next } { within = 0 }' $(firstword $(MAKEFILE_LIST))

## run: install what is needed, build, and run an example plan: live sensors when found, else the bundled recording at 60x
run: deps release
	.build/release/intervalpro run $(PLAN) --speed $(SPEED) --fallback recording

## deps: install the system packages listed in .ci/packages.txt
deps:
	@$(call install-missing,$(PACKAGES))

## deps-test: also what the tests need: .ci/test-packages.txt and a venv with .ci/test-requirements.txt
deps-test: deps-test-system deps-test-python

## deps-test-system: the system packages of .ci/packages.txt and .ci/test-packages.txt
deps-test-system:
	@$(call install-missing,$(PACKAGES) $(TEST_PACKAGES))

## deps-test-python: the test venv (.build/test-venv) with .ci/test-requirements.txt
# Without byte-compiling what it installs: pip compiled every module of NumPy, SciPy, pandas
# and scikit-learn, 63 of its 74 s; Python compiles the few the suites import when they first do.
# `make test` installs it beside the release build (Tests/run.sh), not before it.
deps-test-python:
	@[ -x $(TEST_PYTHON) ] || /usr/bin/python3 -m venv --system-site-packages $(TEST_VENV)
	@$(TEST_PYTHON) -m pip install -q --no-compile --disable-pip-version-check -r .ci/test-requirements.txt
	@# pyhrv's wheel only for the sample RR series it ships (Tests/Readiness): installed, it would pull in OpenCV.
	@ls .build/test-wheels/pyhrv-0.5.0-*.whl >/dev/null 2>&1 || \
		$(TEST_PYTHON) -m pip download -q --disable-pip-version-check --no-deps -d .build/test-wheels pyhrv==0.5.0

define install-missing
missing=$$(for p in $(1); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
if [ -n "$$missing" ]; then \
	echo "installing: $$missing"; \
	$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq $$missing; \
fi
endef

## build: a debug build, for editing (`swift build`)
build:
	$(SWIFT) build

## release: the optimised binary, with the Swift runtime linked in (no toolchain needed to run
## it), linked by lld with packed relative relocations (start-up: 11 ms → 8 ms), exporting no
## symbols (the static runtime's link options export every public symbol of every package, some
## 31,000, which each library lookup and the runtime's dladdr at start-up searched) and with no
## $ORIGIN run path (no library is looked for beside the binary)
#
# Two more for start-up (docs/dev/benchmarks.md, "Start-up"):
# - every package's code asks for a generic type's metadata through its accessor, with the
#   conformances it needs passed in, rather than by mangled name, which the runtime decodes and
#   checks by searching all of the binary's 7,000 protocol conformances for each new one;
# - libstdc++, which the static Swift runtime needs, is linked in from its static archive rather
#   than loaded, with its 3,266 symbol relocations, by every command: `-lstdc++` searches
#   STATIC_CXX_DIR first, and it holds only the archive, where the toolchain's clang finds it.
#   Without the archive (no libstdc++-dev), the folder stays empty and the shared library is used.
STATIC_CXX_DIR := $(CURDIR)/.build/static-libstdc++
STATIC_CXX_ARCHIVE := $(shell clang -print-file-name=libstdc++.a 2>/dev/null)
$(shell mkdir -p "$(STATIC_CXX_DIR)" && if [ -f "$(STATIC_CXX_ARCHIVE)" ]; then \
	ln -sfn "$(STATIC_CXX_ARCHIVE)" "$(STATIC_CXX_DIR)/libstdc++.a"; fi)
#
# And one for memory: each function compiled into a section of its own, and the functions a
# live session runs placed side by side (packaging/symbol-order.txt, `make symbol-order`): a
# live run holds pages, not functions, and held 13.3 MB of the binary with them scattered,
# 9.6 MB side by side (docs/dev/benchmarks.md, "Live sensors").
SYMBOL_ORDER := $(CURDIR)/packaging/symbol-order.txt
#
# And one for the build: debug information of line tables only (a backtrace's files and lines),
# where SwiftPM asks for full (`-g`, before these flags: the last one given wins). Full took 12 %
# more processor time (`--product intervalpro` from a fresh scratch folder: 383 against 338 s),
# for a debugger's variables and types, which `make test-swift`'s build (DEBUG_FLAGS) leaves out
# too; the stripped binary is the same size (65,229,424 bytes).
RELEASE_FLAGS := -c release --disable-local-rpath -Xswiftc -use-ld=lld -Xswiftc -gline-tables-only \
	-Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-export-dynamic \
	-Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors \
	-Xlinker -L$(STATIC_CXX_DIR) \
	-Xswiftc -Xfrontend -Xswiftc -function-sections \
	-Xlinker --symbol-ordering-file=$(SYMBOL_ORDER) -Xlinker --no-warn-symbol-ordering
# The benchmarks measure the binary `make release` builds (Benchmarks/*.sh read this).
export RELEASE_FLAGS
# The debug build's (make test-swift's): line tables only, enough for a backtrace's files and lines,
# and each module compiled whole, in one job, rather than in batches that each parse the
# module's other files again.
# Full debug information took 14 % more processor time (`swift build --build-tests` in a fresh
# clone: 11:19 against 9:44 minutes); batches 21 % more than whole modules (10:18 against 8:32,
# 5:34 against 4:30 of wall time). An edit rebuilds its whole module: plain `swift build` and
# `swift test` (batches) suit editing better.
DEBUG_FLAGS := --scratch-path $(DEBUG_SCRATCH) -Xswiftc -gline-tables-only -Xswiftc -wmo -Xswiftc -num-threads -Xswiftc 1 -Xswiftc -disable-batch-mode
export DEBUG_FLAGS

## release-flags: print the flags `make release` builds with (scripts run on their own ask here)
release-flags:
	@echo '$(RELEASE_FLAGS)'

release:
	$(SWIFT) build $(RELEASE_FLAGS) --product intervalpro
	$(SWIFT) build $(RELEASE_FLAGS) --product intervalpro-web

## man: a page for intervalpro and each subcommand, generated from the argument definitions
# By swift-argument-parser's generate-manual, run on the release binary (`make release man`):
# it is linked from the release build's own ArgumentParser (11 s); its plugin, on the debug
# build, compiled ArgumentParser again for the plugin's tools and took 37 s at the end of
# `make test`.
man:
	@bin="$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)" && [ -x "$$bin/intervalpro" ] || \
		{ echo "make man: the pages are made from the release binary: make release man" >&2; exit 1; }
	$(SWIFT) build $(RELEASE_FLAGS) --product generate-manual >/dev/null
	rm -rf $(MAN_OUT)
	mkdir -p $(MAN_OUT)
	bin="$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)" && \
		"$$bin/generate-manual" "$$bin/intervalpro" --multi-page --date $(MAN_DATE) --output-directory $(MAN_OUT)

## install: the binaries, man pages, bash/zsh/fish completions, example plans and recordings, the docs,
## the udev rule, the D-Bus policy snippet and the systemd user unit for the web page
## (PREFIX=/usr/local; DESTDIR for staging).
## Builds nothing, so that `sudo make install` leaves no root-owned files in .build.
install:
	@[ -x "$(BUILT_BIN)" ] && [ -x "$$(dirname $(BUILT_BIN))/intervalpro-web" ] && [ -f $(MAN_OUT)/intervalpro.1 ] || \
		{ echo "make install: build first, as yourself: make release man" >&2; exit 1; }
	install -Dm755 $(BUILT_BIN) $(DESTDIR)$(BINDIR)/intervalpro
	install -Dm755 "$$(dirname $(BUILT_BIN))/intervalpro-web" $(DESTDIR)$(LIBEXECDIR)/intervalpro-web
	install -d $(DESTDIR)$(MANDIR) $(DESTDIR)$(DATADIR)/Plans $(DESTDIR)$(DATADIR)/Recordings
	install -m644 $(MAN_OUT)/*.1 $(DESTDIR)$(MANDIR)/
	install -m644 Plans/*.json $(DESTDIR)$(DATADIR)/Plans/
	install -m644 Recordings/*.jsonl Recordings/README.md $(DESTDIR)$(DATADIR)/Recordings/
	install -d $(DESTDIR)$(DOCDIR)/docs/reference $(DESTDIR)$(DOCDIR)/docs/dev
	install -m644 README.md $(DESTDIR)$(DOCDIR)/
	install -m644 docs/*.md docs/*.png $(DESTDIR)$(DOCDIR)/docs/
	install -m644 docs/reference/*.md $(DESTDIR)$(DOCDIR)/docs/reference/
	install -m644 docs/dev/*.md $(DESTDIR)$(DOCDIR)/docs/dev/
	install -d $(DESTDIR)$(BASHDIR) $(DESTDIR)$(ZSHDIR) $(DESTDIR)$(FISHDIR)
	$(BUILT_BIN) --generate-completion-script bash | sed "1{/^#!/d}" > $(DESTDIR)$(BASHDIR)/intervalpro
	$(BUILT_BIN) --generate-completion-script zsh > $(DESTDIR)$(ZSHDIR)/_intervalpro
	$(BUILT_BIN) --generate-completion-script fish > $(DESTDIR)$(FISHDIR)/intervalpro.fish
	install -Dm644 udev/70-intervalpro-rfkill.rules $(DESTDIR)$(UDEVDIR)/70-intervalpro-rfkill.rules
	install -Dm644 udev/70-intervalpro-ant.rules $(DESTDIR)$(UDEVDIR)/70-intervalpro-ant.rules
	install -Dm644 udev/intervalpro-bluez.conf $(DESTDIR)$(DBUSDIR)/intervalpro-bluez.conf
	install -Dm644 systemd/intervalpro.service $(DESTDIR)$(USERUNITDIR)/intervalpro.service
	@case "$(UDEVDIR)" in /etc/*|/usr/lib/*) ;; *) echo "make install: the udev rules and the D-Bus policy are in $(UDEVDIR) and $(DBUSDIR), where udev and the system bus do not read them: as root, copy them to /etc/udev/rules.d and /etc/dbus-1/system.d for Bluetooth and ANT+ sensors without root (docs/installing.md)";; esac
	@case "$(PREFIX)" in /usr|/usr/local) ;; *) echo "make install: the user unit is in $(USERUNITDIR), where systemd does not look, and runs intervalpro from the PATH of its user manager, which $(PREFIX)/bin is not on: copy it to ~/.config/systemd/user with ExecStart=$(PREFIX)/bin/intervalpro serve --listen 0.0.0.0:8417 (docs/raspberry-pi.md)";; esac

## uninstall: removes what `make install` put in place (with the same PREFIX and DESTDIR)
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/intervalpro $(DESTDIR)$(LIBEXECDIR)/intervalpro-web $(DESTDIR)$(MANDIR)/intervalpro.1 $(DESTDIR)$(MANDIR)/intervalpro.*.1
	rm -f $(DESTDIR)$(BASHDIR)/intervalpro $(DESTDIR)$(ZSHDIR)/_intervalpro $(DESTDIR)$(FISHDIR)/intervalpro.fish
	rm -f $(DESTDIR)$(UDEVDIR)/70-intervalpro-rfkill.rules $(DESTDIR)$(UDEVDIR)/70-intervalpro-ant.rules $(DESTDIR)$(DBUSDIR)/intervalpro-bluez.conf
	rm -f $(DESTDIR)$(USERUNITDIR)/intervalpro.service
	rm -rf $(DESTDIR)$(DATADIR)
	rm -rf $(DESTDIR)$(DOCDIR)
	-rmdir $(DESTDIR)$(LIBEXECDIR) 2>/dev/null
	@echo "make uninstall: each user's sessions, settings and accounts stay in ~/.local/share/intervalpro and ~/.config/intervalpro (docs/installing.md)"

## deb: a Debian package of the release binary (packaging/build-deb.sh); needs no Swift to install
deb: release man
	packaging/build-deb.sh $(RELEASE_BIN)

## test-package: builds the .deb, installs it on a fresh Debian 12 root (debootstrap), runs it
## there, removes it, and checks nothing of it is left (packaging/test-package.sh; root)
test-package: deb
	packaging/test-package.sh

## test: every test, as CI runs it (Tests/run.sh): the Swift suites (core, HRV, runtime, event
## loop, I/O, formats, D-Bus, BlueZ, ANT+, sound, audio, history, storage, services, launch, web,
## QR, CLI), the plan schema check, the own checks of the fake org.bluez, the MPRIS player and the
## intervals.icu/Strava stand-in, the FIT/TCX/jsonl exports checked by third-party decoders,
## workouts and activities made by other tools (fit-tool, Garmin's FIT SDK), readiness and alpha 1
## held to NeuroKit2, hrv-analysis and nolds, the account, calendar and upload commands against
## the stand-in, the HTML report and the web page in headless Chromium, the .deb on a fresh Debian
## root (root or sudo) and the real-stack test in a QEMU VM. One release build serves the Python
## suites, the package, the VM and swift test (its suites built on it); suites that do not share
## state run side by side (docs/dev/testing.md)
test: deps-test-system
	SWIFT=$(SWIFT) TEST_PYTHON=$(TEST_PYTHON) Tests/run.sh

## test-swift: every Swift suite through `swift test` (a debug build, in one process: for editing)
test-swift:
	$(SWIFT) test $(DEBUG_FLAGS)

## test-docs: every relative link and anchor in the Markdown files, and README.md under 15 KB
test-docs:
	/usr/bin/python3 Tests/Docs/check_links.py

## test-imports: Package.swift declares exactly the modules each target imports
test-imports:
	/usr/bin/python3 Tests/Package/check_imports.py --swift $(SWIFT)

## test-schema: the example and contract plans, and the schema's own cases, against Plans/plan.schema.json
test-schema:
	$(TEST_PYTHON) Tests/Schema/check_schema.py

## test-readiness: readiness measurements from synthetic and public RR data, held to NeuroKit2's artifact
## correction and hrv-analysis's rMSSD/SDNN, refusals, a month of baseline verdicts (Tests/Readiness)
test-readiness: deps-test release
	$(TEST_PYTHON) Tests/Readiness/check_readiness.py $(RELEASE_BIN)

## test-alpha1: DFA alpha 1 of saved sessions' beats, window by window, held to NeuroKit2 and nolds
test-alpha1: deps-test release
	$(TEST_PYTHON) Tests/Readiness/check_alpha1.py $(RELEASE_BIN)

## test-fakebluez: the fake org.bluez that the live-sensor tests use, checked on its own
## (Debian's python3: python3-dbusmock, python3-dbus and python3-gi live there)
test-fakebluez: deps-test
	/usr/bin/python3 Tests/FakeBlueZ/smoke_test.py

## test-fakempris: the fake MPRIS music player that the music-control tests use, checked on its own
test-fakempris: deps-test
	/usr/bin/python3 Tests/FakeMPRIS/smoke_test.py

## test-fakeservices: the stand-in for intervals.icu's and Strava's APIs (on loopback) that the
## upload, account and calendar tests use, checked on its own (standard library only)
test-fakeservices:
	/usr/bin/python3 Tests/FakeServices/smoke_test.py

## test-exports: FIT, TCX and jsonl exports read back by third-party decoders (Garmin's FIT SDK,
## tcxreader, lxml) against the stored session; the jsonl replayed to its summary
test-exports: release
	$(TEST_PYTHON) Tests/Exports/check_exports.py $(RELEASE_BIN)

## test-formats: FIT workouts and activities written by fit-tool, TCX in Garmin's form, and
## `plan export --format fit` decoded by Garmin's FIT SDK
test-formats: release
	$(TEST_PYTHON) Tests/Formats/check_formats.py $(RELEASE_BIN)

## test-services: account, today, run today/icu:ID, upload and doctor against the intervals.icu/Strava
## stand-in: the requests sent (auth, multipart, OAuth forms), the uploaded FIT file, exit codes,
## retries, the upload queue, token refresh, and no secret in any output (about 2 minutes, most
## of it waiting as a runner's command would)
test-services: release
	$(TEST_PYTHON) Tests/Services/check_services.py $(RELEASE_BIN)

## test-report: a stored session's HTML report: self-contained, its SVG as the session, and
## rendered in headless Chromium
test-report: release
	$(TEST_PYTHON) Tests/Report/check_report.py $(RELEASE_BIN)

## report-screenshot: render the bundled cadence ladder's report into docs/ (for docs/history.md)
report-screenshot: release
	$(TEST_PYTHON) Tests/Report/check_report.py $(RELEASE_BIN) docs/report-cadence-ladder.png

## test-web: the web page (docs/web-page.md) in headless Chromium at phone size: the live view
## against /api/state, pause, resume, next and finish from the page; the start page, history
## and reports of `serve`; the token, cookie, Origin and Host rules; 20 WebSocket clients
test-web: release
	$(TEST_PYTHON) Tests/Web/check_web.py $(RELEASE_BIN)

## web-screenshot: the live page at phone size mid-session into docs/ (for the README)
web-screenshot: release
	$(TEST_PYTHON) Tests/Web/check_web.py $(RELEASE_BIN) docs/web-live.png

## e2e: the real-stack test: the live path against bluetoothd and Linux's Bluetooth stack in a
## QEMU VM, with virtual devices (Tests/E2E; two VMs side by side, about 7 minutes; see docs/dev/real-stack-test.md)
e2e: release
	INTERVALPRO_E2E_BINARY=$(RELEASE_BIN) Tests/E2E/run.sh

## bench: parser throughput, a 70-minute replay, and the history figures (not pass/fail)
bench:
	Benchmarks/run.sh
	Benchmarks/history.sh

## bench-startup: commands that serve nothing (--version, decode, plan check, history), stripped as
## packaged, against `bluetoothctl --version` pair by pair in one run
bench-startup:
	Benchmarks/startup.sh

## bench-history: saving a session per sample, `history` over 1,000 sessions, FIT export of an hour
bench-history:
	Benchmarks/history.sh

## bench-import: `history import` of 1,000 activities of 45 minutes (FIT, gzipped TCX, GPX), then
## again (all duplicates), beside Python's FIT SDK, gpxpy and tcxreader reading the same files
bench-import: deps-test
	TEST_PYTHON=$(TEST_PYTHON) Benchmarks/import.sh

## bench-ant: ANT+ through a stick (a fake one on a pseudo-terminal), side by side with openant:
## CPU per message, wake-ups and peak RSS (about 3 minutes)
bench-ant: deps-test release
	$(TEST_PYTHON) Benchmarks/ant.py $(RELEASE_BIN) $(TEST_PYTHON) 50
	$(TEST_PYTHON) Benchmarks/ant.py $(RELEASE_BIN) $(TEST_PYTHON) 4

## bench-ant-usb: ANT+ through libusb on the real-stack suite's virtual USB stick, side by side
## with openant's USB driver and a C floor (blocking reads only) in the same VM: CPU per message,
## wake-ups, peak RSS (about 5 minutes)
bench-ant-usb: deps-test release
	mkdir -p .build/bench-ant-usb && cp $(RELEASE_BIN) .build/bench-ant-usb/intervalpro && strip .build/bench-ant-usb/intervalpro
	cc -O2 -o .build/bench-ant-usb/ant_floor Benchmarks/ant_floor.c $$(pkg-config --cflags --libs libusb-1.0)
	INTERVALPRO_E2E_BINARY=.build/bench-ant-usb/intervalpro Tests/E2E/run.sh ant-usb-bench

## symbol-order: list again the functions a live session runs (packaging/symbol-order.txt), from
## two live runs of 130 s on the fake org.bluez under callgrind (needs valgrind; about 6 minutes)
# The release build as valgrind can read it: no packed relative relocations, in a folder of its own.
PROFILED_FLAGS = $(subst -Xlinker -z -Xlinker pack-relative-relocs,,$(RELEASE_FLAGS)) --scratch-path .build/symbol-order
symbol-order: deps-test
	$(SWIFT) build $(PROFILED_FLAGS) --product intervalpro
	objcopy --strip-debug "$$($(SWIFT) build $(PROFILED_FLAGS) --show-bin-path)/intervalpro" \
		.build/symbol-order/intervalpro-profiled
	/usr/bin/python3 packaging/symbol_order.py .build/symbol-order/intervalpro-profiled

## bench-live: live sensors against the fake org.bluez, side by side with bleak: CPU per
## notification (AcquireNotify, StartNotify, bleak), a 60 s run's CPU, RSS, wake-ups and latency
bench-live: deps-test release
	/usr/bin/python3 Benchmarks/live.py $(RELEASE_BIN) $(TEST_PYTHON)

## bench-web: 20 WebSocket clients on the web page for 60 s of a real-time session, and none:
## missed states, the server's CPU, peak and end RSS, and wake-ups
bench-web: deps-test release
	$(TEST_PYTHON) Benchmarks/web.py $(RELEASE_BIN)

## bench-audio: render cost per second of audio, speech synthesis, a 45-minute render-audio
bench-audio:
	Benchmarks/audio.sh

## fuzz: libFuzzer on each target in Fuzz/Targets (parsers, plans, recordings, workouts, activities,
## HRV, zip and gzip, CSV: Fuzz/README.md), RUNS per target
RUNS ?= 1000000
fuzz:
	Fuzz/run.sh $(RUNS)

## clean: removes the build folders (.build, .build-*)
clean:
	rm -rf .build .build-*
