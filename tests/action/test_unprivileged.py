"""The entrypoint makes itself non-dumpable and starts its worker without CAP_SYS_PTRACE: the
worker, and what it starts, cannot read the entrypoint's memory even as root. Shown both ways:
a root that keeps the capability reads it (so the probe can see a secret), the worker cannot."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from evalkit._runtime.unprivileged import CAP_SYS_PTRACE, capabilities

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="capabilities and /proc are Linux's")

# The child: scan its parent's readable memory for the secret, and say what it holds.
CHILD = textwrap.dedent("""
    import json, os, subprocess, sys
    secret = sys.argv[1].encode()
    found, error = False, None
    try:
        with open(f"/proc/{os.getppid()}/maps") as maps, open(f"/proc/{os.getppid()}/mem", "rb", 0) as mem:
            for line in maps:
                addr, perms = line.split()[:2]
                start, end = (int(x, 16) for x in addr.split("-"))
                if not perms.startswith("r") or end - start > 1 << 30:
                    continue
                try:
                    mem.seek(start)
                    found = found or secret in mem.read(end - start)
                except (OSError, ValueError, OverflowError):
                    continue
    except OSError as exc:
        error = exc.strerror
    status = {l.split(":")[0]: int(l.split()[1], 16) for l in open("/proc/self/status") if l.startswith("Cap")}
    grandchild = subprocess.run([sys.executable, "-c", "print([l for l in open('/proc/self/status') "
                                 "if l.startswith('CapEff')][0].split()[1])"], capture_output=True, text=True)
    print(json.dumps({"found": found, "error": error, "caps": status,
                      "grandchild_eff": int(grandchild.stdout, 16)}))
""")

# The parent: a secret in its memory, hardened as the entrypoint hardens itself, then both children.
PARENT = textwrap.dedent("""
    import ctypes, json, subprocess, sys
    from evalkit.action.sandbox import harden_process, unprivileged
    secret = "evalkit-" + "memory-probe-" + "7Qz1"  # built at run time: not a constant of a file
    held = (secret * 3).encode()
    harden_process([], [])
    dumpable = ctypes.CDLL(None).prctl(3, 0, 0, 0, 0)  # PR_GET_DUMPABLE
    child = [sys.executable, "-c", sys.argv[1], secret]
    plain = subprocess.run(child, capture_output=True, text=True, check=True).stdout
    worker = subprocess.run(unprivileged(child), capture_output=True, text=True, check=True).stdout
    print(json.dumps({"dumpable": dumpable, "plain": json.loads(plain), "worker": json.loads(worker)}))
""")


def _has(caps: int) -> bool:
    return bool(caps >> CAP_SYS_PTRACE & 1)


def test_the_worker_cannot_read_the_non_dumpable_entrypoints_memory_a_root_with_ptrace_can():
    if not _has(capabilities()["CapEff"]):
        pytest.skip("this user has no CAP_SYS_PTRACE: the control (a process that can read the memory) cannot be shown")
    done = subprocess.run([sys.executable, "-c", PARENT, CHILD], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["dumpable"] == 0
    # The control: a root that keeps CAP_SYS_PTRACE reads the non-dumpable parent's secret.
    assert seen["plain"]["found"] and seen["plain"]["error"] is None and _has(seen["plain"]["caps"]["CapEff"])
    # The worker: no CAP_SYS_PTRACE in any set, nor in what it starts; the parent's memory is closed.
    worker = seen["worker"]
    assert not worker["found"] and worker["error"] == "Permission denied", worker
    assert not any(_has(worker["caps"][name]) for name in ("CapEff", "CapPrm", "CapInh", "CapBnd", "CapAmb"))
    assert not _has(worker["grandchild_eff"])
    assert worker["caps"]["CapEff"] != 0  # only that capability went: the worker is otherwise as before
