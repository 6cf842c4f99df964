"""`working_directory`: a repository that holds several projects, each with its own evalkit.yml;
the Action runs the one it is pointed at, its watch globs and install relative to it."""

from __future__ import annotations

from pathlib import Path

from test_action_entrypoint import action, github, greet_script, make_repo, marked  # noqa: F401 - fixtures

PR = "pull_request_opened.json"


def monorepo(tmp_path: Path) -> Path:
    root = tmp_path / "mono"
    make_repo(root / "services" / "bot")  # evalkit.yml, evals/, prompts/ inside the project
    (root / "services" / "other").mkdir(parents=True)
    (root / "services" / "other" / "evalkit.yml").write_text("suites: [nowhere]\n")  # never read
    return root


def test_the_project_in_the_working_directory_runs_when_its_files_change(action, github, tmp_path, fake_anthropic):
    root = monorepo(tmp_path)
    github.set_pr_files(12, [{"filename": "services/bot/prompts/greet.txt"}])
    fake_llm = fake_anthropic(greet_script())
    run = action(
        root,
        PR,
        "pull_request",
        github=github,
        anthropic=fake_llm,
        inputs={"working_directory": "services/bot", "baseline": "none"},
    )
    assert run.code == 0, run.log
    assert "services/bot/evals/greet.suite.yml" in run.outputs["selected_suites"]
    assert "services/bot/evals/envdump.suite.yml" not in run.outputs["selected_suites"]
    assert run.outputs["passed"] == "2"
    assert "All gates passed" in marked(github, 12)[0]["body"]


def test_a_change_outside_the_project_runs_nothing(action, github, tmp_path):
    root = monorepo(tmp_path)
    github.set_pr_files(12, [{"filename": "prompts/greet.txt"}])  # the root's prompts, not the project's
    run = action(root, PR, "pull_request", github=github, inputs={"working_directory": "services/bot"})
    assert run.code == 0, run.log
    assert run.outputs["verdict"] == "skipped" and run.outputs["selected_suites"] == ""


def test_the_suites_input_names_paths_in_the_working_directory(action, github, tmp_path, fake_anthropic):
    root = monorepo(tmp_path)
    fake_llm = fake_anthropic(greet_script())
    run = action(
        root,
        PR,
        "pull_request",
        github=github,
        anthropic=fake_llm,
        inputs={"working_directory": "services/bot", "suites": "evals/greet.suite.yml", "baseline": "none"},
    )
    assert run.code == 0, run.log
    assert run.outputs["selected_suites"] == "services/bot/evals/greet.suite.yml"


def test_a_working_directory_outside_the_checkout_or_missing_is_a_clear_error(action, github, tmp_path):
    root = monorepo(tmp_path)
    for bad, said in (
        ("../elsewhere", "is not a folder inside the repository"),
        ("services/nope", "is not a folder of the checkout"),
    ):
        run = action(root, PR, "pull_request", github=github, inputs={"working_directory": bad})
        assert run.code == 2, run.log
        assert f"working_directory: {bad!r} {said}" in run.log
        assert run.outputs["verdict"] == "error"
