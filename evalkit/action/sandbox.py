"""User code (targets, checks, plugins) runs in a worker process that holds no secret.

The entrypoint (the parent) keeps the API key (or the federated access token and the runner's
OIDC request token, see evalkit/action/credential.py) and the GitHub token. It starts the worker
(`python -m evalkit.action.worker`, the same engine: `run_and_save`) with an allow-listed
environment, and a loopback proxy (evalkit/action/proxy.py) adds the key to the worker's
model requests. So the key, the token and the runner's `ACTIONS_*` tokens are in neither the
worker's `os.environ` nor its `/proc/self/environ` nor its memory. The parent also wipes them
from its own initial environment block (what `/proc/<parent>/environ` shows) and marks
itself non-dumpable, and starts the worker (and the `install`) without CAP_SYS_PTRACE, so
neither they nor anything they start can read its memory (/proc/<pid>/mem), even as root.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from evalkit._runtime.out_of_reach import mark_non_dumpable, wipe_initial_environ, without_ptrace
from evalkit.action.credential import ApiKey, Credential
from evalkit.action.output_relay import OutputRelay, stream_process
from evalkit.action.proxy import KeyProxy
from evalkit.action.redact import MIN_SECRET_CHARS, allowed_environment
from evalkit.errors import EvalkitError, Problem, SuiteError, UsageError
from evalkit.exit_codes import WorkerExit

SEAL_FD_VARIABLE = "EVALKIT_SEAL_FD"  # the descriptor the worker reads the cache's seal key from


class Unfinished(EvalkitError):
    """The evals started but did not finish: the worker ended without its answer (user code ended
    it, a signal, an error of evalkit's), or without the results. `internal`: evalkit's own fault."""

    def __init__(self, message: str, *, internal: bool = False):
        super().__init__(message)
        self.internal = internal


def harden_process(secrets: Sequence[str], secret_names: Sequence[str]) -> None:
    """Remove the secrets from this process's environment, its initial environment block and
    its readable memory (best effort; Linux only)."""
    for name in secret_names:
        os.environ.pop(name, None)
    wipe_initial_environ(secrets)
    mark_non_dumpable()


def unprivileged(argv: list[str]) -> list[str]:
    """`argv` (an absolute program path first) started without CAP_SYS_PTRACE, which nothing it
    starts can get back (evalkit/_runtime/unprivileged.py): with the entrypoint non-dumpable, none of
    them can read its memory, even as root."""
    return without_ptrace(argv)


def worker_environment(
    env: Mapping[str, str], secrets: Sequence[str], proxy_url: str = "", placeholder: str = ""
) -> dict[str, str]:
    """The worker's whole environment: the allow-list, no value that is or holds a secret, and the
    proxy standing in for the API (base URL and a placeholder key) when there is one."""
    kept = [s for s in secrets if len(s) >= MIN_SECRET_CHARS]
    out = {k: v for k, v in allowed_environment(env).items() if not any(s in v for s in kept)}
    if proxy_url:
        out["ANTHROPIC_BASE_URL"] = proxy_url
        out["ANTHROPIC_API_KEY"] = placeholder
    return out


def run_worker(
    job: dict[str, Any],
    *,
    env: Mapping[str, str],
    secrets: Sequence[str],
    credential: Credential | str | None,
    python: str | None = None,
    cwd: Path | None = None,
) -> dict[str, Any]:
    """Run one job in a fresh worker and return its answer; its output goes to the log as it comes
    (redacted, commands disabled, capped; only its tail is kept). `credential` (an API key, or a
    federated token) stays here: the worker reaches the API through the proxy. Raises SuiteError for suite problems, EvalkitError if the worker fails."""
    upstream = env.get("ANTHROPIC_BASE_URL") or None
    held = ApiKey(credential) if isinstance(credential, str) and credential else credential or None
    if held is not None:  # the worker's key works on the Messages API only: the lifecycle is asked here
        job = {**job, "lifecycle": model_lifecycle(held, upstream, job.get("cache_dir"))}
    with (
        tempfile.TemporaryDirectory(prefix="evalkit-worker-") as tmp,
        (
            KeyProxy(held, upstream, batch=bool(job.get("options", {}).get("batch")))
            if held is not None
            else _NoProxy()
        ) as proxy,
    ):
        job_file, answer_file = Path(tmp) / "job.json", Path(tmp) / "answer.json"
        job_file.write_text(json.dumps({**job, "answer": str(answer_file)}), encoding="utf-8")
        os.chmod(tmp, 0o755)  # the worker may run as the same user only; keep it readable
        worker_env = worker_environment(env, secrets, proxy.url, proxy.placeholder)
        seal_read, seal_write = os.pipe()  # the cache's seal key, read once by the worker (never a file)
        try:
            os.write(seal_write, held.seal().hex().encode("ascii") if held is not None else b"")
            os.close(seal_write)
            worker_env[SEAL_FD_VARIABLE] = str(seal_read)
            # What the worker prints goes to the log as it comes (redacted, in whole lines); only its
            # tail is kept, for the message of a worker that fails (evalkit/action/output_relay.py).
            relay = OutputRelay(f"evalkit: output of the {job['kind']} worker", secrets)
            returncode = stream_process(
                unprivileged([python or sys.executable, "-m", "evalkit.action.worker", str(job_file)]),
                relay,
                env=worker_env,
                cwd=cwd,
                pass_fds=(seal_read,),
            )
        finally:
            os.close(seal_read)
        answer = json.loads(answer_file.read_text(encoding="utf-8")) if answer_file.is_file() else {}
    if returncode == WorkerExit.SUITE_ERROR and "problems" in answer:
        raise _suite_error(answer)
    if returncode == WorkerExit.USAGE_ERROR and "usage_error" in answer:
        raise UsageError(answer["usage_error"])
    if returncode == WorkerExit.DONE and answer.get("done"):
        return answer
    # The job did not finish: say why, and whose fault it is.
    if "refused" in answer:
        raise Unfinished(str(answer["refused"]), internal=True)
    if "internal_error" in answer:
        raise Unfinished(f"an internal error of evalkit in its worker: {answer['internal_error'][:500]}", internal=True)
    if "error" in answer:
        raise Unfinished(str(answer["error"]))
    printed = relay.tail.strip()
    last = printed.splitlines()[-1] if printed else "no output"
    if returncode == WorkerExit.DONE:  # exit 0 without an answer: os._exit(0) or the like in user code
        raise Unfinished(
            f"the evalkit worker ({job['kind']}) ended with exit status 0 without finishing "
            f"(user code that ends its process, such as os._exit(0)?); its last output: {last[:500]}"
        )
    how = f"was killed by {_signal_name(-returncode)}" if returncode < 0 else f"failed (exit {returncode})"
    raise Unfinished(f"the evalkit worker ({job['kind']}) {how}: {last[:500]}")


def _signal_name(number: int) -> str:
    import signal

    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def model_lifecycle(credential: Credential, upstream: str | None, cache_dir: str | None) -> dict[str, str]:
    """Model id to end-of-life date, from the API with the real credential (kept a day), else evalkit's table."""
    from evalkit.llm.cache import default_cache_dir
    from evalkit.llm.model_lifecycle import LifecycleTable

    def fetch() -> dict[str, dict[str, Any]]:
        from evalkit.llm.providers.anthropic import fetch_lifecycles  # anthropic loads only here

        return fetch_lifecycles(base_url=upstream, **credential.sdk_options())

    return LifecycleTable(Path(cache_dir) if cache_dir else default_cache_dir(), fetch).end_of_life()


def _suite_error(answer: dict[str, Any]) -> SuiteError:
    problems = [Problem(p["message"], p.get("file"), p.get("line"), p.get("case_id")) for p in answer["problems"]]
    error = SuiteError(answer.get("path") or "suite files", problems)
    error.args = (answer.get("text") or str(error),)
    return error


class _NoProxy:
    url = ""
    placeholder = ""

    def __enter__(self) -> _NoProxy:
        return self

    def __exit__(self, *exc: object) -> None:
        pass
