"""Runs the end-to-end scenarios in a few VMs booted side by side (lanes), each taking the
next scenario as it finishes one. Called by Tests/E2E/run.sh, which sets up the cache and
builds the binary first; see docs/dev/real-stack-test.md."""

from __future__ import annotations

import argparse
import asyncio
import shlex
import shutil
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

    # Most of a scenario is waiting on Bluetooth and on the client's own durations, not the
    # processor: lanes run side by side. A benchmark runs alone, so its figures are its own.
    lanes = 1 if any(s in BENCHMARKS for s in selected) else max(1, min(arguments.lanes, len(selected)))
    socket_dir = tempfile.mkdtemp(prefix="intervalpro-e2e-")  # short: unix socket paths are limited
    airs = [VirtualAir() for _ in range(lanes)]
    vms = [GuestVM(Path(arguments.cache), results, f"{socket_dir}/hci-{lane + 1}.sock", Path(arguments.project),
                   name=f"guest-{lane + 1}") for lane in range(lanes)]
    for air, vm in zip(airs, vms):
        await air.open(vm.hci_socket)
    outcomes: dict[str, str] = {}
    waiting = list(selected)
    # A scenario that fails is run once more, after the others, and its line says so with the
    # first try's reason; its first try's folder is kept beside it (NAME-first-try). A loaded
    # 2-core host under TCG gets bluetoothd's timings wrong now and then; the one failure seen
    # often (a connection bluetoothd never signalled) is the client's to survive and now is
    # (docs/dev/real-stack-test.md).
    first_tries: dict[str, str] = {}

    async def lane(vm: GuestVM, air: VirtualAir) -> None:
        """Runs the next waiting scenario in this VM until none is left."""
        while waiting:
            name, scenario = waiting.pop(0)
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
            again = verdict == "FAIL" and name not in first_tries and not detail.startswith("harness error")
            line = f"{'RETRY' if again else verdict}  {name:<20} {seconds:6.1f} s  {vm.name}" + (f"  {detail}" if detail else "")
            if again:
                line += "  (runs once more after the others)"
            elif name in first_tries:
                line += f"  (second try; the first failed: {first_tries[name]})"
            (folder / "result.txt").write_text(line + "\n")
            print(line, flush=True)
            if again:
                first_tries[name] = detail
                folder.rename(results / f"{name}-first-try")
                waiting.append((name, scenario))
                continue
            outcomes[name] = line

    try:
        try:
            vms[0].initramfs()  # once, before the VMs boot side by side and read it
            boots = await asyncio.gather(*(vm.boot() for vm in vms))
        except GuestError as error:
            print(f"e2e: {error}", file=sys.stderr)
            return 1
        print(f"e2e: {lanes} VM{'s' if lanes > 1 else ''} up, bluetoothd ready in "
              f"{' and '.join(f'{boot:.1f} s' for boot in boots)} (guest uptime "
              f"{' and '.join(f'{vm.ready_uptime:.1f} s' for vm in vms)}); results in {results}", flush=True)
        # The first command in a new guest reads the binary (some 70 MB) over the 9p share; under
        # TCG on a slow host that took seconds of the first scenario's own time. Read it once first.
        warm = " ".join(shlex.quote(a) for a in client)

        async def warm_up(vm: GuestVM) -> None:
            try:
                await vm.run(f"cat {shlex.quote(arguments.binary)} >/dev/null; {warm} --version >/dev/null",
                             timeout=600, name="warm-up")
            except GuestError as error:
                print(f"e2e: {vm.name}: warm-up: {error}", flush=True)

        await asyncio.gather(*(warm_up(vm) for vm in vms))
        await asyncio.gather(*(lane(vm, air) for vm, air in zip(vms, airs)))
    finally:
        await asyncio.gather(*(vm.shutdown() for vm in vms))
        for air in airs:
            await air.close()
        shutil.rmtree(socket_dir, ignore_errors=True)
    lines = [outcomes[name] for name, _ in selected if name in outcomes]
    failures = sum(line.startswith("FAIL") for line in lines)
    wall = time.monotonic() - started
    summary = (f"e2e: {len(lines)} scenarios, {failures} failed"
               + (f" ({len(first_tries)} tried twice: {', '.join(first_tries)})" if first_tries else "")
               + f", suite wall time {wall:.1f} s")
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
    parser.add_argument("--lanes", type=int, default=2, help="VMs booted side by side, each running scenarios in turn")
    return asyncio.run(run_suite(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
