"""Event fixtures match GitHub's webhook schemas and load into `Event`."""

from __future__ import annotations

import copy
import json

import jsonschema
import pytest
from github_helpers import actions_env, load_event_fixture

from evalkit.errors import UsageError
from evalkit.github.event import ZERO_SHA, load_event

FIXTURES = [
    ("pull_request_opened.json", "pull-request-opened"),
    ("pull_request_synchronize_fork.json", "pull-request-synchronize"),
    ("push.json", "push"),
    ("push_new_branch.json", "push"),
    ("workflow_dispatch.json", "workflow-dispatch"),
]


@pytest.mark.parametrize(("fixture", "webhook"), FIXTURES)
def test_fixture_is_a_valid_webhook_payload(openapi, fixture, webhook):
    openapi.validate_webhook(webhook, load_event_fixture(fixture))


def test_the_webhook_validator_does_reject_a_broken_payload(openapi):
    payload = copy.deepcopy(load_event_fixture("pull_request_opened.json"))
    del payload["pull_request"]["head"]
    with pytest.raises(jsonschema.ValidationError):
        openapi.validate_webhook("pull-request-opened", payload)


def test_pull_request_from_the_same_repo(tmp_path):
    event = load_event(actions_env(tmp_path, "pull_request", "pull_request_opened.json", GITHUB_BASE_REF="main"))
    assert (event.name, event.owner, event.repo, event.full_name) == (
        "pull_request",
        "octo-org",
        "hello",
        "octo-org/hello",
    )
    assert event.pr_number == 12 and event.is_pull_request
    assert event.is_fork is False
    assert event.base_ref == "main" and event.default_branch == "main"
    assert event.run_url == "https://github.com/octo-org/hello/actions/runs/987654321"


def test_pull_request_synchronize_from_a_fork(tmp_path):
    event = load_event(actions_env(tmp_path, "pull_request", "pull_request_synchronize_fork.json"))
    assert event.pr_number == 34
    assert event.is_fork is True
    assert event.base_ref == "main"  # from the payload when GITHUB_BASE_REF is missing


def test_pull_request_target_is_a_pull_request_too(tmp_path):
    event = load_event(actions_env(tmp_path, "pull_request_target", "pull_request_synchronize_fork.json"))
    assert event.is_pull_request and event.pr_number == 34 and event.is_fork


def test_deleted_fork_counts_as_a_fork(tmp_path):
    payload = load_event_fixture("pull_request_synchronize_fork.json")
    payload["pull_request"]["head"]["repo"] = None
    env = actions_env(tmp_path, "pull_request", "pull_request_synchronize_fork.json")
    (tmp_path / "event.json").write_text(json.dumps(payload))
    assert load_event(env).is_fork is True


def test_push(tmp_path):
    event = load_event(actions_env(tmp_path, "push", "push.json"))
    assert event.before == "1" * 40 and event.after == "2" * 40
    assert event.pr_number is None and not event.is_pull_request and not event.is_fork


def test_push_of_a_new_branch_has_a_zero_before(tmp_path):
    event = load_event(actions_env(tmp_path, "push", "push_new_branch.json"))
    assert event.before == ZERO_SHA


def test_workflow_dispatch_inputs(tmp_path):
    event = load_event(actions_env(tmp_path, "workflow_dispatch", "workflow_dispatch.json"))
    assert dict(event.inputs) == {"suites": "pace_ai", "repeats": "3"}
    assert event.pr_number is None and event.before is None


def test_event_is_frozen(tmp_path):
    event = load_event(actions_env(tmp_path, "push", "push.json"))
    with pytest.raises(AttributeError):
        event.name = "pull_request"  # type: ignore[misc]


def test_missing_repository_says_how_to_fix():
    with pytest.raises(UsageError, match="GITHUB_REPOSITORY"):
        load_event({})


def test_unreadable_event_file_is_a_usage_error(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(UsageError, match="GITHUB_EVENT_PATH"):
        load_event({"GITHUB_REPOSITORY": "o/r", "GITHUB_EVENT_PATH": str(bad)})


@pytest.mark.parametrize(
    ("name", "fixture", "expected"),
    [
        ("pull_request", "pull_request_opened.json", "2" * 40),  # the PR's head, not the test merge commit
        ("push", "push.json", "2" * 40),  # the pushed commit (`after`)
        ("workflow_dispatch", "workflow_dispatch.json", "9" * 40),  # the run's own commit
    ],
)
def test_head_sha_is_the_commit_a_check_run_belongs_to(tmp_path, name, fixture, expected):
    event = load_event(actions_env(tmp_path, name, fixture, GITHUB_SHA="9" * 40))
    assert event.head_sha == expected
