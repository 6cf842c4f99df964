"""Every command README.md and the docs pages (docs/**/*.md) show is run, word for word, against the
loopback fake of the Messages API: each line of every fenced `bash` block, and each `$ ` line of every
`console` block (a transcript, whose printed lines must match too, dates aside). A `bash` block whose
first line is `# in one shell, in order:` is one session instead: its lines run as one bash script
(heredocs and `cd` carry over, each line must succeed), which must exit as its last command's
context gives. Each runs through bash in a fresh
copy of the repository (a git repository of its own, with `origin/main`), holding the files the
README's commands name (`results.json`, a stopped run's JSONL, ...), with the `export` lines
above it in its block; it must exit with the code its README context gives, with no traceback.

A command that cannot run in a test is in SKIPPED with its reason; a SKIPPED entry that no README
command matches fails, and so does a fenced block that holds commands but is tagged neither
`bash` nor `console` (it would escape this test). A new command is run like the others, unless it
installs packages, starts containers or runs the tests (DECIDE): that fails until it is made
runnable here or listed in SKIPPED. Commands that reach GitHub get the loopback fake of its REST
API (GITHUB_API_URL); no real service is reachable from them."""

from __future__ import annotations

import difflib
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from evalkit.cli.demo import DEMO_BASE, bundled_suites_dir, demo_plan
from evalkit.testing.fake_anthropic import FakeAnthropicServer
from evalkit.testing.fake_github import FakeGitHub
from evalkit.testing.offline_server import offline_script
from evalkit.testing.script import Script

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
# The pages whose commands are run: the README, then every docs page.
PAGES = (README, *sorted((REPO / "docs").rglob("*.md")))
SESSION = "# in one shell, in order:"
BIN = Path(sys.executable).parent  # `evalkit` and `python` as a user of this virtual environment has them

# Commands that cannot run in a test, keyed by their exact text (a trailing comment aside).
SKIPPED = {
    "python3 -m venv .venv && . .venv/bin/activate && pip install -e '.[test]' && evalkit demo": "creates a virtual environment and installs from the package registry (network, minutes); "
    "`evalkit demo` itself is run by tests/cli/test_demo.py",
    "python -m pytest -n auto": "the whole test suite, this test among them; CI runs it (.ci/run)",
    'pip install "evalkit @ git+https://github.com/org/eval-action@v1"': "installs from GitHub (network); the placeholder org/eval-action is the reader's own",
    "pip install -e '.[docs]'": "installs from the package registry (network, minutes); .ci/run installs it",
    "mkdocs build --strict": "needs the docs extra, which only the locked job installs: tests/test_docs.py "
    "builds the site where it is installed, and .ci/run builds it in its static checks",
    "mkdocs serve": "a preview server that runs until stopped",
    "pip install 'evalkit[postgres]'": "installs from the package registry (network); the locked job's lock "
    "holds the extra",
    "evalkit history record main.json --branch main --history postgresql://evalkit@db.example.com/evals": "the reader's own PostgreSQL server; tests/history/test_postgres.py runs these commands against a "
    "throwaway server",
    "evalkit history --history postgresql://evalkit@db.example.com/evals": "as the `history record` above: tests/history/test_postgres.py runs it against a throwaway server",
    "evalkit mutate evals": "the reader's own suite folder (docs/mutate.md's support team's `evals/`, not in this "
    "repository); tests/engine/test_mutate.py runs `evalkit mutate` on a team's suite and on "
    "the bundled ones",
    "evalkit mutate evals --sample 100 --min-score 0.8": "as `evalkit mutate evals`; tests/engine/test_mutate.py "
    "tests --sample and --min-score's exit codes",
    'python -m evalkit.testing.fake_anthropic --port 8765 --reply "Paris." --verdict pass &': "starts a server that runs until stopped, on a fixed port; tests/test_init_and_project.py runs "
    "the command (on a free port), and docs/getting-started.md's session runs against its script",
}

# The exit code a command's README context gives it, where it is not 0.
EXIT = {
    "evalkit calibrate cal.suite.yml --repeats 3": 1,  # "the command exits 1 and names `kind`"
}

# Commands that run against something other than the bundled suites in a copy of the repository.
CALIBRATION = {"evalkit calibrate cal.suite.yml --repeats 3"}  # tests/engine/test_calibrate.py's worked example

# Pages whose commands build a team's own project and run it against the offline fake's answers.
OFFLINE_FAKE = {"docs/getting-started.md"}

# What the README says calls no model: these must not reach the fake.
OFFLINE = re.compile(r"^evalkit (plan|selftest|validate|list|schema|report|compare)\s")

