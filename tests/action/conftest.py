"""Build the action's Docker image for real, with buildah, and run commands in it.

There is no Docker engine on the CI machines, but buildah builds a Dockerfile and
runs containers with chroot isolation. The official python base image cannot be
pulled either, so a local base is made with debootstrap (cached between runs) and
substituted through the Dockerfile's BASE_IMAGE build arg.

Fixtures for tests:
  run_in_image(args, env=None, workdir_mount=None) -> CompletedProcess
      runs one command in a container of the image (shared per session; fresh=True for a new one).
  run_action(workspace, inputs=None, env=None, event=None, event_name=...) -> ActionRun
      runs the image's ENTRYPOINT the way GitHub's runner does (INPUT_* variables
      with action.yml defaults, /github/* mounts, GITHUB_OUTPUT parsed back).

Without root, buildah or debootstrap the image tests skip with the reason; with
EVALKIT_REQUIRE_IMAGE_TESTS=1 (set by .ci/run) they fail instead, so CI cannot
pass by skipping them.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
IMAGE_TAG = "localhost/evalkit-action:test"
BASE_REPO = "localhost/evalkit-test-base"
WORKSPACE = "/github/workspace"
CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"

# The debootstrap command is the cache key of the base image: change it and a new
# base is made; keep it and every run on this machine reuses the tarball.
DEBOOTSTRAP_ARGS = (
    "--variant=minbase",
    "--include=python3,python3-venv,python3-pip,git,ca-certificates",
    "bookworm",
)

# pip settings the build receives as build args (see the Dockerfile).
_PIP_BUILD_ARGS = ("index-url", "extra-index-url", "find-links", "cert")

_timings: dict[str, str] = {}


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "docker_image: builds the action's image with buildah and runs it "
        "(slow the first time; needs root, buildah and debootstrap)",
    )


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:  # noqa: ARG001
    if _timings:
        terminalreporter.write_sep("-", "evalkit action image")
        for step, text in _timings.items():
            terminalreporter.write_line(f"{step}: {text}")


def cache_dir() -> Path:
    """Where the base tarball and buildah's storage live between runs."""
    configured = os.environ.get("EVALKIT_IMAGE_CACHE")
    if configured:
        return Path(configured)
    system = Path("/var/cache/evalkit-ci")
    with contextlib.suppress(OSError):
        system.mkdir(parents=True, exist_ok=True)
    if os.access(system, os.W_OK):
        return system
    return Path.home() / ".cache" / "evalkit-ci"


def _unavailable(reason: str) -> None:
    if os.environ.get("EVALKIT_REQUIRE_IMAGE_TESTS") == "1":
        pytest.fail(f"image tests are required here (EVALKIT_REQUIRE_IMAGE_TESTS=1) but {reason}")
    pytest.skip(f"action image not built: {reason}")


def _check_prerequisites() -> None:
    if sys.platform != "linux":
        _unavailable("buildah with chroot isolation needs Linux")
    if os.geteuid() != 0:
        _unavailable("building with buildah --isolation chroot needs root")
    missing = [tool for tool in ("buildah", "debootstrap", "tar") if shutil.which(tool) is None]
    if missing:
        _unavailable(f"{', '.join(missing)} not installed (apt-get install -y buildah debootstrap)")


def _run(cmd: Sequence[str], *, timeout: float = 1800, **kwargs) -> subprocess.CompletedProcess:
    """Run a setup command; on failure raise with its output, which says what broke."""
    proc = subprocess.run(list(cmd), capture_output=True, text=True, timeout=timeout, check=False, **kwargs)
    if proc.returncode != 0:
        raise RuntimeError(
            f"command failed with exit code {proc.returncode}: {' '.join(cmd)}\n"
            f"--- stdout (tail) ---\n{proc.stdout[-4000:]}\n"
            f"--- stderr (tail) ---\n{proc.stderr[-4000:]}"
        )
    return proc


