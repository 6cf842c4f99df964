"""Which eval tests run: deselection by default, `-m eval`, naming their folder, `-k`, the skip reason."""

import pytest

pytest_plugins = ["pytester"]

EVAL_TESTS = """
import pytest

@pytest.mark.eval
@pytest.mark.parametrize("case", [{"id": "basic_hello_world"}, {"id": "fix_broken_code"}],
                         ids=lambda c: c["id"])
def test_code_generate(case):
    pass
"""


@pytest.fixture
def project(pytester):
    pytester.makepyfile(test_unit="def test_unit():\n    pass\n")
    pytester.mkdir("llm_eval")
    (pytester.path / "llm_eval" / "test_evals.py").write_text(EVAL_TESTS)
    return pytester


def test_pytest_alone_deselects_evals(project):
    result = project.runpytest()
    result.assert_outcomes(passed=1, deselected=2)
    result.stdout.fnmatch_lines(["*evalkit: 2 eval tests deselected; run them with `-m eval`*"])


def test_dash_m_eval_selects_only_evals(project):
    result = project.runpytest("-m", "eval", "-rs")
    result.assert_outcomes(skipped=2, deselected=1)


def test_skip_reason_names_the_missing_key(project):
    result = project.runpytest("-m", "eval", "-rs")
    result.stdout.fnmatch_lines(["SKIPPED*evalkit: no model key: ANTHROPIC_API_KEY is not set*"])


def test_dash_k_selects_one_case(project):
    result = project.runpytest("-m", "eval", "-k", "basic_hello_world", "-v")
    result.assert_outcomes(skipped=1, deselected=2)
    result.stdout.fnmatch_lines(["*test_code_generate[[]basic_hello_world[]] SKIPPED*"])


def test_naming_a_folder_of_evals_runs_them(project):
    # seed 001's way: `python -m pytest tests/llm_eval/ -v`, no -m, skipping cleanly without a key.
    result = project.runpytest("llm_eval", "-v", "-rs")
    result.assert_outcomes(skipped=2)
    result.stdout.fnmatch_lines(["*ANTHROPIC_API_KEY is not set*"])


def test_naming_a_mixed_folder_still_deselects(project):
    result = project.runpytest(str(project.path))
    result.assert_outcomes(passed=1, deselected=2)


def test_node_id_runs_that_eval(project):
    result = project.runpytest("llm_eval/test_evals.py::test_code_generate[fix_broken_code]", "-v")
    result.assert_outcomes(skipped=1)


def test_marker_expression_without_eval_keeps_them_deselected(project):
    result = project.runpytest("-m", "not slow")
    result.assert_outcomes(passed=1, deselected=2)
    result = project.runpytest("-m", "not eval")
    result.assert_outcomes(passed=1, deselected=2)


def test_ini_keep_runs_evals_with_pytest_alone(project):
    project.makeini("[pytest]\nevalkit_evals = keep\n")
    result = project.runpytest()
    result.assert_outcomes(passed=1, skipped=2)


def test_deselect_mode_needs_dash_m(project):
    result = project.runpytest("llm_eval", "--evalkit-evals=deselect")
    result.assert_outcomes(deselected=2)
    result = project.runpytest("llm_eval", "--evalkit-evals=deselect", "-m", "eval")
    result.assert_outcomes(skipped=2)


def test_empty_tier_setting_skips(project, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test")
    monkeypatch.setenv("SYSTEM_AGENT_MODELS_HIGH", "")
    result = project.runpytest("-m", "eval", "-rs")
    result.assert_outcomes(skipped=2, deselected=1)
    result.stdout.fnmatch_lines(["*SYSTEM_AGENT_MODELS_HIGH is empty: evals are switched off*"])


def test_marker_overrides_model_tiers_for_its_tests(pytester, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test")
    monkeypatch.setenv("SYSTEM_AGENT_MODELS_LOW", "env-low")
    pytester.makepyfile("""
        import pytest
        from evalkit.engine.agent_client import model_tiers

        pytestmark = pytest.mark.eval(models={"high": "suite-high"})

        def test_override():
            assert model_tiers() == {"high": "suite-high", "low": "env-low"}

        @pytest.mark.eval(models={"low": "test-low"})
        def test_closest_wins():
            assert model_tiers() == {"high": "suite-high", "low": "test-low"}
    """)
    pytester.runpytest("-m", "eval").assert_outcomes(passed=2)


def test_marker_is_registered_for_strict_markers(project):
    result = project.runpytest("--strict-markers", "--markers")
    result.stdout.fnmatch_lines(["@pytest.mark.eval: an LLM evaluation*"])
