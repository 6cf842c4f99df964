"""Write the docs' generated parts from their sources, or check that the committed ones are current.

- docs/action.md, between its GENERATED markers: the Action's inputs and outputs, from action.yml;
- docs/checks.md, between its GENERATED markers: the check types, from `evalkit schema` (which lists
  every check the registry holds, with its arguments and its docstring);
- docs/reference/suite-schema.md, the whole page: the suite format, from `evalkit schema`.

    python scripts/gen_docs.py            rewrite them
    python scripts/gen_docs.py --check    exit 1, naming each stale file, when a rewrite would change one
                                          (tests/docs/test_generated_docs.py runs this)
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
SCHEMA_PAGE = DOCS / "reference" / "suite-schema.md"
BEGIN = "<!-- BEGIN GENERATED: {name} (scripts/gen_docs.py writes this part; edit the source, then run it) -->"
END = "<!-- END GENERATED: {name} -->"


def cell(text: Any) -> str:
    """One Markdown table cell: a single line, pipes escaped, and `*` outside code spans taken literally
    (a docstring's "promis*" is a pattern, not emphasis)."""
    parts = " ".join(str(text).split()).replace("|", "\\|").split("`")
    return "`".join(part if i % 2 else part.replace("*", "\\*") for i, part in enumerate(parts))


def code(value: Any) -> str:
    text = json.dumps(value) if not isinstance(value, str) or not value else value
    return f"`{text}`" if "`" not in text else f"`` {text} ``"


# -- the Action --------------------------------------------------------------------------------


def action_tables(action_yml: Path) -> dict[str, str]:
    meta = yaml.safe_load(action_yml.read_text(encoding="utf-8"))
    inputs = ["| input | default | description |", "|---|---|---|"]
    for name, spec in meta.get("inputs", {}).items():
        default = spec.get("default", "")
        shown = code(str(default)) if default != "" else '`""`'
        inputs.append(f"| `{name}` | {shown} | {cell(spec.get('description', ''))} |")
    outputs = ["| output | description |", "|---|---|"]
    for name, spec in meta.get("outputs", {}).items():
        outputs.append(f"| `{name}` | {cell(spec.get('description', ''))} |")
    return {"action-inputs": "\n".join(inputs), "action-outputs": "\n".join(outputs)}


# -- the JSON Schema of suite files --------------------------------------------------------------


def suite_schema() -> dict[str, Any]:
    """What `evalkit schema` prints, through the command a user runs."""
    command = Path(sys.executable).parent / "evalkit"  # the console script of this environment
    done = subprocess.run(
        [str(command) if command.exists() else "evalkit", "schema"],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
    )
    return json.loads(done.stdout)


def type_of(spec: dict[str, Any], link: bool = True) -> str:
    """A short human name for a JSON Schema type: `string`, `list of Case`, `integer or null`, ..."""
    if "$ref" in spec:
        name = spec["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#{name.lower()})" if link else name
    if "const" in spec:
        return code(spec["const"])
    if "enum" in spec:
        return " | ".join(code(v) for v in spec["enum"])
    for key in ("anyOf", "oneOf"):
        if key in spec:
            names = [type_of(s, link) for s in spec[key] if s.get("type") != "null"]
            return " or ".join(dict.fromkeys(names)) or "null"
    kind = spec.get("type")
    if kind == "array":
        return f"list of {type_of(spec['items'], link)}" if "items" in spec else "list"
    if kind == "object":
        extra = spec.get("additionalProperties")
        return f"mapping of {type_of(extra, link)}" if isinstance(extra, dict) and extra else "mapping"
    if isinstance(kind, list):
        return " or ".join(kind)
    return kind or "any"


def limits(spec: dict[str, Any]) -> str:
    words = {"minimum": "≥", "exclusiveMinimum": ">", "maximum": "≤", "exclusiveMaximum": "<"}
    found = [f"{sign} {spec[k]}" for k, sign in words.items() if k in spec]
    for sub in spec.get("anyOf", []):
        found += [f"{sign} {sub[k]}" for k, sign in words.items() if k in sub]
    return f" ({', '.join(found)})" if found else ""


def properties_table(schema: dict[str, Any]) -> str:
    required = set(schema.get("required", []))
    rows = ["| key | type | default | description |", "|---|---|---|---|"]
    for name, spec in schema.get("properties", {}).items():
        default = "required" if name in required else (code(spec["default"]) if "default" in spec else "")
        rows.append(
            f"| `{name}` | {cell(type_of(spec) + limits(spec))} | {cell(default)} | "
            f"{cell(spec.get('description', ''))} |"
        )
    return "\n".join(rows)


def schema_page(schema: dict[str, Any]) -> str:
    suite, fixtures = schema["anyOf"]
    defs = schema["$defs"]
    parts = [
        "# Suite format reference",
        "",
        "Generated by `scripts/gen_docs.py` from `evalkit schema` (the JSON Schema editors use); a test fails",
        "when this page and the schema disagree. The [suite format](../suite-format.md) page explains the",
        "format with a complete example; the [checks](../checks.md) page lists every check type.",
        "",
        "```bash",
        "evalkit schema > suite.schema.json",
        "```",
        "",
        "A suite file is either a suite (the mapping below) or a fixture list: "
        f"{type_of(fixtures)}. {suite.get('description', '')}",
        "",
        "## Suite file",
        "",
        properties_table(suite),
    ]
    for name in sorted(defs):
        if name == "CheckSpec":
            parts += [
                "",
                f"## {name}",
                "",
                cell(defs[name].get("description", "")) + " One of the types on the "
                "[checks](../checks.md#check-types) page, each with its own arguments.",
            ]
            continue
        parts += ["", f"## {name}", ""]
        if defs[name].get("description"):
            parts += [" ".join(defs[name]["description"].split()), ""]
        parts.append(properties_table(defs[name]))
    return "\n".join(parts) + "\n"


def checks_table(schema: dict[str, Any]) -> str:
    rows = ["| type | arguments | passes when |", "|---|---|---|"]
    for variant in schema["$defs"]["CheckSpec"]["oneOf"]:
        required = set(variant.get("required", []))
        args = []
        for name, spec in variant["properties"].items():
            if name == "type":
                continue
            default = (
                " (required)"
                if name in required
                else (f" = {code(spec['default'])}" if "default" in spec and spec["default"] is not None else "")
            )
            args.append(f"`{name}`: {type_of(spec, link=False)}{default}")
        doc = " ".join(variant.get("description", "").split())
        rows.append(f"| `{variant['title']}` | {cell('; '.join(args) or '—')} | {cell(doc)} |")
    return "\n".join(rows)


# -- writing ---------------------------------------------------------------------------------------


def replace_part(text: str, name: str, body: str, page: Path) -> str:
    begin, end = BEGIN.format(name=name), END.format(name=name)
    pattern = re.compile(re.escape(begin) + r"\n.*?" + re.escape(end), re.S)
    if not pattern.search(text):
        raise SystemExit(f"{page.relative_to(REPO)}: no `{begin}` ... `{end}` markers")
    return pattern.sub(lambda _: f"{begin}\n{body}\n{end}", text)


def wanted() -> dict[Path, str]:
    """Each generated file's full text as it should be."""
    schema = suite_schema()
    pages: dict[Path, str] = {SCHEMA_PAGE: schema_page(schema)}
    action = DOCS / "action.md"
    text = action.read_text(encoding="utf-8")
    for name, body in action_tables(REPO / "action.yml").items():
        text = replace_part(text, name, body, action)
    pages[action] = text
    checks = DOCS / "checks.md"
    pages[checks] = replace_part(checks.read_text(encoding="utf-8"), "check-types", checks_table(schema), checks)
    return pages


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail when a generated file is stale; write nothing")
    args = parser.parse_args(argv)
    stale = []
    for path, text in wanted().items():
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            continue
        stale.append(path.relative_to(REPO))
        if not args.check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    for path in stale:
        print(f"{'stale' if args.check else 'wrote'}: {path}")
    if args.check and stale:
        print("run `python scripts/gen_docs.py` and commit the result", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