class Buildah:
    """buildah with its own vfs store under the cache dir (no daemon, no overlay)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.base = [
            "buildah",
            "--root",
            str(root / "storage"),
            "--runroot",
            str(root / "run"),
            "--storage-driver",
            "vfs",
        ]

    def __call__(self, *args: str, timeout: float = 1800) -> subprocess.CompletedProcess:
        return _run([*self.base, *args], timeout=timeout)

    def image_exists(self, name: str) -> bool:
        proc = subprocess.run([*self.base, "images", "--quiet", name], capture_output=True, text=True, check=False)
        return proc.returncode == 0 and bool(proc.stdout.strip())


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Serialise concurrent sessions (two pytest runs) on one cache dir."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _base_key() -> str:
    return hashlib.sha256(" ".join(["debootstrap", *DEBOOTSTRAP_ARGS]).encode()).hexdigest()[:16]


def _base_tarball(cache: Path, key: str) -> Path:
    tarball = cache / f"base-{key}.tar"
    if tarball.exists():
        _timings["debootstrap base"] = f"reused {tarball}"
        return tarball
    work = Path(tempfile.mkdtemp(prefix="debootstrap-", dir=cache))
    try:
        rootfs = work / "rootfs"
        started = time.monotonic()
        _run(["debootstrap", *DEBOOTSTRAP_ARGS, str(rootfs)])
        partial = work / "base.tar"
        _run(["tar", "-C", str(rootfs), "-cf", str(partial), "."])
        partial.rename(tarball)  # atomic: a killed run never leaves half a tarball
        _timings["debootstrap base"] = f"{time.monotonic() - started:.1f}s -> {tarball}"
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return tarball


def _pip_config() -> dict[str, str]:
    """The host pip's effective settings (config files, then PIP_* variables)."""
    settings: dict[str, str] = {}
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "config", "list"],
        capture_output=True,
        text=True,
        check=False,
    )
    for line in proc.stdout.splitlines():
        name, sep, value = line.partition("=")
        if not sep:
            continue
        section, _, option = name.rpartition(".")
        if section in {"global", "install", ":env:"}:
            settings[option] = value.strip().strip("'\"")
    for option in _PIP_BUILD_ARGS:
        env_value = os.environ.get("PIP_" + option.upper().replace("-", "_"))
        if env_value:
            settings[option] = env_value
    return settings


def _local_path(location: str) -> Path | None:
    if location.startswith("file://"):
        return Path(location[len("file://") :])
    if "://" not in location:
        return Path(location)
    return None


def pip_build_options() -> list[str]:
    """Build args and read-only mounts that give pip in the build the host's index setup.

    Remote indexes pass through unchanged; local ones (file:// indexes, find-links
    directories, the CA file) are bind-mounted at the same path. Local entries that do
    not exist are dropped, as pip itself ignores them.
    """
    settings = _pip_config()
    options: list[str] = []
    mounts: set[str] = set()
    for option in _PIP_BUILD_ARGS:
        value = settings.get(option, "")
        kept = []
        for item in value.split():
            local = _local_path(item)
            if local is not None:
                if not local.exists():
                    continue
                # A file:// index's pages link to files beside it (root/simple/x/ ->
                # ../../files/...), so mount the repository root, not only simple/.
                is_index = option.endswith("index-url") and local.name == "simple"
                mounts.add(str(local.parent if is_index else local))
            kept.append(item)
        if kept:
            arg = "PIP_" + option.upper().replace("-", "_")
            options += ["--build-arg", f"{arg}={' '.join(kept)}"]
    for path in sorted(mounts - {CA_BUNDLE}):
        options += ["-v", f"{path}:{path}:ro"]
    return options


@dataclasses.dataclass(frozen=True)
class ActionImage:
    """The built image and the buildah that can run it."""

    name: str
    buildah: Buildah
    config: dict

    @property
    def entrypoint(self) -> list[str]:
        return list(self.config.get("config", {}).get("Entrypoint") or [])


CONTAINER_PREFIX = "evalkit-test-"


def _remove_stale_containers(buildah: Buildah) -> None:
    """Remove containers left by killed sessions or failed builds (whole vfs copies).

    Called under the build lock, so no build of another session is running; test
    containers of a session whose process is still alive are kept.
    """
    listed = subprocess.run(
        [*buildah.base, "containers", "--format", "{{.ContainerName}}"],
        capture_output=True,
        text=True,
        check=False,
    )
    for name in listed.stdout.split():
        if name.startswith(CONTAINER_PREFIX):
            pid = name.removeprefix(CONTAINER_PREFIX).split("-", 1)[0]
            if pid.isdigit() and Path(f"/proc/{pid}").exists():
                continue
        subprocess.run([*buildah.base, "rm", name], capture_output=True, check=False)


