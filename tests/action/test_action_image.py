"""The action's image, built from the Dockerfile with buildah and run for real."""

from __future__ import annotations

import http.server
import subprocess
import threading
from pathlib import Path

import pytest

pytestmark = pytest.mark.docker_image

VENV_PYTHON = "/opt/evalkit/venv/bin/python"


def _ok(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode == 0, f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    return proc.stdout


def test_runtime_dependencies_import(run_in_image):
    out = _ok(
        run_in_image(
            [
                VENV_PYTHON,
                "-c",
                "import evalkit, anthropic, yaml, pydantic, jinja2, click, jsonschema; print(evalkit.__file__)",
            ]
        )
    )
    # Installed into the venv, not run from the copied source tree.
    assert "/opt/evalkit/venv/lib/" in out


def test_image_config_follows_the_checklist(action_image):
    config = action_image.config["config"]
    assert action_image.entrypoint == ["/entrypoint"]
    assert not config.get("User"), "USER makes the mounted workspace unreachable"
    env = dict(item.split("=", 1) for item in config.get("Env", []))
    assert env.get("PYTHONDONTWRITEBYTECODE") == "1"
    assert env.get("PIP_NO_CACHE_DIR") == "1"
    # Build args (the host's pip index settings) must not leak into the runtime env.
    assert "PIP_INDEX_URL" not in env


def test_entrypoint_is_executable_and_hands_over_to_evalkit_action(run_in_image):
    out = _ok(run_in_image(["/bin/sh", "-c", "test -x /entrypoint && cat /entrypoint"]))
    assert f"exec {VENV_PYTHON} -m evalkit.action" in out


def test_git_trusts_a_workspace_owned_by_another_user(run_in_image, tmp_path):
    _ok(run_in_image(["git", "config", "--system", "--get-all", "safe.directory"]))
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    git = ["git", "-C", str(workspace), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q"], check=True)
    (workspace / "suite.yml").write_text("cases: []\n")
    subprocess.run([*git, "add", "suite.yml"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "init"], check=True)
    # On GitHub the workspace belongs to the runner user, not to root in the container.
    subprocess.run(["chown", "-R", "1001:1001", str(workspace)], check=True)
    out = _ok(run_in_image(["git", "log", "--format=%s"], workdir_mount=workspace))
    assert out.strip() == "init"


def test_env_and_workspace_mount(run_in_image, tmp_path):
    proc = run_in_image(
        ["/bin/sh", "-c", 'pwd; printf "%s" "$INPUT_SUITES" > written.txt'],
        env={"INPUT_SUITES": "suites/a.yml\nsuites/b.yml"},
        workdir_mount=tmp_path,
    )
    assert _ok(proc).strip() == "/github/workspace"
    assert (tmp_path / "written.txt").read_text() == "suites/a.yml\nsuites/b.yml"


def test_loopback_server_on_the_host_is_reachable(run_in_image):
    """The fakes of the Anthropic and GitHub APIs run on the host's loopback."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            body = b"hello from the host"
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/"
        out = _ok(
            run_in_image(
                [
                    VENV_PYTHON,
                    "-c",
                    f"import urllib.request; print(urllib.request.urlopen({url!r}, timeout=10).read().decode())",
                ]
            )
        )
    finally:
        server.shutdown()
        server.server_close()
    assert out.strip() == "hello from the host"


def test_build_context_leaves_out_everything_but_the_package(run_in_image):
    out = _ok(run_in_image(["/bin/sh", "-c", "ls -A /opt/evalkit/src"]))
    assert sorted(out.split()) == ["README.md", "evalkit", "pyproject.toml", "requirements-action.txt"]
    pycache = _ok(run_in_image(["/bin/sh", "-c", "find /opt/evalkit/src -name __pycache__"]))
    assert pycache.strip() == ""


def test_run_action_emulates_the_runner(run_action, tmp_path: Path):
    """The plumbing the end-to-end test of the entrypoint will use (command swapped)."""
    script = r"""
set -eu
test "$INPUT_RUBRIC_THRESHOLD" = 0.8          # action.yml default applied
test "$INPUT_SUITES" = "suites/x.yml"         # given input
test "$INPUT_GITHUB_TOKEN" = ghs_fake
grep -q '"number": 7' "$GITHUB_EVENT_PATH"
test "$PWD" = "$GITHUB_WORKSPACE"
echo "verdict=pass" >> "$GITHUB_OUTPUT"
printf 'selected_suites<<EOF_1\nsuites/x.yml\nsuites/y.yml\nEOF_1\n' >> "$GITHUB_OUTPUT"
echo "## results" >> "$GITHUB_STEP_SUMMARY"
"""
    run = run_action(
        tmp_path,
        inputs={"suites": "suites/x.yml"},
        env={"GITHUB_TOKEN": "ghs_fake"},
        event={"number": 7},
        command=["/bin/sh", "-c", script],
    )
    assert run.process.returncode == 0, run.process.stderr
    assert run.outputs == {"verdict": "pass", "selected_suites": "suites/x.yml\nsuites/y.yml"}
    assert run.summary == "## results\n"
