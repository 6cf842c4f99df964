"""Before any call, a conversation case's problems are found: a callable target that takes no `messages`,
a turn whose template names what it does not have (with a stand-in for each earlier reply)."""

from __future__ import annotations

import pytest

from evalkit.engine import load_suites, preflight
from evalkit.errors import SuiteError

TARGETS = """
def plain(case_input):
    return "x"

def talks(case_input, messages):
    return "x"

def anything(case_input, client, **kwargs):
    return "x"
"""


@pytest.mark.parametrize(
    "target, conversation, line, message",
    [
        (
            "talk_targets:plain",
            '[{user: "hi"}]',
            3,
            "target talk_targets:plain takes no `messages` parameter, which a conversation case needs",
        ),
        ("talk_targets:talks", '[{user: "hi"}, {user: "{{ outputs[1] }}"}]', 4, "turn 2: template: "),
        ("talk_targets:talks", '[{user: "{{ nope }}"}]', 4, "turn 1: template: 'nope'"),
        (
            "{prompt: 'Plan for {{ runner }}'}",
            '[{user: "{{ prompt }}"}]',
            4,
            "`prompt` (the target's template) does not render for this case: prompt template: 'runner' is undefined",
        ),
    ],
)
def test_preflight_finds_a_conversation_s_problems(write, target, conversation, line, message):
    """A turn's problem names the turn's line (here the flow list's); the target's, the case's."""
    write("talk_targets.py", TARGETS)
    suites = load_suites([write("s.yml", f"target: {target}\ncases:\n  - id: c\n    conversation: {conversation}\n")])
    with pytest.raises(SuiteError) as info:
        preflight(suites)
    problems = [p for p in info.value.problems if message in p.message]
    assert problems and all(p.case_id == "c" and p.line == line for p in problems), str(info.value)


@pytest.mark.parametrize("target", ["talk_targets:talks", "talk_targets:anything", "{prompt: 'Plan for {{ runner }}'}"])
def test_a_ready_conversation_passes(write, target):
    write("talk_targets.py", TARGETS)
    suites = load_suites(
        [
            write(
                "s.yml",
                f"""target: {target}
cases:
  - id: c
    conversation: [{{user: "hi"}}, {{user: "you said {{{{ outputs[0] }}}}"}}, {{assistant: "ok"}}, {{user: "{{{{ outputs[1] }}}}"}}]
  - id: plain
    input: {{runner: ada}}
""",
            )
        ]
    )
    assert preflight(suites) == suites


def test_a_target_s_template_that_does_not_render_is_no_problem_for_a_turn_that_does_not_use_it(write):
    suites = load_suites(
        [
            write(
                "s.yml",
                "target: {prompt: 'Plan for {{ runner }}'}\ncases: [{id: c, conversation: [{user: 'hello'}]}]\n",
            )
        ]
    )
    assert preflight(suites) == suites
