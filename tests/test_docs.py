"""The docs hold to their sources: the generated parts (the Action's inputs and outputs, the check
types, the suite format reference) are current, every check type has a valid example, the README is
short and its links land on a docs page's heading, and the site builds with warnings as errors.
(Every command the pages show is run by tests/test_readme_commands.py.)"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
GEN = REPO / "scripts" / "gen_docs.py"
MAX_README_LINES = 250


def gen_check(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(root / "scripts" / "gen_docs.py"), "--check"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_generated_parts_of_the_docs_are_current():
    done = gen_check(REPO)
    assert done.returncode == 0, f"run `python scripts/gen_docs.py` and commit the result\n{done.stdout}{done.stderr}"


def test_a_new_action_input_makes_the_docs_stale(tmp_path):
    for name in ("scripts", "docs"):
        shutil.copytree(REPO / name, tmp_path / name)
    action = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
    action["inputs"]["working_directory"] = {"description": "Where to run.", "required": False, "default": "."}
    (tmp_path / "action.yml").write_text(yaml.safe_dump(action, sort_keys=False), encoding="utf-8")
    done = gen_check(tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "stale: docs/action.md" in done.stdout


def test_the_action_tables_name_every_input_and_output_of_action_yml():
    action = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
    page = (REPO / "docs" / "action.md").read_text(encoding="utf-8")
    rows = set(re.findall(r"^\| `([a-z_]+)` \|", page, re.M))
    assert rows == set(action["inputs"]) | set(action["outputs"])


def suite_schema() -> dict:
    done = subprocess.run([str(BIN / "evalkit"), "schema"], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def check_examples() -> list[tuple[int, list]]:
    """(line, checks) of each yaml block under the checks page's "One example each"."""
    text = (REPO / "docs" / "checks.md").read_text(encoding="utf-8")
    start = text.index("## One example each")
    end = text.index("\n## ", start + 1)
    offset = text[:start].count("\n")
    return [
        (offset + text[start : m.start()].count("\n") + 1, yaml.safe_load(m.group(1)))
        for m in re.finditer(r"```yaml\n(.*?)```", text[start:end], re.S)
    ]


def test_every_check_type_has_an_example_that_the_schema_accepts():
    schema = suite_schema()
    check_spec = {"$defs": schema["$defs"], **schema["$defs"]["CheckSpec"]}
    shown: set[str] = set()
    for line, checks in check_examples():
        for check in checks:
            errors = list(jsonschema.Draft202012Validator(check_spec).iter_errors(check))
            assert not errors, f"docs/checks.md:{line}: {check}: {[e.message for e in errors][:3]}"
            shown.add(check["type"])
    registry = {variant["title"] for variant in schema["$defs"]["CheckSpec"]["oneOf"]}
    assert shown == registry, f"without an example: {sorted(registry - shown)}; unknown: {sorted(shown - registry)}"


def test_a_wrong_example_is_refused_by_the_schema():
    check_spec = {"$defs": suite_schema()["$defs"], **suite_schema()["$defs"]["CheckSpec"]}
    assert list(jsonschema.Draft202012Validator(check_spec).iter_errors({"type": "length", "unit": "pages"}))


