"""What `evalkit models` says of each model beyond its dates and price: how evalkit will ask it for a
verdict (evalkit.scoring.structured), whether it thinks by default, whether it takes sampling
parameters, and whether Anthropic calls it Legacy; and where those facts came from."""

from __future__ import annotations

import typing

from evalkit.llm.capabilities import Capabilities, table_info
from evalkit.llm.model_lifecycle import LifecycleTable
from evalkit.scoring.structured import NoRoute, route_for


def sdk_models() -> list[str]:
    """Every model id of the installed SDK's public `anthropic.types.Model` (a Literal, alone or in a Union)."""
    from anthropic.types import Model  # loads only where a model list is wanted

    found: list[str] = []

    def walk(tp: object) -> None:
        for arg in typing.get_args(tp):
            if isinstance(arg, str):
                found.append(arg)
            else:
                walk(arg)

    walk(Model)
    return list(dict.fromkeys(found))


def how_asked(caps: Capabilities) -> dict[str, str]:
    """`evalkit models`' columns for a model with these capabilities."""
    said = {True: "yes", False: "no", None: "unknown"}
    try:
        route = route_for(caps).describe() + ("" if caps.known else " (not in the table)")
    except NoRoute as exc:
        route = f"none: {exc}"
    return {
        "verdict asked by": route,
        "thinks by default": said[caps.thinks_by_default],
        "sampling": said[caps.sampling],
        "legacy": f"yes: use {caps.legacy}" if caps.legacy else "no",
    }


def table_note(lifecycles: LifecycleTable) -> str:
    """Where the capabilities came from: the API's answer, and evalkit's dated table with its sources."""
    info = table_info()
    answer = lifecycles.api_answer()
    head = (
        f"capabilities: {answer[1]} (GET /v1/models) over evalkit's table of {info['as_of']}"
        if answer
        else f"capabilities: evalkit's table of {info['as_of']} (set ANTHROPIC_API_KEY to ask the API)"
    )
    return head + "; sources: " + "; ".join(info["sources"])
