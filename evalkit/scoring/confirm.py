"""Confirm before blocking (a suite's `confirm_failures: N`): the judge is asked N more times about
the items it failed, and only those; each is then decided by the majority of all its answers, the
first ones included (a tie fails). A fail the judge gave once by chance becomes a pass; a fail it
gives every time stays a fail. A confirming call that fails is left out, never read as a pass."""

from __future__ import annotations

import asyncio

from evalkit.llm.client import BoundClient
from evalkit.results.intervals import majority
from evalkit.scoring.judge import ItemVerdict, JudgeOutcome, judge
from evalkit.scoring.judge_input import JudgeInput, JudgeSettings
from evalkit.scoring.structured import Route

# Sample numbers of the confirming calls (each its own cache entry), apart from judge_repeats' 1..20:
# 100 + k in a run; a sample s of its own (calibrate's repeats) confirms in its own block of 100.
CONFIRM_SAMPLES_FROM = 100


def confirming_sample(client: BoundClient, k: int) -> int:
    return CONFIRM_SAMPLES_FROM * (1 + client.sample) + k


async def confirm_failures(
    client: BoundClient, ask: JudgeInput, outcome: JudgeOutcome, settings: JudgeSettings, route: Route | None = None
) -> JudgeOutcome:
    """`outcome` with each item it failed re-decided by the majority of its votes and
    `settings.confirm` more answers; unchanged when that is 0, nothing failed, or the judge errored."""
    extra = settings.confirm
    failed = {
        cid: text
        for cid, text in ask.criteria.items()
        if cid in outcome.verdicts and outcome.verdicts[cid].verdict == "fail"
    }
    if extra <= 0 or outcome.error or not failed:
        return outcome
    more = await asyncio.gather(
        *(
            judge(client.sampled(confirming_sample(client, k)), ask.asking(failed), settings, route)
            for k in range(extra)
        )
    )
    answers = [o for o in more if not o.error]
    verdicts, votes = dict(outcome.verdicts), {cid: list(v) for cid, v in outcome.votes.items()}
    for cid in failed:
        first = votes.get(cid) or [outcome.verdicts[cid].verdict]
        added = [o.verdicts[cid] for o in answers]
        every = first + [v.verdict for v in added]
        decided = majority(every)
        reason = next((v.reason for v in added if v.verdict == decided), outcome.verdicts[cid].reason)
        tally = f"confirmed: {every.count('pass')}/{len(every)} judge votes pass"
        if len(added) < extra:
            tally += f"; {extra - len(added)} confirming call{'s' if extra - len(added) != 1 else ''} failed"
        verdicts[cid] = ItemVerdict(id=cid, reason=f"{reason} ({tally})", verdict=decided)  # type: ignore[arg-type]  # majority() returns pass or fail
        votes[cid] = every
    return JudgeOutcome(verdicts=verdicts, votes=votes)
