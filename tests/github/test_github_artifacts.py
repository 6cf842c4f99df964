"""Workflow artifacts through the REST API against the loopback fake: the newest unexpired one of a
name, its archive fetched across GitHub's redirect without the token."""

from __future__ import annotations

import pytest

from evalkit.github.api import GitHubAPI, GitHubAPIError
from evalkit.github.artifacts import artifact_files, branch_artifacts


def test_the_newest_unexpired_artifact_of_a_name_is_read_without_sending_the_token_to_storage(fake_github):
    gh = fake_github(token="t0ken")
    gh.add_artifact("evalkit-base-abc", {"keys.json": b"old"})
    gh.add_artifact("evalkit-base-abc", {"keys.json": b"new", "results.json": b"{}"})
    gh.add_artifact("evalkit-base-abc", {"keys.json": b"gone"}, expired=True)
    gh.add_artifact("evalkit-base-def", {"keys.json": b"other"})
    api = GitHubAPI("t0ken", gh.url)
    [found] = branch_artifacts(api, "octo-org", "hello", "evalkit-base-abc", branch="main")
    assert artifact_files(api, "octo-org", "hello", found) == {"keys.json": b"new", "results.json": b"{}"}
    assert branch_artifacts(api, "octo-org", "hello", "evalkit-base-none", branch="main") == []
    storage = [r for r in gh.requests if r.path.startswith("/_storage/")]
    assert len(storage) == 1 and "Authorization" not in storage[0].headers


def test_the_fake_refuses_what_github_refuses(fake_github):
    gh = fake_github(token="t0ken", actions_read=False)
    gh.add_artifact("a", {"x": b"1"})
    with pytest.raises(GitHubAPIError) as err:
        branch_artifacts(GitHubAPI("t0ken", gh.url), "octo-org", "hello", "a", branch="main")
    assert err.value.status == 403  # the job lacks `actions: read`
    gh = fake_github(token="t0ken")
    art = gh.add_artifact("a", {"x": b"1"})
    import urllib.error
    import urllib.request

    # a client that follows the redirect with the token (urllib's default) is refused by the storage
    req = urllib.request.Request(
        f"{gh.url}/repos/octo-org/hello/actions/artifacts/{art['id']}/zip", headers={"Authorization": "Bearer t0ken"}
    )
    with pytest.raises(urllib.error.HTTPError) as http:
        urllib.request.urlopen(req, timeout=60)
    assert http.value.code == 400


def test_a_branch_s_artifacts_are_those_its_own_runs_uploaded_newest_first(fake_github):
    from evalkit.github.artifacts import branch_artifacts

    gh = fake_github(token="t0ken")
    old = gh.add_artifact("evalkit-history", {"history.sqlite": b"1"})
    gh.add_artifact("evalkit-history", {"history.sqlite": b"pr"}, head_branch="feature")
    gh.add_artifact("evalkit-history", {"history.sqlite": b"fork"}, fork=True)  # a fork's own "main"
    new = gh.add_artifact("evalkit-history", {"history.sqlite": b"2"})
    gh.add_artifact("evalkit-history", {"history.sqlite": b"3"}, expired=True)
    api = GitHubAPI("t0ken", gh.url)
    found = branch_artifacts(api, "octo-org", "hello", "evalkit-history", branch="main", last=3)
    assert [a["id"] for a in found] == [new["id"], old["id"]]
    assert [a["id"] for a in branch_artifacts(api, "octo-org", "hello", "evalkit-history", branch="main")] == [
        new["id"]
    ]
    assert branch_artifacts(api, "octo-org", "hello", "evalkit-history", branch="develop") == []


def test_base_results_are_read_only_from_the_default_branchs_own_runs(fake_github):
    # A pull request's workflow can upload `evalkit-base-<sha>` too: made-up base results must never stand
    # for the base (a regression would read as "already failing on the base").
    from evalkit.action.saved_base import artifact_name, saved_artifact
    from evalkit.github.event import Event

    commit = "a" * 40
    event = Event(name="pull_request", owner="octo-org", repo="hello", default_branch="main")
    gh = fake_github(token="t0ken")
    api = GitHubAPI("t0ken", gh.url)
    gh.add_artifact(artifact_name(commit), {"keys.json": b"pr"}, head_branch="feature")
    gh.add_artifact(artifact_name(commit), {"keys.json": b"fork"}, fork=True)
    assert saved_artifact(api, event, commit) is None
    assert saved_artifact(api, Event(name="pull_request", owner="octo-org", repo="hello"), commit) is None
    gh.add_artifact(artifact_name(commit), {"keys.json": b"main"})
    gh.add_artifact(artifact_name(commit), {"keys.json": b"pr again"}, head_branch="feature")
    found = saved_artifact(api, event, commit)
    assert found is not None and artifact_files(api, "octo-org", "hello", found) == {"keys.json": b"main"}
