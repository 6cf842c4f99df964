"""The loopback Messages-API fake, exercised with the real anthropic client (sync and async)."""

from __future__ import annotations

import asyncio
import json
import re
import urllib.error
import urllib.request

import pytest

anthropic = pytest.importorskip("anthropic")

from evalkit.testing.fake_anthropic import FakeAnthropicServer  # noqa: E402
from evalkit.testing.script import Script  # noqa: E402

MODEL = "claude-haiku-4-5"
WEATHER_TOOL = {
    "name": "get_weather",
    "description": "Weather for a city",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}


@pytest.fixture
def fake(fake_anthropic):
    return fake_anthropic(Script())


def ask(client, prompt: str, **kwargs):
    return client.messages.create(
        model=kwargs.pop("model", MODEL), max_tokens=64, messages=[{"role": "user", "content": prompt}], **kwargs
    )


def test_text_reply_validates_as_message(fake, client):
    fake.script.reply("Hello there.")
    message = ask(client, "Say hello")
    assert isinstance(message, anthropic.types.Message)
    assert message.content[0].text == "Hello there."
    assert message.stop_reason == "end_turn" and message.model == MODEL
    assert message.usage.input_tokens >= 1 and message.usage.output_tokens >= 1
    anthropic.types.Message.model_validate(message.model_dump())