STOPPED_RUN = ".evalkit/runs/20260101-120000.jsonl"  # the README's `--resume` example
RESULTS_FILES = ("results.json", "head.json", "base.json", "main.json", "pr.json")  # names the README uses
TRACEBACK = "Traceback (most recent call last)"
# Commands not run unless someone decides how: they install, start containers, or run the tests.
DECIDE = re.compile(r"(^|[\s;&|(])(pip|uv|apt-get|apt|docker|buildah|podman|sudo|pytest|\.ci/\S+)(\s|$)")
NESTED = "EVALKIT_README_COMMANDS"  # set in the commands' environment: a copy of this test never runs itself
SHELLISH = re.compile(r"^(\$ |(evalkit|python3?|pip|git|export|uv|docker|buildah|\.ci/\S+)(\s|$))")


@dataclass(frozen=True)
class Command:
    text: str  # as written, a trailing comment included: what is run
    line: int
    exports: tuple[str, ...]  # the `export` lines above it in its block
    transcript: tuple[str, ...] | None  # a console block's printed lines, else None
    page: str = "README.md"  # where it is shown, relative to the repository
    session: bool = False  # a whole `# in one shell, in order:` block, run as one script

    @property
    def key(self) -> str:
        return self.text.strip() if self.session else strip_comment(self.text)

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def fences(text: str) -> Iterator[tuple[str, int, list[str]]]:
    """(info string, line number of the first body line, body lines) of each fenced block."""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        match = re.match(r"^\s*(`{3,}|~{3,})\s*(\S*)", lines[i])
        if not match:
            i += 1
            continue
        fence, info, start = match.group(1), match.group(2), i + 1
        i += 1
        while i < len(lines) and lines[i].strip() != fence:
            i += 1
        yield info, start + 1, lines[start:i]
        i += 1


def strip_comment(line: str) -> str:
    """The command without a trailing `# comment` (a `#` outside quotes, after a blank)."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].strip()
    return line.strip()


def readme_commands(text: str, page: str = "README.md") -> list[Command]:
    commands: list[Command] = []
    for info, first, body in fences(text):
        if info == "bash" and body and body[0].strip() == SESSION:
            commands.append(Command("\n".join(body[1:]), first, (), None, page, session=True))
        elif info == "bash":
            exports: list[str] = []
            logical, start = "", 0
            for n, raw in enumerate(body, first):
                if not logical:
                    start = n
                logical += raw.rstrip()
                if logical.endswith("\\"):
                    logical = logical[:-1] + " "
                    continue
                line, logical = logical.strip(), ""
                if not line or line.startswith("#"):
                    continue
                commands.append(Command(line, start, tuple(exports), None, page))
                if line.startswith("export "):
                    exports.append(line)
        elif info == "console":
            for n, raw in enumerate(body, first):
                if raw.startswith("$ "):
                    printed = []
                    for after in body[n - first + 1 :]:
                        if after.startswith("$ "):
                            break
                        printed.append(after)
                    commands.append(Command(raw[2:].strip(), n, (), tuple(printed), page))
    return commands


COMMANDS = [
    command
    for page in PAGES
    for command in readme_commands(page.read_text(encoding="utf-8"), str(page.relative_to(REPO)))
]
pytestmark = pytest.mark.skipif(NESTED in os.environ, reason="run by a README command of this very test")


def test_the_readme_shows_commands_and_every_block_of_commands_is_tagged_so_this_test_runs_it():
    assert len(COMMANDS) >= 15, [c.text for c in COMMANDS]
    untagged = [
        f"{page.relative_to(REPO)}:{first - 1} ```{info}: {line.strip()}"
        for page in PAGES
        for info, first, body in fences(page.read_text(encoding="utf-8"))
        if info not in ("bash", "console") and info in ("", "sh", "shell", "zsh", "text")
        for line in body
        if SHELLISH.match(line.strip())
    ]
    assert not untagged, (
        "commands in a block this test does not read: tag it ```bash (commands) or ```console (a `$ ` transcript)",
        untagged,
    )


def test_every_skipped_command_is_still_in_the_readme():
    shown = {c.key for c in COMMANDS}
    stale = sorted(set(SKIPPED) - shown)
    assert not stale, f"SKIPPED names commands neither the README nor the docs show any more: {stale}"
    for table in (EXIT, CALIBRATION):
        assert not set(table) - shown, f"{sorted(set(table) - shown)} are not README or docs commands any more"


# -- where the commands run ---------------------------------------------------------------------


def sound_script() -> Script:
    """The bundled suites' scripted sound replies (the demo's base branch): every gate passes."""
    merged = Script()
    for _, script in demo_plan(bundled_suites_dir(), DEMO_BASE):  # a folder runs its agent.suite.yml too
        merged.extend(script)
    return merged


def calibration_script() -> Script:
    from tests.engine.test_calibrate import extract, wrong_on_two

    return Script().respond(wrong_on_two, tool="record_verdicts").respond(extract, tool="record_fields")


def shell(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="session")
def fakes() -> Iterator[dict[str, FakeAnthropicServer]]:
    # "offline": what `python -m evalkit.testing.fake_anthropic --reply "Paris." --verdict pass` answers,
    # for the pages whose commands run a team's own suite (OFFLINE_FAKE).
    with (
        FakeAnthropicServer(sound_script()) as sound,
        FakeAnthropicServer(calibration_script()) as calibration,
        FakeAnthropicServer(offline_script("Paris.", "pass")) as offline,
    ):
        yield {"sound": sound, "calibration": calibration, "offline": offline}


@pytest.fixture(scope="session")
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        yield fake


@pytest.fixture(scope="session")
def base_env(tmp_path_factory, github) -> dict[str, str]:
    """A user's shell: this environment's `evalkit` first on PATH, a dummy key, one response cache
    for the whole session (a suite that runs again is served from it), plain progress lines, and
    GitHub's REST API at its loopback fake."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "EVALKIT_", "GITHUB_", "INPUT_"))}
    return {
        **env,
        "PATH": f"{BIN}{os.pathsep}{env.get('PATH', '')}",
        "ANTHROPIC_API_KEY": "test-not-a-key",
        "EVALKIT_CACHE_DIR": str(tmp_path_factory.mktemp("response-cache")),
        "CI": "1",
        "GITHUB_API_URL": github.url,
        "GITHUB_TOKEN": "test-not-a-token",
        NESTED: "1",
    }