def test_the_readme_is_short():
    lines = (REPO / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_README_LINES, f"README.md has {lines} lines; move detail to docs/"


def slug(heading: str) -> str:
    """The anchor MkDocs' toc (and GitHub) give a heading: lower case, punctuation dropped, spaces to -."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    return re.sub(r"\s+", "-", re.sub(r"[^\w\s-]", "", text)).strip("-")


def anchors(page: Path) -> set[str]:
    found, fence = set(), False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fence = not fence
        elif not fence and (m := re.match(r"^#{1,6} (.+)$", line)):
            found.add(slug(m.group(1)))
    return found


def test_every_relative_link_of_the_readme_lands_on_a_file_and_a_heading():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    local = [link for link in links if not re.match(r"[a-z]+:", link)]
    assert any(link.startswith("docs/") for link in local)
    for link in local:
        path, _, anchor = link.partition("#")
        target = REPO / path
        assert target.is_file(), f"README.md links to {link}: no such file"
        if anchor:
            assert anchor in anchors(target), f"README.md links to {link}: {path} has no heading {anchor!r}"


def test_the_slug_matches_what_mkdocs_gives_a_heading():
    assert slug("Running the tests") == "running-the-tests"
    assert slug('Intervals, and an honest "inconclusive"') == "intervals-and-an-honest-inconclusive"
    assert slug("`evalkit selftest`: are the checks right?") == "evalkit-selftest-are-the-checks-right"


def test_the_site_builds_with_warnings_as_errors(tmp_path):
    pytest.importorskip(
        "mkdocs",
        reason="the docs extra is not installed here (pip install -e '.[docs]'); "
        ".ci/run builds the site in its docs step",
    )
    done = subprocess.run(
        [str(BIN / "mkdocs"), "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PATH": str(BIN), "NO_MKDOCS_2_WARNING": "1", "HOME": str(tmp_path)},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "site" / "getting-started" / "index.html").is_file()


def fenced(text: str, info: str) -> list[str]:
    return [body for kind, body in re.findall(r"^```(\w*)\n(.*?)^```", text, re.S | re.M) if kind == info]


def test_the_readme_suite_and_its_target_pass_validate(tmp_path):
    text = (REPO / "README.md").read_text(encoding="utf-8")
    suite = next(body for body in fenced(text, "yaml") if body.startswith("name: "))
    (tmp_path / "suite.yml").write_text(suite, encoding="utf-8")
    (tmp_path / "my_agent.py").write_text(fenced(text, "python")[0], encoding="utf-8")
    done = subprocess.run(
        [str(BIN / "evalkit"), "validate", "suite.yml"], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_readme_agent_and_conversation_suites_pass_validate(tmp_path):
    text = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = [b for b in fenced(text, "yaml") if "tool_called" in b or "conversation:" in b]
    assert len(blocks) == 2
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "shop" / "orders.py").write_text("def find(order_id=None):\n    return {}\n", encoding="utf-8")
    for number, block in enumerate(blocks):
        (tmp_path / f"s{number}.yml").write_text(f"name: readme{number}\n{block}", encoding="utf-8")
        done = subprocess.run(
            [str(BIN / "evalkit"), "validate", f"s{number}.yml"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, block + done.stdout + done.stderr


def test_the_readme_workflow_uses_only_inputs_and_outputs_action_yml_declares():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    workflow = yaml.safe_load(next(body for body in fenced(text, "yaml") if "jobs:" in body))
    action = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
    steps = workflow["jobs"]["evals"]["steps"]
    ours = [step for step in steps if "eval-action" in step.get("uses", "")]
    assert ours and all(set(step["with"]) <= set(action["inputs"]) for step in ours)
    named = set(re.findall(r"steps\.evals\.outputs\.(\w+)", text))
    assert named and named <= set(action["outputs"]), named - set(action["outputs"])


# What the troubleshooting page quotes, each a literal part of a message evalkit prints: the page's
# table must quote it, and the source must still print it (a reworded message makes the page stale).
TROUBLESHOOTING_MESSAGES = (
    "No ANTHROPIC_API_KEY: set it",
    "name suite files or folders, or list them under",
    "unknown setting(s)",
    "its repository's root and sys.path",
    "cannot be called as",
    "names no target; pass --target module:function",
    "unknown check type",
    "YAML syntax error",
    "matches no case (cases include:",
    "reached end of life on",
    "no gold outputs (add `gold:`",
    "is a file, not a folder",
    "no such commit in",
    "changed since the run began",
    "is not an evalkit results file (JSON report or JSONL)",
    "timed out after",
    "internal error, evalkit's fault and not yours",
    "evals are switched off",
    "no model key: ",
    "the run did not finish",
    "evals could not run",
)


def test_the_troubleshooting_table_quotes_messages_evalkit_prints():
    page = (REPO / "docs" / "troubleshooting.md").read_text(encoding="utf-8")
    source = "\n".join(p.read_text(encoding="utf-8") for p in (REPO / "evalkit").rglob("*.py"))
    assert not [m for m in TROUBLESHOOTING_MESSAGES if m not in page], "quoted on the page no more"
    gone = [m for m in TROUBLESHOOTING_MESSAGES if m not in source]
    assert not gone, f"evalkit prints these no more; update docs/troubleshooting.md: {gone}"