def test_raw_payload_passes_the_vendor_schema(fake):
    fake.script.reply("raw")
    fake.script.tool_reply("get_weather", {"city": "Oslo"})
    for body in (
        {"model": MODEL, "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}]},
        {
            "model": MODEL,
            "max_tokens": 8,
            "messages": [{"role": "user", "content": "hi"}],
            "tools": [WEATHER_TOOL],
            "tool_choice": {"type": "tool", "name": "get_weather"},
        },
    ):
        status, payload = _post(fake.url + "/v1/messages", body)
        assert status == 200
        anthropic.types.Message.model_validate(payload)


def test_forced_tool_use_matched_by_tool_name(fake, client):
    fake.script.tool_reply("get_weather", {"city": "Oslo"})
    fake.script.reply("plain")
    message = ask(client, "Weather in Oslo?", tools=[WEATHER_TOOL], tool_choice={"type": "tool", "name": "get_weather"})
    block = message.content[0]
    assert block.type == "tool_use" and block.name == "get_weather" and block.input == {"city": "Oslo"}
    assert message.stop_reason == "tool_use"
    assert ask(client, "no tools").content[0].text == "plain"


def test_prompt_regex_and_model_matching(fake, client):
    fake.script.reply("for opus", model="claude-opus-4-5")
    fake.script.reply("numbers", prompt=re.compile(r"\d{3}"))
    fake.script.reply("about cats", prompt="cat")
    fake.script.reply("fallback")
    assert ask(client, "tell me about cats").content[0].text == "about cats"
    assert ask(client, "call 555 now").content[0].text == "numbers"
    assert ask(client, "cat", model="claude-opus-4-5").content[0].text == "for opus"
    assert ask(client, "anything").content[0].text == "fallback"


def test_no_match_is_a_400_naming_the_prompt(fake, client):
    fake.script.reply("only this", prompt="specific")
    with pytest.raises(anthropic.BadRequestError) as info:
        ask(client, "something else entirely")
    assert info.value.status_code == 400
    assert "no scripted reply matches" in info.value.api_message
    assert "something else entirely" in info.value.api_message


def test_requests_are_recorded_and_reset(fake, client):
    fake.script.reply("ok")
    ask(client, "first", system="be brief")
    ask(client, "second")
    assert fake.request_count == 2
    assert fake.requests[0]["system"] == "be brief"
    assert fake.requests[1]["messages"] == [{"role": "user", "content": "second"}]
    headers = fake.request_headers[0]
    # 2.12.0 sends the key as a bearer token; older SDKs sent x-api-key.
    assert "test-key" in (headers.get("x-api-key", "") + headers.get("authorization", ""))
    fake.reset_counts()
    assert fake.request_count == 0 and fake.requests == []


@pytest.mark.parametrize(
    "kind, error, status",
    [
        ("429", anthropic.RateLimitError, 429),
        ("529", anthropic.OverloadedError, 529),
        ("500", anthropic.InternalServerError, 500),
        ("400", anthropic.BadRequestError, 400),
    ],
)
def test_status_faults(fake, client, kind, error, status):
    fake.script.fault(kind, times=1)
    fake.script.reply("recovered")
    with pytest.raises(error) as info:
        ask(client, "hi")
    assert info.value.status_code == status
    assert info.value.response.headers.get("retry-after") is None
    assert ask(client, "hi").content[0].text == "recovered"  # times=1: the fault stands aside


@pytest.mark.parametrize("retry_after, header", [(2, "2"), (0.5, "0.5")])
def test_429_sends_retry_after_in_seconds(fake, client, retry_after, header):
    fake.script.fault("429", retry_after=retry_after)
    with pytest.raises(anthropic.RateLimitError) as info:
        ask(client, "hi")
    assert info.value.response.headers["retry-after"] == header
    assert fake.request_count == 1  # max_retries=0: the SDK did not retry


def test_drop_is_a_connection_error(fake, client):
    fake.script.fault("drop")
    fake.script.reply("after the drop")
    with pytest.raises(anthropic.APIConnectionError):
        ask(client, "hi")
    assert ask(client, "hi").content[0].text == "after the drop"


def test_bad_json_is_a_200_the_sdk_cannot_decode(fake, client):
    fake.script.fault("bad_json")
    with pytest.raises(json.JSONDecodeError):
        ask(client, "hi")
    fake.script.fault("bad_json")
    status, raw = _post(fake.url + "/v1/messages", {"model": MODEL, "max_tokens": 1, "messages": []}, raw=True)
    assert status == 200
    with pytest.raises(ValueError):
        json.loads(raw)


def test_unknown_path_and_bad_body(fake):
    status, payload = _post(fake.url + "/v1/complete", {"prompt": "x"})
    assert status == 404 and payload["error"]["type"] == "not_found_error"
    status, payload = _get(fake.url + "/v1/files")
    assert status == 404 and payload["type"] == "error"
    fake.models = None  # the models endpoint answers unless a test switches it off
    status, payload = _get(fake.url + "/v1/models")
    assert status == 404 and payload["type"] == "error"
    status, payload = _post(fake.url + "/v1/messages", b"{not json")
    assert status == 400 and payload["error"]["type"] == "invalid_request_error"
    assert fake.request_count == 0


def test_responder_that_raises_is_a_500(fake, client):
    fake.script.respond(lambda body: 1 / 0)
    with pytest.raises(anthropic.InternalServerError) as info:
        ask(client, "hi")
    assert "ZeroDivisionError" in info.value.api_message
    assert fake.errors and "ZeroDivisionError" in fake.errors[0]


def test_responder_sees_the_body(fake, client):
    fake.script.respond(lambda body: f"echo: {body['messages'][-1]['content']}")
    assert ask(client, "ping").content[0].text == "echo: ping"


def test_start_stop_and_url(fake):
    server = FakeAnthropicServer()
    with pytest.raises(RuntimeError):
        server.url
    server.start()
    try:
        assert server.url.startswith("http://127.0.0.1:")
        server.script.reply("late rule")  # rules may be added while running
        c = anthropic.Anthropic(api_key="k", base_url=server.url, max_retries=0)
        assert ask(c, "x").content[0].text == "late rule"
        c.close()
    finally:
        server.stop()
    server.stop()  # idempotent


def test_latency_does_not_serialise_concurrent_requests(fake):
    fake.script.reply("slow")
    fake.latency = 0.5

    async def main():
        async with anthropic.AsyncAnthropic(api_key="k", base_url=fake.url, max_retries=0) as c:
            return await asyncio.gather(
                *[
                    c.messages.create(model=MODEL, max_tokens=8, messages=[{"role": "user", "content": f"q{i}"}])
                    for i in range(64)
                ]
            )

    replies = asyncio.run(main())
    assert [r.content[0].text for r in replies] == ["slow"] * 64
    assert fake.request_count == 64
    # Counted, not timed: serialised, no two requests would ever wait out the latency together.
    assert fake.peak_in_flight >= 8, fake.peak_in_flight


def test_peak_in_flight_is_one_for_requests_made_one_after_another(fake):
    fake.script.reply("slow")
    fake.latency = 0.05
    client = anthropic.Anthropic(api_key="k", base_url=fake.url, max_retries=0)
    for i in range(3):
        client.messages.create(model=MODEL, max_tokens=8, messages=[{"role": "user", "content": f"q{i}"}])
    assert fake.peak_in_flight == 1


def test_many_requests_over_keep_alive(fake):
    fake.script.respond(lambda body: body["messages"][0]["content"].upper())

    async def main():
        sem = asyncio.Semaphore(32)
        async with anthropic.AsyncAnthropic(api_key="k", base_url=fake.url, max_retries=0) as c:

            async def one(i):
                async with sem:
                    m = await c.messages.create(
                        model=MODEL, max_tokens=8, messages=[{"role": "user", "content": f"q{i}"}]
                    )
                    return m.content[0].text

            return await asyncio.gather(*[one(i) for i in range(200)])

    assert asyncio.run(main()) == [f"Q{i}" for i in range(200)]
    assert fake.request_count == 200


def _post(url: str, body, raw: bool = False):
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method="POST", headers={"content-type": "application/json"})
    return _open(req, raw)


def _get(url: str):
    return _open(urllib.request.Request(url), False)


def _open(req, raw: bool):
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            status, data = resp.status, resp.read()
    except urllib.error.HTTPError as err:
        status, data = err.code, err.read()
    return status, (data if raw else json.loads(data))
