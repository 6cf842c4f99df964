"""`--shard I/N` and `evalkit merge`: the shards of a run merged give the unsharded verdicts."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from evalkit.engine import load_suites, make_client, merge_and_save, run
from evalkit.errors import UsageError
from evalkit.run.runner import RunOptions
from evalkit.run.sharding import Shard, parse_shard, shard_members
from evalkit.testing.scripted import ScriptedProvider

ROOT = Path(__file__).resolve().parents[2]
PACE_AI = ROOT / "suites" / "pace_ai"
COACH = PACE_AI / "suite.yml"  # the folder also holds the agent suite, whose replies demo.py does not script
HELP_AGENTS = ROOT / "suites" / "help_agents"


def _script(folder: Path, variant: str):
    spec = importlib.util.spec_from_file_location(f"{folder.name}_demo_for_shards", folder / "demo.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    script = module.script(variant)
    return script


def _run(shard: Shard | None):
    # a fresh provider per job, as on separate machines: nothing is shared between shards
    script = _script(PACE_AI, "fail").extend(_script(HELP_AGENTS, "pass"))
    client = make_client(ScriptedProvider(script), no_cache=True, deprecated=None)
    return run(load_suites([COACH, HELP_AGENTS]), client, RunOptions(shard=shard))


@pytest.fixture(scope="module")
def unsharded():
    return _run(None)


def test_parse_shard():
    assert parse_shard("2/3") == Shard(2, 3) and str(parse_shard(" 1 / 4 ")) == "1/4"
    for bad in ("0/3", "4/3", "3", "a/b", ""):
        with pytest.raises(UsageError, match="not of the form I/N"):
            parse_shard(bad)


def test_shards_partition_the_cases_deterministically_and_balanced():
    suites = load_suites([COACH, HELP_AGENTS])
    shares = [shard_members(suites, Shard(i, 3), []) for i in (1, 2, 3)]
    everything = {(str(s.path), c.id) for s in suites for c in s.cases}
    assert set().union(*shares) == everything and sum(map(len, shares)) == len(everything)
    assert shares == [shard_members(suites, Shard(i, 3), []) for i in (1, 2, 3)]
    runs = {(str(s.path), c.id): c.repeats for s in suites for c in s.cases}
    loads = [sum(runs[m] for m in share) for share in shares]
    assert max(loads) - min(loads) <= max(runs.values())


@pytest.mark.slow
def test_three_shards_merged_equal_the_unsharded_run(unsharded, tmp_path):
    paths = []
    for i in (1, 2, 3):
        report = _run(Shard(i, 3))
        assert report.shard == f"{i}/3" and all(not s.comparisons for s in report.suites)
        paths.append(tmp_path / f"shard-{i}.json")
        report.save(paths[-1])
    merged = merge_and_save(
        [str(p) for p in reversed(paths)], tmp_path / "merged.json", markdown_path=tmp_path / "merged.md"
    )
    assert merged.verdict == unsharded.verdict == "fail"
    for got, want in zip(merged.suites, unsharded.suites, strict=True):
        assert got.path == want.path and got.verdict == want.verdict
        assert [(c.id, c.verdict, c.reasons) for c in got.cases] == [(c.id, c.verdict, c.reasons) for c in want.cases]
        assert [c.model_dump() for c in got.comparisons] == [c.model_dump() for c in want.comparisons]
        for verdict in ("pass", "fail", "error", "skipped"):
            assert got.count(verdict) == want.count(verdict)
    assert merged.suites[0].name == "pace_ai" and len(merged.suites[0].comparisons) >= 10  # computed at merge
    assert any(c.status == "fail" for c in merged.suites[0].comparisons)
    # Every request is counted once, as a call or (when shared within one job) a hit.
    assert merged.usage.calls + merged.usage.cache_hits == unsharded.usage.calls + unsharded.usage.cache_hits
    assert (tmp_path / "merged.md").read_text().strip()


def test_merge_refuses_an_incomplete_or_mixed_set(tmp_path, unsharded):
    one = _run(Shard(1, 2))
    one.save(tmp_path / "a.json")
    with pytest.raises(UsageError, match="shard 2/2 missing"):
        merge_and_save([str(tmp_path / "a.json")], tmp_path / "m.json")
    with pytest.raises(UsageError, match="given twice"):
        merge_and_save([str(tmp_path / "a.json")] * 2, tmp_path / "m.json")
    unsharded.save(tmp_path / "whole.json")
    with pytest.raises(UsageError, match="not the results of a sharded run"):
        merge_and_save([str(tmp_path / "whole.json")], tmp_path / "m.json")


GREET = """
name: greet
target: {prompt: "Greet {{ name }} politely."}
model: claude-haiku-4-5-20251001
cases:
  - {id: ada, input: {name: Ada}, checks: [{type: contains, value: Ada}]}
  - {id: bob, input: {name: Bob}, checks: [{type: contains, value: Bob}]}
  - {id: cy, input: {name: Cy}, checks: [{type: contains, value: Cy}]}
"""


def test_cli_shards_then_merge(write, tmp_path, fake_anthropic, anthropic_env):
    from click.testing import CliRunner

    from evalkit.cli.commands import main
    from evalkit.testing.script import Script

    suite = write("s.yml", GREET)
    script = Script().reply("Hello Ada", prompt="Ada").reply("Goodbye", prompt="Bob").reply("Hi Cy", prompt="Cy")
    fake = fake_anthropic(script)
    env = anthropic_env(fake)
    codes = [
        CliRunner()
        .invoke(main, ["run", str(suite), "--shard", f"{i}/2", "-o", str(tmp_path / f"{i}.json")], env=env)
        .exit_code
        for i in (1, 2)
    ]
    assert sorted(codes) == [0, 1]  # bob's shard fails, the other passes
    result = CliRunner().invoke(
        main, ["merge", str(tmp_path / "1.json"), str(tmp_path / "2.json"), "-o", str(tmp_path / "all.json")]
    )
    assert result.exit_code == 1, result.output
    assert "greet: 2 passed, 1 failed" in result.output
    bad = CliRunner().invoke(main, ["merge", str(tmp_path / "1.json")])
    assert bad.exit_code == 2 and "shard 2/2 missing" in bad.output
