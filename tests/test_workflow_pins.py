"""Every workflow we write (`evalkit init`), document (README, docs) or use (.github) pins the
Node-24 release of each action by full commit SHA, the version named in a comment; no Node-20
release (GitHub removed Node 20 from its runners on 2026-09-16) appears anywhere in them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from evalkit.cli.scaffold import init_project

ROOT = Path(__file__).resolve().parents[1]

# What we pin: each SHA read with `git rev-list -n1 <tag>` from the action's own repository, its
# action.yml at that tag saying `using: node24` (read 2026-11-29).
CURRENT = {
    "actions/checkout": ("v7.0.1", "3d3c42e5aac5ba805825da76410c181273ba90b1"),
    "actions/setup-python": ("v6.3.0", "ece7cb06caefa5fff74198d8649806c4678c61a1"),
    "actions/upload-artifact": ("v7.0.0", "bbbca2ddaa5d8feaa63e36b76fdaad77386f024f"),
    "actions/download-artifact": ("v8.0.1", "3e5f45b2cfb9172054b4087a40e8e0b5a5461e7c"),
}

# Node-20 releases (action.yml `using: node20`), each SHA read the same way on 2026-11-29. None of them
# runs on GitHub's runners since 2026-09-16.
NODE20 = {
    "actions/checkout": {
        "v4.0.0": "1e31de5234b9f8995739874a8ce0492dc87873e2",
        "v4.1.0": "8ade135a41bc03ea155e62e844d188df1ea18608",
        "v4.1.1": "b4ffde65f46336ab88eb53be808477a3936bae11",
        "v4.1.2": "9bb56186c3b09b4f86b1c65136769dd318469633",
        "v4.1.3": "1d96c772d19495a3b5c517cd2bc0cb401ea0529f",
        "v4.1.4": "0ad4b8fadaa221de15dcec353f45205ec38ea70b",
        "v4.1.5": "44c2b7a8a4ea60a981eaca3cf939b5f4305c123b",
        "v4.1.6": "a5ac7e51b41094c92402da3b24376905380afc29",
        "v4.1.7": "692973e3d937129bcbf40652eb9f2f61becf3332",
        "v4.2.0": "d632683dd7b4114ad314bca15554477dd762a938",
        "v4.2.1": "eef61447b9ff4aafe5dcd4e0bbf5d482be7e7871",
        "v4.2.2": "11bd71901bbe5b1630ceea73d27597364c9af683",
        "v4.3.0": "08eba0b27e820071cde6df949e0beb9ba4906955",
        "v4.3.1": "34e114876b0b11c390a56381ad16ebd13914f8d5",
        "v4.4.0": "11d5960a326750d5838078e36cf38b85af677262",
    },
    "actions/setup-python": {
        "v5.0.0": "0a5c61591373683505ea898e09a3ea4f39ef2b9c",
        "v5.1.0": "82c7e631bb3cdc910f68e0081d67478d79c6982d",
        "v5.1.1": "39cd14951b08e74b54015e9e001cdefcf80e669f",
        "v5.2.0": "f677139bbe7f9c59b41e40162b753c062f5d49a3",
        "v5.3.0": "0b93645e9fea7318ecaed2b359559ac225c90a2b",
        "v5.4.0": "42375524e23c412d93fb67b49958b491fce71c38",
        "v5.5.0": "8d9ed9ac5c53483de85588cdf95a591a75ab9f55",
        "v5.6.0": "a26af69be951a213d495a4c3e4e4022e16d87065",
    },
    "actions/upload-artifact": {
        "v4.0.0": "c7d193f32edcb7bfad88892161225aeda64e9392",
        "v4.1.0": "1eb3cb2b3e0f29609092a73eb033bb759a334595",
        "v4.2.0": "694cdabd8bdb0f10b2cea11669e1bf5453eed0a6",
        "v4.3.0": "26f96dfa697d77e81fd5907df203aa23a56210a8",
        "v4.3.1": "5d5d22a31266ced268874388b861e4b58bb5c2f3",
        "v4.3.2": "1746f4ab65b179e0ea60a494b83293b640dd5bba",
        "v4.3.3": "65462800fd760344b1a7b4382951275a0abb4808",
        "v4.3.4": "0b2256b8c012f0828dc542b3febcab082c67f72b",
        "v4.3.5": "89ef406dd8d7e03cfd12d9e0a4a378f454709029",
        "v4.3.6": "834a144ee995460fba8ed112a2fc961b36a5ec5a",
        "v4.4.0": "50769540e7f4bd5e21e526ee35c689e35e0d6874",
        "v4.4.1": "604373da6381bf24206979c74d06a550515601b9",
        "v4.4.2": "84480863f228bb9747b473957fcc9e309aa96097",
        "v4.4.3": "b4b15b8c7c6ac21ea08fcf65892d2ee8f75cf882",
        "v4.5.0": "6f51ac03b9356f520e9adb1b1b7802705f340c2b",
        "v4.6.0": "65c4c4a1ddee5b72f698fdd19549f0f0fb45cf08",
        "v4.6.1": "4cec3d8aa04e39d1a68397de0c4cd6fb9dce8ec1",
        "v4.6.2": "ea165f8d65b6e75b540449e92b4886f43607fa02",
    },
    "actions/download-artifact": {
        "v4.0.0": "7a1cd3216ca9260cd8022db641d960b1db4d1be4",
        "v4.1.0": "f44cd7b40bfd40b6aa1cc1b9b5b7bf03d3c67110",
        "v4.1.1": "6b208ae046db98c579e8a3aa621ab581ff575935",
        "v4.1.2": "eaceaf801fd36c7dee90939fad912460b18a1ffe",
        "v4.1.3": "87c55149d96e628cc2ef7e6fc2aab372015aec85",
        "v4.1.4": "c850b930e6ba138125429b7e5c93fc707a7f8427",
        "v4.1.5": "8caf195ad4b1dee92908e23f56eeb0696f1dd42d",
        "v4.1.6": "9c19ed7fe5d278cd354c7dfd5d3b88589c7e2395",
        "v4.1.7": "65a9edc5881444af0b9093a5e628f2fe47ea3b2e",
        "v4.1.8": "fa0a91b85d4f404e444e00e005971372dc801d16",
        "v4.1.9": "cc203385981b70ca67e1cc392babf9cc229d5806",
        "v4.2.0": "b14cf4c92620c250e1c074ab0a5800e37df86765",
        "v4.2.1": "95815c38cf2ff2164869cbab79da8d1f422bc89e",
        "v4.3.0": "d3f86a106a0bac45b974a628896c90dbdf5c8093",
    },
}
NODE20_MAJORS = {
    "actions/checkout": "v4",
    "actions/setup-python": "v5",
    "actions/upload-artifact": "v4",
    "actions/download-artifact": "v4",
}

USES = re.compile(r"uses:\s*([\w.-]+/[\w.-]+)@([\w.-]+)[ \t]*(?:#[ \t]*(\S+))?")
OUR_OWN = "org/eval-action"  # the placeholder for this Action's own release, pinned by the reader


def pin_problems(text: str) -> list[str]:
    """What is wrong with the action pins in `text`: a Node-20 SHA or version anywhere, or a use of an
    action that is not our current pin (full SHA, its version in a comment)."""
    problems = [
        f"Node-20 {action} {version} ({sha[:12]})"
        for action, releases in NODE20.items()
        for version, sha in releases.items()
        if sha in text
    ]
    for action, ref, comment in USES.findall(text):
        if action == OUR_OWN:
            continue
        old = NODE20.get(action, {})
        if ref in old or ref == NODE20_MAJORS.get(action) or comment in old:
            problems.append(f"Node-20 {action}@{ref} # {comment}")
        elif action not in CURRENT:
            problems.append(f"{action}@{ref}: not an action this test knows; add its pin to CURRENT")
        elif (comment, ref) != CURRENT[action]:
            problems.append(f"{action}@{ref} # {comment}: pin {action} at {CURRENT[action][1]} # {CURRENT[action][0]}")
    return problems


def pinned_files() -> list[Path]:
    return sorted(
        {
            ROOT / "README.md",
            ROOT / "evalkit" / "cli" / "scaffold.py",
            *ROOT.glob("docs/**/*.md"),
            *ROOT.glob(".github/**/*.yml"),
            *ROOT.glob(".github/**/*.yaml"),
        }
    )


@pytest.mark.parametrize("path", pinned_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_node20_release_and_every_pin_current(path):
    assert not pin_problems(path.read_text(encoding="utf-8")), path


def test_the_workflow_init_writes_pins_the_current_releases(tmp_path):
    made = init_project(tmp_path)
    workflow = next(p for p in made.written if p.parent.name == "workflows")
    text = workflow.read_text(encoding="utf-8")
    assert not pin_problems(text), text
    assert f"actions/checkout@{CURRENT['actions/checkout'][1]}" in text


def test_the_docs_and_workflows_use_the_actions_we_pin():
    text = "\n".join(p.read_text(encoding="utf-8") for p in pinned_files())
    used = {action for action, _, _ in USES.findall(text)} - {OUR_OWN}
    assert used == set(CURRENT), used  # a pin nobody uses any more goes from CURRENT too


@pytest.mark.parametrize(
    "line, found",
    [
        (
            "- uses: actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683  # v4.2.2",
            "Node-20 actions/checkout v4.2.2",
        ),
        ("- uses: actions/checkout@v4", "Node-20 actions/checkout@v4"),
        (
            "- uses: actions/setup-python@ece7cb06caefa5fff74198d8649806c4678c61a1  # v5.6.0",
            "Node-20 actions/setup-python",
        ),
        ("- uses: actions/upload-artifact@v7", "pin actions/upload-artifact at"),
        ("- uses: someone/else@0123456789012345678901234567890123456789  # v1", "not an action this test knows"),
    ],
)
def test_the_check_finds_old_and_unpinned_uses(line, found):
    assert any(found in p for p in pin_problems(line)), pin_problems(line)
