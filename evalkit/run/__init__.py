"""One run: the runner's orchestration, targets, sharding, the case queue and user code's calls."""

from __future__ import annotations

from typing import TYPE_CHECKING

from evalkit._runtime.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from evalkit.run.conversation import render_turn, size, target_prompt
    from evalkit.run.model_fit import fit_warnings, refuse_unfit
    from evalkit.run.options import RunOptions
    from evalkit.run.runner import Runner
    from evalkit.run.sharding import parse_shard, shard_members
    from evalkit.run.targets import CaseTarget, TargetCall, TargetResult, prompt_request, resolve_target
    from evalkit.run.tool_loop import ToolBox

# What the other rooms (and a team's code) use of this one; each name loads its module on first use.
__all__ = [
    "CaseTarget",
    "RunOptions",
    "Runner",
    "TargetCall",
    "TargetResult",
    "ToolBox",
    "fit_warnings",
    "parse_shard",
    "prompt_request",
    "refuse_unfit",
    "render_turn",
    "resolve_target",
    "shard_members",
    "size",
    "target_prompt",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "render_turn": "evalkit.run.conversation",
        "size": "evalkit.run.conversation",
        "target_prompt": "evalkit.run.conversation",
        "fit_warnings": "evalkit.run.model_fit",
        "refuse_unfit": "evalkit.run.model_fit",
        "RunOptions": "evalkit.run.options",
        "Runner": "evalkit.run.runner",
        "parse_shard": "evalkit.run.sharding",
        "shard_members": "evalkit.run.sharding",
        "CaseTarget": "evalkit.run.targets",
        "TargetCall": "evalkit.run.targets",
        "TargetResult": "evalkit.run.targets",
        "ToolBox": "evalkit.run.tool_loop",
        "prompt_request": "evalkit.run.targets",
        "resolve_target": "evalkit.run.targets",
    },
)

del annotations, TYPE_CHECKING, lazy_exports
