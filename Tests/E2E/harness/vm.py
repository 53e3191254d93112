"""The end-to-end VM: Debian's stock kernel under QEMU (TCG), the host's own userspace as its
root filesystem, the real Bluetooth stack inside, booted once for the whole suite.

The guest runs vm/guest-agent.sh, which brings up hci0 (the host's virtual adapter on the
second serial port), D-Bus and bluetoothd, then runs the scripts the host drops into
RUN/NAME/requests one at a time (NAME is the VM's own folder: the suite may boot several).
RUN is shared read-write at the same path, so whatever a scenario writes under its folder in
RUN is on the host as soon as the request ends.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import subprocess
import time
from pathlib import Path

VM_DIR = Path(__file__).resolve().parent.parent / "vm"


class GuestError(RuntimeError):
    pass


class GuestVM:
    def __init__(self, cache: Path, run_dir: Path, hci_socket: str, project: Path, name: str = "guest"):
        self.cache = cache
        self.run_dir = run_dir
        self.hci_socket = hci_socket
        self.project = project
        self.name = name
        self.folder = run_dir / name
        self.requests = self.folder / "requests"
        self.console = self.folder / "console.log"
        # The third serial port: a newline written here wakes the guest's agent for a request.
        self.doorbell_socket = str(Path(hci_socket).with_suffix(".doorbell"))
        self.doorbell: asyncio.StreamWriter | None = None
        self.process: asyncio.subprocess.Process | None = None
        self.count = 0
        self.ready_uptime: float | None = None

    def kernel(self) -> tuple[Path, str]:
        images = sorted((self.cache / "kernel" / "boot").glob("vmlinuz-*"))
        if not images:
            raise GuestError(f"no kernel in {self.cache}/kernel: run Tests/E2E/setup.sh")
        return images[0], images[0].name.removeprefix("vmlinuz-")

    def initramfs(self) -> Path:
        """Builds the initramfs if it is missing or older than its inputs (else does nothing):
        called once before several VMs boot side by side, which then find it built."""
        _, version = self.kernel()
        initrd = self.cache / "build" / f"initramfs-{version}.cpio.gz"
        subprocess.run([str(VM_DIR / "build-initramfs.sh"), str(self.cache / "kernel"), str(initrd)], check=True)
        return initrd

    async def boot(self, timeout: float = 600) -> float:
        """Starts QEMU and waits until bluetoothd has hci0 powered. Returns the wall time.

        Under TCG a boot takes 15-20 s alone on the 2-core reference machine and 44 s beside
        two busy cores; it took 313-340 s while QEMU ran niced beside un-niced suites, which is
        why it is not niced. The limit leaves room for a host slower still."""
        started = time.monotonic()
        vmlinuz, _ = self.kernel()
        initrd = self.initramfs()
        self.requests.mkdir(parents=True, exist_ok=True)
        command_line = " ".join([
            "console=ttyS0", "quiet", "loglevel=1", "panic=-1",
            "cryptomgr.notests",  # saves about 2 s of crypto self-tests when bluetooth.ko loads
            f"e2e.init={VM_DIR / 'guest-init.sh'}", f"e2e.agent={VM_DIR / 'guest-agent.sh'}",
            f"e2e.kernel={self.cache / 'kernel'}", f"e2e.run={self.run_dir}", f"e2e.guest={self.name}",
        ])
        # /dev/kvm here can only run specially built guest kernels, so this is TCG. A modest
        # code cache keeps QEMU near 0.4 GB. Not niced: the VM's scenarios are the longest step
        # of `make test`, and a starved guest misses Bluetooth timings (a connection or a
        # service discovery late by seconds) that a runner's machine never would.
        accel = os.environ.get("INTERVALPRO_E2E_ACCEL", "tcg,thread=multi,tb-size=128")
        arguments = [
            "qemu-system-x86_64",
            "-nodefaults", "-no-user-config", "-machine", "pc", "-accel", accel, "-cpu", "max",
            "-smp", "2", "-m", "1024", "-display", "none", "-no-reboot",
            "-chardev", f"file,id=console,path={self.console}", "-serial", "chardev:console",
            "-chardev", f"socket,id=hci,path={self.hci_socket}", "-serial", "chardev:hci",
            "-chardev", f"socket,id=doorbell,path={self.doorbell_socket},server=on,wait=off",
            "-serial", "chardev:doorbell",
            "-kernel", str(vmlinuz), "-initrd", str(initrd), "-append", command_line,
            "-virtfs", "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap",
            "-virtfs", f"local,path={self.run_dir},mount_tag=e2erun,security_model=none,multidevs=remap",
            "-device", "virtio-rng-pci",
        ]
        self.process = await asyncio.create_subprocess_exec(
            *arguments, stdin=asyncio.subprocess.DEVNULL,
            stdout=open(self.folder / "qemu.log", "w"), stderr=asyncio.subprocess.STDOUT)
        ready = self.folder / "ready"
        failed = self.folder / "failed"
        while not ready.exists():
            if self.doorbell is None and Path(self.doorbell_socket).exists():
                _, self.doorbell = await asyncio.open_unix_connection(self.doorbell_socket)
            if failed.exists():
                raise GuestError(f"the guest's Bluetooth stack did not come up: {failed.read_text().strip()}"
                                 f" (see {self.console})")
            if self.process.returncode is not None:
                raise GuestError(f"QEMU exited with {self.process.returncode} (see {self.console})")
            if time.monotonic() - started > timeout:
                raise GuestError(f"the guest was not ready after {timeout:.0f} s (see {self.console})")
            await asyncio.sleep(0.1)
        self.ready_uptime = float(ready.read_text())
        return time.monotonic() - started

    async def run(self, script: str, timeout: float, name: str = "request") -> int:
        """Runs a bash script in the guest (in the project's folder, the host's PATH) and
        returns its exit status."""
        self.count += 1
        stem = f"{self.count:03d}-{name}"
        path = self.requests / f"{stem}.sh"
        debug = " E2E_BLUEZ_DEBUG=1" if os.environ.get("INTERVALPRO_E2E_BLUEZ_DEBUG") else ""
        preamble = (f"export PATH={shlex.quote(os.environ['PATH'])} HOME=/root LANG=C.UTF-8 NO_COLOR=1{debug}\n"
                    f"cd {shlex.quote(str(self.project))}\n")
        staging = self.requests / f".{stem}.tmp"
        staging.write_text(preamble + script + "\n")
        staging.rename(path)  # the agent only picks up whole scripts
        await self.ring()
        status_file = path.with_suffix(".rc")
        deadline = time.monotonic() + timeout
        while True:
            # The agent writes the status in place: a file without its newline is not done.
            status = status_file.read_text() if status_file.exists() else ""
            if status.endswith("\n"):
                return int(status)
            if self.process is None or self.process.returncode is not None:
                raise GuestError(f"the VM stopped while running {path.name} (see {self.console})")
            if time.monotonic() > deadline:
                raise GuestError(f"{path.name} did not finish within {timeout:.0f} s in the guest")
            await asyncio.sleep(0.05)

    async def ring(self) -> None:
        """Wakes the agent; should this fail, it still looks for requests once a second."""
        if self.doorbell is None:
            return
        try:
            self.doorbell.write(b"\n")
            await self.doorbell.drain()
        except (ConnectionError, OSError):
            self.doorbell = None

    async def shutdown(self, timeout: float = 20) -> None:
        if self.process is None:
            return
        (self.requests / "stop").touch()
        await self.ring()
        try:
            await asyncio.wait_for(self.process.wait(), timeout)
        except asyncio.TimeoutError:
            self.process.kill()
            await self.process.wait()
