"""Refresh evalkit's own model tables from the API: the lifecycles (evalkit/llm/lifecycle.json) and
the capabilities (evalkit/llm/capabilities.json).

    ANTHROPIC_API_KEY=... python scripts/refresh_lifecycle.py

Asks `GET /v1/models` (the SDK's public `models.list()`) once. Lifecycles: every model it lists as
deprecated or retired, with its `retires_at` date, dated today; models the table knows and the API
no longer lists (retired long ago) are kept, as the API may drop them. Capabilities: each listed
model's structured outputs, thinking types, effort levels and max_tokens are rewritten from the API's answer;
what the API does not list (thinking default, forced tool, sampling, prefill, Legacy) is kept, and
a model new to the table gets only what the API says (evalkit derives the rest from the published
rules, see evalkit/llm/capabilities.py): review it and add the rest by hand, with a source."""

from __future__ import annotations

import json
import sys
from datetime import date
from pathlib import Path

from evalkit.llm.providers.anthropic import fetch_lifecycles

TABLE = Path(__file__).resolve().parents[1] / "evalkit" / "llm" / "lifecycle.json"
CAPABILITIES = TABLE.with_name("capabilities.json")
API_FIELDS = ("structured_outputs", "thinking", "effort", "max_tokens")  # what GET /v1/models says of a model


def main() -> int:
    try:
        answer = fetch_lifecycles(timeout=30)
    except Exception as exc:  # noqa: BLE001 - said in one line
        print(f"refresh_lifecycle: the API could not be asked: {exc}", file=sys.stderr)
        return 2
    table = json.loads(TABLE.read_text(encoding="utf-8"))
    models = dict(table["models"])
    for model, info in answer.items():
        if info["lifecycle"] == "active" and not info["retires_at"]:
            models.pop(model, None)  # the API's word: current again
        else:
            models[model] = {"lifecycle": info["lifecycle"], "retires_at": info["retires_at"]}
    table["as_of"] = date.today().isoformat()
    table["source"] = (
        "Anthropic's GET /v1/models, read " + table["as_of"] + ", over the earlier table. "
        "Refresh with `python scripts/refresh_lifecycle.py` (needs ANTHROPIC_API_KEY)."
    )
    table["models"] = dict(sorted(models.items(), key=lambda kv: (kv[1]["retires_at"] or "", kv[0])))
    TABLE.write_text(json.dumps(table, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {TABLE}: {len(models)} deprecated or retired models, as of {table['as_of']}")
    refreshed, added = refresh_capabilities(answer)
    print(
        f"wrote {CAPABILITIES}: {refreshed} models refreshed from the API"
        + (f"; new, to review: {', '.join(added)}" if added else "")
    )
    return 0


def refresh_capabilities(answer: dict[str, dict]) -> tuple[int, list[str]]:
    """Rewrite capabilities.json's API fields from the API's answer; the count refreshed and the models added."""
    caps = json.loads(CAPABILITIES.read_text(encoding="utf-8"))
    refreshed, added = 0, []
    for model, info in answer.items():
        said = {k: info[k] for k in API_FIELDS if info.get(k) is not None}
        if not said or info.get("lifecycle") == "retired":
            continue
        if model not in caps["models"]:
            added.append(model)
        caps["models"][model] = {**caps["models"].get(model, {}), **said}
        refreshed += 1
    caps["as_of"] = date.today().isoformat()
    source = f"GET /v1/models, read {caps['as_of']}: structured_outputs, thinking and effort of the models it lists"
    caps["sources"] = [s for s in caps["sources"] if not s.startswith("GET /v1/models, read")] + [source]
    lines = ["{"] + [f" {json.dumps(k)}: {json.dumps(v)}," for k, v in caps.items() if k != "models"]
    lines.append(
        ' "models": {\n  '
        + ",\n  ".join(f"{json.dumps(m)}: {json.dumps(v)}" for m, v in caps["models"].items())
        + "\n }"
    )
    CAPABILITIES.write_text("\n".join(lines) + "\n}\n", encoding="utf-8")
    return refreshed, added


if __name__ == "__main__":
    sys.exit(main())
