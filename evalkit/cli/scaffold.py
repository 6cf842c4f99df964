"""`evalkit init`: a first suite next to a team's code, ready to run.

It writes, in the project folder, never over an existing file:
- `evals/suite.yml`: one check, one judged rubric item, one case that runs three times;
- `evals/evals_target.py`: a target that calls the model through the client evalkit hands it (skipped
  when `--target module:function` names the team's own function, which the suite then runs);
- `evalkit.yml`: the suites evalkit and the Action run (`suites: [evals]`);
- `.github/workflows/evalkit.yml`: the Action on pull requests and by hand;
- `.evalkit/` added to `.gitignore` (runs and caches stay out of git).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from evalkit.errors import UsageError

DEFAULT_MODEL = "claude-haiku-4-5-20251001"
_TARGET = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*")

TARGET_PY = '''"""The system under test for evals/suite.yml: replace the body with a call to your own code.

evalkit calls `answer(input, client)` once per case and repeat, in a worker process of its own.
`client.complete(prompt, system=..., model="low" | "high" | a model id, max_tokens=..., temperature=...)`
calls the model and returns the reply's text (counted, priced and cached like every call of a run).
Return a str, a dict, or `evalkit.TargetResult(output, facts={...})` with numbers your code computed.
"""


def answer(question: str, client) -> str:
    return client.complete(question, system="Answer in one short sentence.", max_tokens=200)
'''

SUITE_YML = """# A first suite. `evalkit run` runs the target on every case, applies the checks (code: free and
# steady) and asks the judge model to fill the rubric (one call per run, a reason per item).
name: {name}
target: {target}
model: {model}                  # the model `client.complete` uses by default
judge_model: {model}
watch: ["evals/**"]             # the Action runs this suite when these files change: add your code's
checks:                         # every check must pass
  - {{type: length, min: 1, max: 2000}}
rubrics:
  answers:
    - {{id: on_topic, judge: "The answer addresses the question that was asked"}}
cases:
  - id: capital
    input: What is the capital of France?
    rubric: answers
    repeats: 3                  # the same input three times: a flaky answer shows
"""

CONFIG_YML = """# The suites `evalkit run` (with no paths) and the GitHub Action run.
suites:
  - evals
"""

WORKFLOW_YML = """# Runs the suites a pull request touches and posts one comment, updated in place.
name: evals
on:
  pull_request:
  workflow_dispatch:
permissions: {{}}
jobs:
  evals:
    runs-on: ubuntu-latest
    permissions:
      contents: read
      pull-requests: write          # the one sticky comment
    steps:
      - uses: actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1  # v7.0.1
        with: {{persist-credentials: false}}
      - uses: org/eval-action@v1     # pin the commit SHA of the release you use
        with:
          anthropic_api_key: ${{{{ secrets.ANTHROPIC_API_KEY }}}}
{install}"""


@dataclass(frozen=True)
class Scaffold:
    written: list[Path]
    kept: list[Path]  # existing files left as they were
    suite: Path


def init_project(folder: Path, target: str | None = None, name: str | None = None) -> Scaffold:
    """Write the files above into `folder`; a file that exists is kept (listed in `kept`)."""
    if target is not None and not _TARGET.fullmatch(target):
        raise UsageError(f"--target {target!r} is not of the form module:function")
    folder = folder.resolve()
    if not folder.is_dir():
        raise UsageError(f"{folder} is not a folder")
    suite_name = name or re.sub(r"[^A-Za-z0-9_.-]+", "-", folder.name).strip("-.") or "evals"
    files = {
        folder / "evals" / "suite.yml": SUITE_YML.format(name=suite_name, target=target or "evals_target:answer",
                                                         model=DEFAULT_MODEL),
        folder / "evalkit.yml": CONFIG_YML,
        folder / ".github" / "workflows" / "evals.yml": WORKFLOW_YML.format(
            install="          install: .                # your project, so the suite can import it\n"
            if (folder / "pyproject.toml").exists() or (folder / "setup.py").exists() else ""),
    }
    if target is None:
        files[folder / "evals" / "evals_target.py"] = TARGET_PY
    written, kept = [], []
    for path, text in files.items():
        if path.exists():
            kept.append(path)
            continue
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
        written.append(path)
    if _ignore_runs(folder / ".gitignore"):
        written.append(folder / ".gitignore")
    return Scaffold(written, kept, folder / "evals" / "suite.yml")


def _ignore_runs(gitignore: Path) -> bool:
    """Add `.evalkit/` to .gitignore unless a line already ignores it; True if the file changed."""
    try:
        text = gitignore.read_text(encoding="utf-8") if gitignore.exists() else ""
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {gitignore}: {exc}") from None
    if any(line.strip().strip("/") == ".evalkit" for line in text.splitlines()):
        return False
    try:
        with gitignore.open("a", encoding="utf-8") as f:
            f.write(("" if not text or text.endswith("\n") else "\n") + "# evalkit's runs and caches\n.evalkit/\n")
    except OSError as exc:
        raise UsageError(f"cannot write {gitignore}: {exc.strerror or exc}") from None
    return True
