"""The action's files follow GitHub's container-action checklist (no build needed)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def _action() -> dict:
    return yaml.safe_load((ROOT / "action.yml").read_text())


def test_action_runs_the_repository_dockerfile():
    assert _action()["runs"] == {"using": "docker", "image": "Dockerfile"}


def test_inputs_are_snake_case_with_string_defaults():
    inputs = _action()["inputs"]
    expected = {
        "anthropic_api_key", "github_token", "suites", "model", "judge_model",
        "rubric_threshold", "agreement_threshold", "concurrency", "comment",
        "fail_on_gate", "template", "cache_dir",
        "on_missing_key", "comment_key", "allow_pull_request_target_fork", "shard", "merge",
        "gate", "baseline", "install",
        "inconclusive", "compare_models", "batch", "tags", "comment_mode", "summary", "env", "working_directory", "max_cost",
        "reuse_base", "anthropic_federation_rule_id", "anthropic_organization_id", "anthropic_service_account_id",
        "anthropic_workspace_id", "oidc_audience", "check_run", "history", "history_keep",
    }  # fmt: skip
    assert set(inputs) == expected
    for name, spec in inputs.items():
        # INPUT_<NAME> keeps hyphens, which a shell cannot read.
        assert re.fullmatch(r"[a-z][a-z0-9_]*", name), name
        assert isinstance(spec.get("default"), str), f"{name}: defaults arrive as strings"
        assert spec.get("description"), name
    # No token is injected into a container action; the default hands it over.
    assert inputs["github_token"]["default"] == "${{ github.token }}"
    assert inputs["anthropic_api_key"]["default"] == ""


def test_outputs():
    assert set(_action()["outputs"]) == {
        "verdict",
        "results_path",
        "html_path",
        "comment_path",
        "selected_suites",
        "comment_id",
        "comment_url",
        "regressed",
        "fixed",
        "passed",
        "failed",
        "errors",
        "jsonl_path",
        "base_artifact",
        "base_artifact_path",
        "history_artifact",
        "history_artifact_path",
    }


def _documented(header: str) -> dict[str, str]:
    """Names in the first column of every Markdown table whose header row starts with `header`,
    in README.md and docs/, with the row's second column (an input's default)."""
    rows: dict[str, str] = {}
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        inside = False
        for line in page.read_text(encoding="utf-8").splitlines():
            if line.startswith(f"| {header} |"):
                inside = True
                continue
            if not line.startswith("|"):
                inside = False
            elif inside and not line.startswith("|---"):
                cells = [c.strip() for c in line.strip("|").split("|")]
                for name in re.findall(r"`([a-z_]+)`", cells[0]):
                    rows[name] = cells[1] if len(cells) > 2 else ""
    return rows


def test_the_documented_inputs_and_outputs_are_action_ymls():
    action = _action()
    inputs, outputs = _documented("input"), _documented("output")
    assert set(inputs) == set(action["inputs"])
    assert set(outputs) == set(action["outputs"])
    for name, spec in action["inputs"].items():  # the default column says the default
        assert inputs[name].strip("`") == (spec["default"] or '""'), name


def test_dockerfile_checklist():
    text = (ROOT / "Dockerfile").read_text()
    instructions = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert instructions[0].startswith("ARG BASE_IMAGE=python:")
    assert re.search(r"@sha256:[0-9a-f]{64}$", instructions[0]), "pin the base image by digest"
    assert instructions[1] == "FROM ${BASE_IMAGE}"
    entrypoint = [line for line in instructions if line.startswith("ENTRYPOINT")]
    assert len(entrypoint) == 1
    assert json.loads(entrypoint[0].removeprefix("ENTRYPOINT")) == ["/entrypoint"]
    assert not any(line.startswith("USER") for line in instructions)
    assert "safe.directory '*'" in text


def test_entrypoint_is_executable_and_thin():
    entrypoint = ROOT / "entrypoint"
    assert os.access(entrypoint, os.X_OK)
    commands = [line for line in entrypoint.read_text().splitlines()[1:] if line and not line.startswith("#")]
    assert commands == ['exec /opt/evalkit/venv/bin/python -m evalkit.action "$@"']


def test_workflow_uses_pinned_actions_and_least_privilege():
    workflow = yaml.safe_load((ROOT / ".github/workflows/evals.yml").read_text())
    assert workflow["permissions"] == {}
    assert "pull_request_target" not in workflow[True]  # YAML 1.1 reads `on` as True
    for job in workflow["jobs"].values():
        assert job["permissions"] == {"contents": "read", "pull-requests": "write"}
        for step in job["steps"]:
            uses = step.get("uses", "./")
            assert uses == "./" or re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", uses), uses
            if uses.startswith("actions/checkout@"):
                assert step["with"]["persist-credentials"] is False


def test_release_pins_action_yml_to_the_pushed_image_by_digest(tmp_path):
    import subprocess
    import sys

    workflow = yaml.safe_load((ROOT / ".github/workflows/release.yml").read_text())
    assert workflow["permissions"] == {}
    (job,) = workflow["jobs"].values()
    assert job["permissions"] == {"contents": "write", "packages": "write"}
    script = "\n".join(step.get("run", "") for step in job["steps"])
    assert "docker build" in script and "docker push" in script and ".ci/pin-image action.yml" in script
    copy = tmp_path / "action.yml"
    copy.write_text((ROOT / "action.yml").read_text())
    ref = "docker://ghcr.io/octo-org/eval-action@sha256:" + "ab" * 32
    pin = [sys.executable, str(ROOT / ".ci" / "pin-image"), str(copy)]
    assert subprocess.run([*pin, ref], capture_output=True, check=False).returncode == 0
    assert yaml.safe_load(copy.read_text())["runs"] == {"using": "docker", "image": ref}
    # Only a digest will do: a tag can be re-pushed.
    assert subprocess.run([*pin, "docker://ghcr.io/octo-org/eval-action:v1"], capture_output=True).returncode == 2
