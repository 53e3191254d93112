"""Runs the end-to-end scenarios in one VM boot. Called by Tests/E2E/run.sh, which sets up
the cache and builds the binary first; see docs/dev/real-stack-test.md."""

from __future__ import annotations

import argparse
import asyncio
import shlex
import sys
import tempfile
import time
import traceback
from pathlib import Path

from scenarios import BENCHMARKS, SCENARIOS, Context, Failed
from virtual_devices import VirtualAir
from vm import GuestError, GuestVM


async def run_suite(arguments: argparse.Namespace) -> int:
    started = time.monotonic()
    results = Path(arguments.results)
    results.mkdir(parents=True, exist_ok=True)
    standin = arguments.client == "standin"
    if standin:
        client = [sys.executable, str(Path(__file__).parent / "standin_client.py"), "--intervalpro", arguments.binary]
    else:
        client = [arguments.binary]
    # Benchmarks run only when named.
    selected = [s for s in SCENARIOS + BENCHMARKS if s[0] in arguments.only] if arguments.only else SCENARIOS
    unknown = set(arguments.only or []) - {s[0] for s in SCENARIOS + BENCHMARKS}
    if unknown:
        print(f"e2e: no scenario named {', '.join(sorted(unknown))}; there are {', '.join(s[0] for s in SCENARIOS)}",
              file=sys.stderr)
        return 64

    socket_dir = tempfile.mkdtemp(prefix="intervalpro-e2e-")  # short: unix socket paths are limited
    air = VirtualAir()
    await air.open(f"{socket_dir}/hci.sock")
    vm = GuestVM(Path(arguments.cache), results, f"{socket_dir}/hci.sock", Path(arguments.project))
    lines: list[str] = []
    failures = 0
    try:
        try:
            boot = await vm.boot()
        except GuestError as error:
            print(f"e2e: {error}", file=sys.stderr)
            return 1
        print(f"e2e: VM up, bluetoothd ready in {boot:.1f} s (guest uptime {vm.ready_uptime:.1f} s); "
              f"results in {results}", flush=True)
        # The first command in a new guest reads the binary (some 70 MB) over the 9p share; under
        # TCG on a slow host that took seconds of the first scenario's own time. Read it once first.
        warm = " ".join(shlex.quote(a) for a in client)
        try:
            await vm.run(f"cat {shlex.quote(arguments.binary)} >/dev/null; {warm} --version >/dev/null", timeout=600,
                         name="warm-up")
        except GuestError as error:
            print(f"e2e: warm-up: {error}", flush=True)
        for name, scenario in selected:
            folder = results / name
            folder.mkdir(parents=True, exist_ok=True)
            context = Context(name, folder, vm, air, client, Path(arguments.binary), standin)
            begun = time.monotonic()
            try:
                await scenario(context)
                verdict, detail = "PASS", ""
            except Failed as error:
                verdict, detail = "FAIL", str(error)
            except GuestError as error:
                verdict, detail = "FAIL", f"guest: {error}"
            except Exception as error:  # a harness bug: say where, and go on with the next scenario
                verdict, detail = "FAIL", f"harness error: {error!r}"
                (folder / "harness-error.txt").write_text(traceback.format_exc())
            finally:
                await air.clear()
            seconds = time.monotonic() - begun
            failures += verdict == "FAIL"
            line = f"{verdict}  {name:<20} {seconds:6.1f} s" + (f"  {detail}" if detail else "")
            (folder / "result.txt").write_text(line + "\n")
            print(line, flush=True)
            lines.append(line)
    finally:
        await vm.shutdown()
        await air.close()
    wall = time.monotonic() - started
    summary = f"e2e: {len(lines)} scenarios, {failures} failed, suite wall time {wall:.1f} s"
    (results / "summary.txt").write_text("\n".join(lines + [summary]) + "\n")
    print(summary)
    return 1 if failures else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--project", required=True)
    parser.add_argument("--cache", required=True)
    parser.add_argument("--results", required=True)
    parser.add_argument("--binary", required=True, help="the intervalpro binary (also used for host-side replays)")
    parser.add_argument("--client", choices=["intervalpro", "standin"], default="intervalpro")
    parser.add_argument("--only", nargs="*", help="scenario names")
    return asyncio.run(run_suite(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