def _build_image(buildah: Buildah, cache: Path) -> ActionImage:
    key = _base_key()
    base = f"{BASE_REPO}:{key}"
    with _locked(cache / "build.lock"):
        _remove_stale_containers(buildah)
        if buildah.image_exists(base):
            _timings["base image"] = f"reused {base}"
        else:
            tarball = _base_tarball(cache, key)
            context = Path(tempfile.mkdtemp(prefix="base-context-", dir=cache))
            try:
                os.link(tarball, context / "base.tar")
                (context / "Containerfile").write_text("FROM scratch\nADD base.tar /\n")
                started = time.monotonic()
                buildah("bud", "--isolation", "chroot", "-t", base, str(context))
                _timings["base image"] = f"imported in {time.monotonic() - started:.1f}s"
            finally:
                shutil.rmtree(context, ignore_errors=True)

        started = time.monotonic()
        buildah(
            "bud",
            "--isolation",
            "chroot",
            "--layers",
            "--pull=never",
            "--build-arg",
            f"BASE_IMAGE={base}",
            "-v",
            f"{CA_BUNDLE}:{CA_BUNDLE}:ro",
            *pip_build_options(),
            "-f",
            str(REPO_ROOT / "Dockerfile"),
            "-t",
            IMAGE_TAG,
            str(REPO_ROOT),
        )
        _timings["action image build"] = f"{time.monotonic() - started:.1f}s (layer cache: --layers)"
        # Drop superseded builds' layers so the vfs store does not grow run after run.
        subprocess.run([*buildah.base, "rmi", "--prune"], capture_output=True, check=False)

        # Run by ID: another session re-tagging IMAGE_TAG cannot swap the image under us.
        image_id = buildah("images", "--quiet", "--no-trunc", IMAGE_TAG).stdout.split()[0]
        inspected = json.loads(buildah("inspect", "--type", "image", image_id).stdout)
    return ActionImage(name=image_id, buildah=buildah, config=inspected.get("OCIv1", {}))


@pytest.fixture(scope="session")
def action_image() -> ActionImage:
    """The action's image, built from the working tree's Dockerfile on a local base."""
    _check_prerequisites()
    cache = cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    return _build_image(Buildah(cache / "containers"), cache)


RunInImage = Callable[..., subprocess.CompletedProcess]


@pytest.fixture(scope="session")
def run_in_image(action_image: ActionImage) -> Iterator[RunInImage]:
    """run_in_image(args, env=None, workdir_mount=None, *, mounts=None, fresh=False, timeout=600).

    Runs args in a container of the image (like `docker run --rm --entrypoint`),
    with workdir_mount bound at /github/workspace as the working directory, env
    added to the image's environment and extra mounts {host_path: container_path}.
    The host network is shared (chroot isolation), so loopback servers on the host
    are reachable at 127.0.0.1. Returns the CompletedProcess (text, output captured).

    A vfs container is a full copy of the image (~10 s), so calls share one
    container per session; fresh=True gives a new one for a test that changes the
    container's own files.
    """
    buildah = action_image.buildah
    created: list[str] = []

    def new_container() -> str:
        name = f"{CONTAINER_PREFIX}{os.getpid()}-{len(created)}-{time.monotonic_ns()}"
        container = buildah("from", "--pull=never", "--name", name, action_image.name).stdout.strip()
        created.append(container)
        return container

    shared: list[str] = []

    def run(
        args: Sequence[str],
        env: Mapping[str, str] | None = None,
        workdir_mount: Path | None = None,
        *,
        mounts: Mapping[Path | str, str] | None = None,
        fresh: bool = False,
        timeout: float = 600,
    ) -> subprocess.CompletedProcess:
        if fresh:
            container = new_container()
        else:
            if not shared:
                shared.append(new_container())
            container = shared[0]
        cmd = [*buildah.base, "run", "--isolation", "chroot"]
        if workdir_mount is not None:
            cmd += ["-v", f"{Path(workdir_mount).resolve()}:{WORKSPACE}", "--workingdir", WORKSPACE]
        for host, inside in (mounts or {}).items():
            cmd += ["-v", f"{Path(host).resolve()}:{inside}"]
        for name, value in (env or {}).items():
            cmd += ["-e", f"{name}={value}"]
        cmd += [container, "--", *args]
        try:
            return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
        finally:
            if fresh:
                subprocess.run([*buildah.base, "rm", container], capture_output=True, check=False)
                created.remove(container)

    yield run
    for container in created:
        subprocess.run([*buildah.base, "rm", container], capture_output=True, check=False)


