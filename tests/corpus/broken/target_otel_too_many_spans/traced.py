from evalkit import TargetResult

SPAN = {"spanId": "s", "name": "execute_tool lookup", "startTimeUnixNano": "1",
        "attributes": [{"key": "gen_ai.tool.name", "value": {"stringValue": "lookup"}}]}


def run(case_input):
    return TargetResult("Paris", trace={"resourceSpans": [{"scopeSpans": [{"spans": [SPAN] * 5}]}]})
