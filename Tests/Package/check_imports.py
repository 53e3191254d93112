#!/usr/bin/env python3
"""Package.swift says exactly what each target imports.

For every Swift target (sources, executables, tests), compares the dependencies the manifest
declares (`swift package dump-package`) with the modules its files import. A module imported
but not declared compiles only because some other dependency brings it in, so the graph in
Package.swift is not the graph of the code; a dependency declared but never imported links
and builds for nothing. Both are reported, with the files that import. The toolchain's own
modules (Foundation, Glibc, Testing, ...) are not dependencies and are left out; a test target
may depend on an executable it runs without importing it.

Usage: Tests/Package/check_imports.py [--swift SWIFT]
Prints one line per target checked and a closing `imports: N passed, M failed`; exits 1 on
any mismatch.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Modules of the toolchain and the system: imported freely, never declared.
TOOLCHAIN = {
    "Foundation", "FoundationEssentials", "FoundationNetworking", "FoundationXML", "CoreFoundation",
    "Glibc", "Musl", "Darwin", "Android", "Dispatch", "Synchronization", "Observation", "RegexBuilder",
    "Testing", "XCTest", "_Concurrency", "_StringProcessing", "Swift", "SwiftShims", "os",
}

IMPORT = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?import\s+"
    r"(?:(?:struct|class|enum|func|protocol|typealias|var|let)\s+)?([A-Za-z_][A-Za-z0-9_]*)")


def dump_package(swift):
    # A scratch folder of its own: .build's lock, held by a build running beside this check
    # in `make test`, would make it wait for that build.
    with tempfile.TemporaryDirectory() as scratch:
        result = subprocess.run(
            [swift, "package", "--scratch-path", scratch, "dump-package"], cwd=ROOT, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"check_imports: swift package dump-package failed: {result.stderr.strip()[-500:]}")
    return json.loads(result.stdout)


def declared(target):
    """The module names a target declares it depends on."""
    names = set()
    for dependency in target.get("dependencies", []):
        for kind in ("byName", "target", "product"):
            if kind in dependency:
                names.add(dependency[kind][0])
    return names


def source_folder(target):
    if target.get("path"):
        return os.path.join(ROOT, target["path"])
    base = "Tests" if target["type"] == "test" else "Sources"
    return os.path.join(ROOT, base, target["name"])


def imports(folder):
    """Module → the files (relative to the root) that import it."""
    found = {}
    for directory, _, files in os.walk(folder):
        for name in sorted(files):
            if not name.endswith(".swift"):
                continue
            path = os.path.join(directory, name)
            with open(path, encoding="utf-8") as handle:
                for line in handle:
                    match = IMPORT.match(line)
                    if match:
                        found.setdefault(match.group(1), set()).add(os.path.relpath(path, ROOT))
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--swift", default=os.environ.get("SWIFT", "swift"))
    options = parser.parse_args()
    package = dump_package(options.swift)
    passed = failed = 0
    executables = {target["name"] for target in package["targets"] if target["type"] == "executable"}
    for target in package["targets"]:
        if target["type"] not in ("regular", "executable", "test"):
            continue  # system libraries and plugins: nothing Swift to compare
        folder = source_folder(target)
        imported = imports(folder)
        if not imported and not os.path.isdir(folder):
            print(f"FAIL {target['name']}: no sources at {os.path.relpath(folder, ROOT)}")
            failed += 1
            continue
        wanted = set(imported) - TOOLCHAIN - {target["name"]}
        have = declared(target)
        if target["type"] == "test":
            # A test target may depend on an executable it runs, so that it is built first.
            have -= executables - wanted
        undeclared = sorted(wanted - have)
        unused = sorted(have - wanted)
        if not undeclared and not unused:
            print(f"ok: {target['name']} declares exactly the {len(have)} modules it imports")
            passed += 1
            continue
        failed += 1
        for module in undeclared:
            files = ", ".join(sorted(imported[module])[:3])
            print(f"FAIL {target['name']}: imports {module} without declaring it ({files})")
        for module in unused:
            print(f"FAIL {target['name']}: declares {module} but no file imports it")
    print(f"imports: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
