"""CodeGenerateAgent evals (seed 003's pattern). Run: pytest suites/help_agents/evals -m eval -v"""

import pytest
from help_agents import CodeGenerateAgent, CodeGenerateInput

from evalkit import load_fixtures, run_checks


@pytest.mark.eval
@pytest.mark.parametrize("case", load_fixtures("code_generate.yml"), ids=lambda c: c["id"])
def test_code_generate(case):
    agent = CodeGenerateAgent(input=CodeGenerateInput(**case["input"]))
    result = agent.run()
    run_checks(result, case["checks"])
