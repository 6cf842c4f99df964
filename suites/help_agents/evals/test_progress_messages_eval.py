"""ProgressMessagesAgent evals (seed 003's pattern). Run: pytest suites/help_agents/evals -m eval -v"""

import pytest
from help_agents import ProgressMessagesAgent, ProgressMessagesInput

from evalkit import load_fixtures, run_checks


@pytest.mark.eval
@pytest.mark.parametrize("case", load_fixtures("progress_messages.yml"), ids=lambda c: c["id"])
def test_progress_messages(case):
    agent = ProgressMessagesAgent(input=ProgressMessagesInput(**case["input"]))
    result = agent.run()
    run_checks(result, case["checks"])
