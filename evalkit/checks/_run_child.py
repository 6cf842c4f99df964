"""The child process of the `runs` check: run a generated `main` on given inputs, under limits.

Started by `evalkit.checks.runs` as `python -I -B -X utf8 <this file>` with an empty environment,
in an empty temporary folder. Reads one JSON request on stdin ({"code", "calls": [{"input",
"kwargs"}], "timeout", "memory_mb", "token"}) and writes one line to stdout: the token, then a JSON
list with one {"output"} or {"error"} per call, each with "printed" (what main wrote to stdout).

Stdlib only, nothing from evalkit: the child starts in ~20 ms and holds none of evalkit's state.
What is enforced here is best effort without root: the audit hook below is not a sandbox (Python's
docs say so); native code (ctypes is refused, but an installed C extension is not) can get past it.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import resource
import signal
import sys
from typing import Any

MAX_OUTPUT_CHARS = 100_000
MAX_PRINTED_CHARS = 200

# Audit events refused once the generated code may run: the network, new processes, signals to
# other processes (the parent is one), native code, and changes to the file system.
_REFUSED_EVENTS = frozenset(
    {
        "socket.__new__",
        "socket.connect",
        "socket.bind",
        "socket.sendto",
        "socket.sendmsg",
        "socket.getaddrinfo",
        "socket.gethostbyname",
        "socket.gethostbyaddr",
        "socket.getnameinfo",
        "subprocess.Popen",
        "os.system",
        "os.exec",
        "os.posix_spawn",
        "os.spawn",
        "os.fork",
        "os.forkpty",
        "os.kill",
        "os.killpg",
        "signal.pthread_kill",
        "ctypes.dlopen",
        "ctypes.dlsym",
        "ctypes.cdata",
        "ctypes.addressof",
        "os.remove",
        "os.rename",
        "os.rmdir",
        "os.mkdir",
        "os.chmod",
        "os.chown",
        "os.truncate",
        "os.symlink",
        "os.link",
        "shutil.rmtree",
        "os.putenv",
        "os.unsetenv",
    }
)
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC


class TimeLimit(BaseException):
    """Raised in main when its call overruns (a BaseException, so `except Exception` keeps it)."""


def _refuse(event: str, args: tuple[Any, ...]) -> None:
    if event in _REFUSED_EVENTS:
        raise PermissionError(f"not allowed in evalkit's `runs` check: {event}")
    if event == "open" and len(args) >= 3:
        mode, flags = args[1], args[2]
        writes = any(c in mode for c in "wax+") if isinstance(mode, str) else bool((flags or 0) & _WRITE_FLAGS)
        if writes:
            raise PermissionError(f"not allowed in evalkit's `runs` check: writing {args[0]!r}")


def _limit(memory_mb: int, cpu_seconds: float) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (memory_mb * 2**20,) * 2)
    cpu = math.ceil(cpu_seconds) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    # No new processes for an unprivileged user (root ignores RLIMIT_NPROC; the audit hook still refuses).
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))


def _on_alarm(signum: int, frame: object) -> None:
    raise TimeLimit()


def _call(fn: object, call: dict[str, Any], timeout: float, what: str = "main") -> dict[str, Any]:
    printed = io.StringIO()
    result: dict[str, Any]
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        with contextlib.redirect_stdout(printed):
            value = fn(call["input"], **call.get("kwargs", {}))  # type: ignore[operator]  # `fn` is the generated code's `main`, looked up by name
        if not isinstance(value, str):
            result = {"error": f"{what} returned {type(value).__name__}, not str"}
        elif len(value) > MAX_OUTPUT_CHARS:
            result = {"error": f"{what} returned {len(value)} characters (more than {MAX_OUTPUT_CHARS})"}
        else:
            result = {"output": value}
    except TimeLimit:
        result = {"error": f"{what} took over {timeout:g} s"}
    except MemoryError:
        result = {"error": f"{what} ran out of memory (over the memory limit)"}
    except BaseException as exc:  # the generated code's own exception, SystemExit included
        result = {"error": f"{what} raised {type(exc).__name__}: {str(exc)[:300]}"}
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    result["printed"] = printed.getvalue()[:MAX_PRINTED_CHARS]
    return result


def run(request: dict[str, Any]) -> list[dict[str, Any]]:
    calls, timeout = request["calls"], float(request["timeout"])
    _limit(int(request["memory_mb"]), timeout * (len(calls) + 1))
    signal.signal(signal.SIGALRM, _on_alarm)
    sys.addaudithook(_refuse)  # from here on, for good: an audit hook cannot be removed
    namespace: dict[str, Any] = {"__name__": "generated", "__builtins__": __builtins__}

    def load(_input: str) -> str:
        exec(compile(request["code"], "<generated>", "exec"), namespace)
        return ""

    loaded = _call(load, {"input": ""}, timeout, what="loading the code")
    if "error" in loaded:
        return [loaded] * len(calls)
    fn = namespace.get("main")
    if not callable(fn):
        return [{"error": "the code defines no callable `main`", "printed": ""}] * len(calls)
    return [_call(fn, call, timeout) for call in calls]


if __name__ == "__main__":
    out = sys.stdout  # kept before the generated code can replace sys.stdout
    request = json.loads(sys.stdin.read())
    results = run(request)
    out.write("\n" + request["token"] + json.dumps(results) + "\n")
    out.flush()