def action_inputs() -> dict[str, str]:
    """action.yml's inputs and their defaults."""
    import yaml

    metadata = yaml.safe_load((REPO_ROOT / "action.yml").read_text())
    return {name: str(spec.get("default", "")) for name, spec in metadata["inputs"].items()}


def parse_file_command(text: str) -> dict[str, str]:
    """Parse a GITHUB_OUTPUT / GITHUB_ENV file: name=value and name<<DELIM blocks."""
    values: dict[str, str] = {}
    lines = iter(text.splitlines())
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            body = []
            for inner in lines:
                if inner == delimiter:
                    break
                body.append(inner)
            else:
                raise ValueError(f"unterminated {name}<<{delimiter} block")
            values[name] = "\n".join(body)
        elif "=" in line:
            name, value = line.split("=", 1)
            values[name] = value
        elif line.strip():
            raise ValueError(f"malformed file-command line: {line!r}")
    return values


@dataclasses.dataclass
class ActionRun:
    """What one run of the action left behind."""

    process: subprocess.CompletedProcess
    outputs: dict[str, str]
    summary: str
    env_file: dict[str, str]
    runner_temp: Path


@pytest.fixture
def run_action(run_in_image: RunInImage, action_image: ActionImage, tmp_path: Path):
    """run_action(workspace, inputs=None, env=None, event=None, event_name="pull_request", command=None).

    Starts the image's ENTRYPOINT as GitHub's runner does for a Docker action:
    INPUT_<NAME> for every action.yml input (defaults applied; github_token defaults
    to env["GITHUB_TOKEN"] or ""), the workspace at /github/workspace, the event JSON
    at /github/workflow/event.json, file commands under /github/file_commands. Pass
    loopback fakes through env (e.g. GITHUB_API_URL, ANTHROPIC_BASE_URL). command
    replaces the entrypoint (to test this plumbing); by default the image's runs.
    """

    def run(
        workspace: Path,
        inputs: Mapping[str, str] | None = None,
        env: Mapping[str, str] | None = None,
        event: Mapping | None = None,
        event_name: str = "pull_request",
        timeout: float = 600,
        command: Sequence[str] | None = None,
    ) -> ActionRun:
        env = dict(env or {})
        values = action_inputs()
        values["github_token"] = env.get("GITHUB_TOKEN", "")
        unknown = set(inputs or {}) - set(values)
        if unknown:
            raise ValueError(f"inputs not declared in action.yml: {sorted(unknown)}")
        values.update(inputs or {})

        github = tmp_path / "github"
        dirs = {name: github / name for name in ("workflow", "file_commands", "home", "runner_temp")}
        for path in dirs.values():
            path.mkdir(parents=True, exist_ok=True)
        (dirs["workflow"] / "event.json").write_text(json.dumps(event or {}))
        for name in ("output", "step_summary", "env", "path", "state"):
            (dirs["file_commands"] / name).touch()

        full_env = {
            "CI": "true",
            "GITHUB_ACTIONS": "true",
            "HOME": "/github/home",
            "GITHUB_WORKSPACE": WORKSPACE,
            "GITHUB_EVENT_NAME": event_name,
            "GITHUB_EVENT_PATH": "/github/workflow/event.json",
            "GITHUB_OUTPUT": "/github/file_commands/output",
            "GITHUB_STEP_SUMMARY": "/github/file_commands/step_summary",
            "GITHUB_ENV": "/github/file_commands/env",
            "GITHUB_PATH": "/github/file_commands/path",
            "GITHUB_STATE": "/github/file_commands/state",
            "RUNNER_TEMP": "/github/runner_temp",
            "RUNNER_OS": "Linux",
            "GITHUB_REPOSITORY": "octo-org/octo-repo",
            "GITHUB_SERVER_URL": "https://github.com",
            "GITHUB_API_URL": "https://api.github.com",
            **{f"INPUT_{name.upper()}": value for name, value in values.items()},
            **env,
        }
        process = run_in_image(
            list(command) if command is not None else action_image.entrypoint,
            env=full_env,
            workdir_mount=workspace,
            mounts={path: f"/github/{name}" for name, path in dirs.items()},
            timeout=timeout,
        )
        commands = dirs["file_commands"]
        return ActionRun(
            process=process,
            outputs=parse_file_command((commands / "output").read_text()),
            summary=(commands / "step_summary").read_text(),
            env_file=parse_file_command((commands / "env").read_text()),
            runner_temp=dirs["runner_temp"],
        )

    return run
