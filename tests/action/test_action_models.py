"""Model against model in the Action (`compare_models`, the input's or a suite's), run as the
runner runs it against the loopback GitHub and Messages-API fakes: one run per model, one
comment leading with the side-by-side table, the judge the same for every model, no base run.
Also: the base side of a base-vs-head comparison runs in the secret-free worker too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalkit.action.inputs import parse_inputs
from evalkit.errors import UsageError
from evalkit.render.comment import MARKER
from evalkit.testing.script import Script, requested_tool
from tests.action.test_action_baseline import pr_event, two_commits
from tests.action.test_action_entrypoint import (  # noqa: F401
    ENV_TARGET,
    RUNNER_SECRETS,
    SUITE,
    TOKEN,
    action,
    make_repo,
    marked,
    needles_file,
)

JUDGE = "claude-haiku-4-5"


def two_models_script() -> Script:
    """model-b is rude to Bob; the judge (one model for both) fails rudeness."""

    def verdict(v: str) -> dict:
        return {"items": [{"id": "polite", "reason": f"judged {v}", "verdict": v}]}

    return (
        Script()
        .reply("Go away.", prompt="GREET Bob", model="model-b")
        .reply("Hello Bob!", prompt="GREET Bob")
        .reply("Hello Ada!", prompt="GREET Ada")
        .tool_reply("record_verdicts", verdict("fail"), prompt="Go away.")
        .tool_reply("record_verdicts", verdict("pass"))
    )


@pytest.fixture
def github(fake_github):
    fake = fake_github(token=TOKEN)
    fake.set_pr_files(12, [{"filename": "evals/greet.suite.yml"}])
    return fake


def greet_repo(root: Path, suite: str = SUITE) -> Path:
    make_repo(root)
    (root / "evals/greet.suite.yml").write_text(suite + f"judge_model: {JUDGE}\n")
    return root


def test_compare_models_input_runs_each_model_and_leads_the_comment_with_the_table(
    action, tmp_path, github, fake_anthropic
):
    repo = greet_repo(tmp_path / "repo")
    fake_llm = fake_anthropic(two_models_script())
    run = action(
        repo,
        "pull_request_opened.json",
        "pull_request",
        github=github,
        anthropic=fake_llm,
        inputs={"compare_models": "model-a\nmodel-b"},
    )
    sent = fake_llm.requests
    assert run.code == 1, run.log  # model-b fails a gate
    target_models = sorted(r["model"] for r in sent if requested_tool(r) is None)
    assert target_models == ["model-a", "model-a", "model-b", "model-b"]
    assert {r["model"] for r in sent if requested_tool(r)} == {JUDGE}  # one judge for both
    (comment,) = marked(github, 12)
    body = comment["body"][len(MARKER) :].lstrip("\n")
    assert body.splitlines()[0] == "## evalkit: model-a vs model-b — 1 of 2 cases differ"
    assert f"The judge is the same for every model: {JUDGE}." in body
    assert body.index("1 of 2 cases differ") < body.index("### Model `model-a`") < body.index("### Model `model-b`")
    assert "judged fail" in body  # model-b's failing reason is shown under its own report
    assert "base branch" not in body  # the model is the variable: no base run
    assert run.outputs["verdict"] == "fail" and run.outputs["regressed"] == ""
    for model, verdict in (("model-a", "pass"), ("model-b", "fail")):
        assert json.loads((run.results / f"results.{model}.json").read_text())["verdict"] == verdict
        assert (run.results / f"junit.{model}.xml").is_file()
    assert "1 of 2 cases differ" in run.summary


def test_a_suites_own_compare_models_list_is_used_when_the_input_is_empty(action, tmp_path, github, fake_anthropic):
    repo = greet_repo(tmp_path / "repo", SUITE + "compare_models: [model-a, model-b]\n")
    fake_llm = fake_anthropic(two_models_script())
    run = action(repo, "pull_request_opened.json", "pull_request", github=github, anthropic=fake_llm)
    assert run.code == 1, run.log
    assert "model-a vs model-b" in marked(github, 12)[0]["body"]


def test_a_retired_model_in_compare_models_stops_before_any_call(action, tmp_path, github, fake_anthropic):
    repo = greet_repo(tmp_path / "repo")
    fake_llm = fake_anthropic(two_models_script())
    run = action(
        repo,
        "pull_request_opened.json",
        "pull_request",
        github=github,
        anthropic=fake_llm,
        inputs={"compare_models": "model-a, claude-2.0"},
    )
    assert fake_llm.request_count == 0
    assert run.code == 2, run.log
    assert "claude-2.0" in marked(github, 12)[0]["body"]


@pytest.mark.slow
def test_a_model_the_api_calls_retired_is_refused_though_the_worker_cannot_ask_the_api(
    action, tmp_path, github, fake_anthropic
):
    # The worker's key reaches only the Messages API: the entrypoint asks GET /v1/models with the
    # real key and hands the answer to the worker.
    repo = greet_repo(tmp_path / "repo")
    fake_llm = fake_anthropic(two_models_script())
    fake_llm.models = [{"id": "model-b", "lifecycle": "retired", "retires_at": "2026-01-01T00:00:00Z"}]
    run = action(
        repo,
        "pull_request_opened.json",
        "pull_request",
        github=github,
        anthropic=fake_llm,
        inputs={"compare_models": "model-a, model-b"},
    )
    assert fake_llm.request_count == 0 and fake_llm.models_requests == 1
    assert run.code == 2, run.log
    assert "model-b reached end of life on 2026-01-01" in marked(github, 12)[0]["body"]


@pytest.mark.parametrize(
    "inputs, fragment",
    [
        ({"compare_models": "model-a"}, "compare_models: 'model-a' is one model"),
        ({"compare_models": "a,b", "model": "a"}, "name the models to compare in compare_models only"),
        ({"compare_models": "a,b", "shard": "1/2"}, "cannot be sharded"),
    ],
)
def test_compare_models_input_mistakes_are_one_line_errors(inputs, fragment):
    env = {f"INPUT_{k.upper()}": v for k, v in inputs.items()}
    with pytest.raises(UsageError, match=fragment):
        parse_inputs(env)


def test_compare_models_input_is_split_like_every_list_input():
    env = {"INPUT_COMPARE_MODELS": "model-a, model-b  # the candidate\nmodel-a\n"}
    assert parse_inputs(env).compare_models == ("model-a", "model-b")


BASE_DUMPS_TO_ITS_OWN_FILE = ENV_TARGET.replace(
    'os.environ["EVALKIT_TEST_ENV_DUMP"]', 'os.environ["EVALKIT_TEST_ENV_DUMP"] + ".base"'
)


@pytest.mark.slow
def test_the_base_branchs_code_sees_no_secret_either(action, tmp_path, github, fake_anthropic):
    repo = tmp_path / "repo"
    base, _ = two_commits(repo, BASE_DUMPS_TO_ITS_OWN_FILE, ENV_TARGET, file="evals/envdump_target.py")
    github.set_pr_files(12, [{"filename": "other/x.py"}])
    dump = tmp_path / "env.json"
    fake_llm = fake_anthropic(Script())
    run = action(
        repo,
        pr_event(base),
        "pull_request",
        github=github,
        anthropic=fake_llm,
        extra_env={
            "EVALKIT_TEST_ENV_DUMP": str(dump),
            "PYTHONIOENCODING": "utf-8",
            "EVALKIT_TEST_NEEDLES": str(needles_file(tmp_path / "needles.json")),
        },
    )
    assert run.code == 0, run.log
    assert (run.results / "comparison.json").is_file()  # the base did run
    seen = json.loads(Path(str(dump) + ".base").read_text())
    for place in ("environ", "proc_self", "proc_parent"):
        for secret in RUNNER_SECRETS:
            assert secret not in json.dumps(seen[place]), (place, secret)
    assert seen["memory_hits"] == []
    assert seen["environ"]["ANTHROPIC_API_KEY"].startswith("evalkit-proxy-")
