"""Refresh evalkit's own model-lifecycle table (evalkit/llm/lifecycle.json) from the API.

    ANTHROPIC_API_KEY=... python scripts/refresh_lifecycle.py

Asks `GET /v1/models` (the SDK's public `models.list()`) and writes every model it lists as
deprecated or retired, with its `retires_at` date, dated today. Models the table knows and the
API no longer lists (retired long ago) are kept, as the API may drop them."""

from __future__ import annotations

import json
import sys
from datetime import date
from pathlib import Path

from evalkit.llm.providers.anthropic import fetch_lifecycles

TABLE = Path(__file__).resolve().parents[1] / "evalkit" / "llm" / "lifecycle.json"


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
    table["source"] = ("Anthropic's GET /v1/models, read " + table["as_of"] + ", over the earlier table. "
                       "Refresh with `python scripts/refresh_lifecycle.py` (needs ANTHROPIC_API_KEY).")
    table["models"] = dict(sorted(models.items(), key=lambda kv: (kv[1]["retires_at"] or "", kv[0])))
    TABLE.write_text(json.dumps(table, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {TABLE}: {len(models)} deprecated or retired models, as of {table['as_of']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