def git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


@pytest.fixture(scope="session")
def repository(tmp_path_factory, fakes, base_env) -> Path:
    """A copy of this repository's files as they are now, committed in a git repository of its own
    with `origin/main` at that commit, plus the files the README's commands read: the results of a
    run of the bundled suites under each name the README uses, and a stopped run's JSONL."""
    root = tmp_path_factory.mktemp("readme") / "repo"
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split("\0")
    for name in filter(None, listed):
        if (REPO / name).is_file():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, root / name)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "the repository as the README's reader has it")
    git(root, "update-ref", "refs/remotes/origin/main", "HEAD")
    env = {**base_env, "ANTHROPIC_BASE_URL": fakes["sound"].url}
    done = shell("evalkit run suites/pace_ai suites/help_agents --output results.json", root, env)
    assert done.returncode == 0, done.stdout + done.stderr
    for name in RESULTS_FILES[1:]:
        shutil.copy2(root / "results.json", root / name)
    # A run stopped by a hard kill: its first cases finished, the rest and the closing line lost.
    stopped = root / STOPPED_RUN
    stopped.parent.mkdir(parents=True)
    lines = (root / "results.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    stopped.write_text("".join(lines[: len(lines) // 3]), encoding="utf-8")
    return root


@pytest.fixture(scope="session")
def calibration_folder(tmp_path_factory) -> Path:
    from tests.engine.test_calibrate import SUITE

    folder = tmp_path_factory.mktemp("calibration")
    (folder / "cal.suite.yml").write_text(SUITE.lstrip("\n"), encoding="utf-8")
    return folder


def normalised(lines: list[str]) -> list[str]:
    return [re.sub(r"\d{4}-\d{2}-\d{2}", "YYYY-MM-DD", line.rstrip()) for line in lines if line.strip()]


def command_id(command: Command) -> str:
    shown = command.key.splitlines()[-1] if command.session else command.key
    return shown if command.page == "README.md" else f"{command.page}:{shown}"


@pytest.mark.parametrize("command", COMMANDS, ids=[command_id(c) for c in COMMANDS])
def test_the_readme_command_runs_as_written(command, request, tmp_path, base_env, fakes):
    if command.key in SKIPPED:
        pytest.skip(SKIPPED[command.key])
    if any(DECIDE.search(line) for line in command.key.splitlines()):
        pytest.fail(
            f"{command.where} `{command.key}` installs, starts a container or runs the tests: "
            "make it runnable here or list it in SKIPPED with the reason",
            pytrace=False,
        )
    if command.key in CALIBRATION:
        source, fake = request.getfixturevalue("calibration_folder"), fakes["calibration"]
    elif command.page in OFFLINE_FAKE:
        source, fake = request.getfixturevalue("repository"), fakes["offline"]
    else:
        source, fake = request.getfixturevalue("repository"), fakes["sound"]
    where = tmp_path / "here"
    shutil.copytree(source, where, symlinks=True)
    env = {**base_env, "ANTHROPIC_BASE_URL": fake.url}
    calls = fake.request_count  # this worker's commands run one at a time: the difference is this command's

    script = f"set -e\n{command.text}" if command.session else "\n".join([*command.exports, command.text])
    done = shell(script, where, env)

    said = f"{command.where} `{command.text}`\n{done.stdout}{done.stderr}"
    assert TRACEBACK not in said, said
    assert done.returncode == EXIT.get(command.key, 0), f"exit {done.returncode}: {said}"
    if OFFLINE.match(command.key):
        assert fake.request_count == calls, f"called the model: {said}"
    if command.transcript is not None:  # the README shows what it prints: it must be what it prints
        shown, printed = normalised(list(command.transcript)), normalised(done.stdout.splitlines())
        assert printed == shown, "\n".join(difflib.unified_diff(shown, printed, command.page, "printed", lineterm=""))
