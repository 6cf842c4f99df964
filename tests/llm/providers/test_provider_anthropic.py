"""AnthropicProvider: the real AsyncAnthropic client against the loopback fake."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest

from evalkit.errors import MissingKeyError, ProviderError
from evalkit.llm.providers.interface import ModelRequest, ModelResponse, Provider
from evalkit.testing.script import Script

anthropic = pytest.importorskip("anthropic")
httpx2 = pytest.importorskip("httpx2")

from evalkit.llm.providers.anthropic import AnthropicProvider, _provider_error, fetch_lifecycles  # noqa: E402

MODEL = "claude-haiku-4-5"
TOOL = {
    "name": "grade",
    "description": "Record a grade",
    "input_schema": {"type": "object", "properties": {"score": {"type": "integer"}}},
}


@pytest.fixture
def fake(fake_anthropic):
    return fake_anthropic(Script())


def run(fake, *requests: ModelRequest, **provider_kwargs):
    """Send requests concurrently through a fresh provider; exceptions are returned, not raised."""

    async def main():
        provider = AnthropicProvider(api_key="test-key", base_url=fake.url, **provider_kwargs)
        try:
            return await asyncio.gather(*(provider.generate(r) for r in requests), return_exceptions=True)
        finally:
            await provider.aclose()

    return asyncio.run(main())


def ask(prompt: str, **kwargs) -> ModelRequest:
    return ModelRequest.from_prompt(prompt, model=kwargs.pop("model", MODEL), **kwargs)


def test_import_does_not_import_anthropic():
    code = (
        "import sys, evalkit.llm.providers.anthropic as m; "
        "assert callable(m.fetch_lifecycles); "
        "print('anthropic' in sys.modules, 'httpx2' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "False"]


def test_is_a_provider(fake):
    async def main():
        provider = AnthropicProvider(api_key="k", base_url=fake.url)
        assert isinstance(provider, Provider) and provider.name == "anthropic"
        await provider.aclose()

    asyncio.run(main())


def test_text_reply(fake):
    fake.script.reply("Four.", prompt="2+2")
    [response] = run(fake, ask("What is 2+2?", system="Answer tersely", temperature=0.0, max_tokens=50))
    assert isinstance(response, ModelResponse)
    assert response.text == "Four." and response.model == MODEL and response.stop_reason == "end_turn"
    assert response.input_tokens >= 1 and response.output_tokens >= 1
    body = fake.requests[0]
    assert body["system"] == "Answer tersely" and body["max_tokens"] == 50
    # SDK 2.12.0's create() has no `temperature` parameter: it is sent through extra_body.
    assert body["temperature"] == 0.0


def test_forced_tool_reply(fake):
    fake.script.tool_reply("grade", {"score": 4})
    [response] = run(fake, ask("grade this", tools=(TOOL,), tool_choice={"type": "tool", "name": "grade"}))
    assert response.tool_name == "grade" and response.tool_input == {"score": 4}
    assert response.stop_reason == "tool_use"
    assert fake.requests[0]["tool_choice"] == {"type": "tool", "name": "grade"}


def test_env_vars_give_key_and_url(fake, anthropic_environ):
    anthropic_environ(fake, key="env-key")
    fake.script.reply("from env")

    async def main():
        provider = AnthropicProvider()
        try:
            return await provider.generate(ask("hi"))
        finally:
            await provider.aclose()

    assert asyncio.run(main()).text == "from env"
    headers = fake.request_headers[0]
    assert "env-key" in headers.get("x-api-key", "") + headers.get("authorization", "")


@pytest.mark.parametrize("config_dir", [False, True])
def test_missing_key_says_how_to_fix(monkeypatch, tmp_path, config_dir):
    for name in (
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "ANTHROPIC_PROFILE",
        "ANTHROPIC_CONFIG_DIR",
        "ANTHROPIC_IDENTITY_TOKEN",
        "ANTHROPIC_IDENTITY_TOKEN_FILE",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / ".config"))
    if config_dir:  # the SDK then insists on a profile file and raises CredentialsError
        monkeypatch.setenv("ANTHROPIC_CONFIG_DIR", str(tmp_path / "anthropic"))
    with pytest.raises(MissingKeyError, match="No ANTHROPIC_API_KEY: set it, or run `evalkit demo`"):
        AnthropicProvider()


@pytest.mark.parametrize(
    "kind, status, retryable, retry_after",
    [
        ("429", 429, True, 3.0),
        ("529", 529, True, None),
        ("500", 500, True, None),
        ("400", 400, False, None),
    ],
)
def test_status_faults_map_to_provider_error(fake, kind, status, retryable, retry_after):
    fake.script.fault(kind, retry_after=retry_after)
    [error] = run(fake, ask("hi"))
    assert isinstance(error, ProviderError)
    assert (error.status, error.retryable, error.retry_after) == (status, retryable, retry_after)
    assert str(error).startswith(f"Anthropic API {status} ")
    assert "\n" not in str(error)
    assert fake.request_count == 1  # the SDK did not retry


def test_fractional_retry_after(fake):
    fake.script.fault("429", retry_after=0.25)
    [error] = run(fake, ask("hi"))
    assert error.retryable and error.retry_after == 0.25


def test_drop_is_retryable(fake):
    fake.script.fault("drop")
    [error] = run(fake, ask("hi"))
    assert isinstance(error, ProviderError) and error.retryable and error.status is None
    assert "connection" in str(error).lower()
    assert fake.request_count == 1


def test_bad_json_is_retryable(fake):
    fake.script.fault("bad_json")
    [error] = run(fake, ask("hi"))
    assert isinstance(error, ProviderError) and error.retryable
    assert "not valid JSON" in str(error)
    assert fake.request_count == 1


def test_a_reply_not_shaped_like_a_message_is_a_retryable_one_line_error(fake):
    fake.script.fault("bad_shape")
    [error] = run(fake, ask("hi"))
    assert isinstance(error, ProviderError) and error.retryable and error.status == 200
    assert str(error) == "Anthropic API reply was not a message: a text block's `text` is not a string"


@pytest.mark.parametrize(
    "body, problem",
    [
        ([1, 2], "the reply is a JSON list, not a message object"),
        ({"content": "hello"}, "the reply's `content` is not a list of blocks"),
        ({"content": ["hello"]}, "a block of the reply's `content` is not an object"),
        ({"content": [{"type": "tool_use", "name": 7, "input": {}}]}, "a tool_use block's `name` is not a string"),
        ({"content": [], "model": ["m"]}, "the reply's `model` is not a string"),
        ({"content": [], "usage": [1]}, "the reply's `usage` is not an object"),
        ({"content": [], "usage": {"input_tokens": True}}, "the reply's usage `input_tokens` is not a count of tokens"),
        ({"content": [], "usage": {"output_tokens": -3}}, "the reply's usage `output_tokens` is not a count of tokens"),
        ({"content": [], "usage": {"cache_read_input_tokens": 1.5}}, "usage `cache_read_input_tokens` is not a count"),
        ({"content": [], "usage": {"input_tokens": "lots"}}, "usage `input_tokens` is not a count"),
        ({"content": [], "usage": {"input_tokens": float("inf")}}, "usage `input_tokens` is not a count"),
    ],
)
def test_hostile_message_shapes_are_named(body, problem):
    with pytest.raises(ValueError, match=problem.replace("`", ".")):
        ModelResponse.from_api_message(body)


def test_a_well_formed_message_is_read_whole():
    response = ModelResponse.from_api_message(
        {
            "model": "m",
            "stop_reason": "tool_use",
            "content": [
                {"type": "text", "text": "a"},
                {"type": "thinking", "thinking": "x", "signature": "s"},
                {"type": "text", "text": "b"},
                {"type": "tool_use", "name": "grade", "input": {"score": 3}},
            ],
            "usage": {
                "input_tokens": 5,
                "output_tokens": 2,
                "cache_read_input_tokens": None,
                "cache_creation_input_tokens": 7,
            },
        }
    )
    assert (response.text, response.tool_name, response.tool_input, response.stop_reason) == (
        "ab",
        "grade",
        {"score": 3},
        "tool_use",
    )
    assert (response.input_tokens, response.output_tokens, response.cache_read_tokens, response.cache_write_tokens) == (
        5,
        2,
        0,
        7,
    )
    assert response.thinking == [{"type": "thinking", "thinking": "x", "signature": "s"}]
    relayed = ModelResponse.from_api_message({"content": [], "usage": {"input_tokens": 12.0, "output_tokens": " 3"}})
    assert (relayed.input_tokens, relayed.output_tokens) == (12, 3)  # whole numbers, however a proxy writes them


def test_no_match_400_carries_the_scripts_message(fake):
    fake.script.reply("x", prompt="never")
    [error] = run(fake, ask("an unexpected prompt"))
    assert not error.retryable and error.status == 400
    assert str(error).startswith("Anthropic API 400 invalid_request_error: no scripted reply matches")
    assert "an unexpected prompt" in str(error)


def test_wrong_path_is_a_404_not_retried(fake):
    async def main():
        provider = AnthropicProvider(api_key="k", base_url=fake.url + "/wrong")
        try:
            await provider.generate(ask("hi"))
        finally:
            await provider.aclose()

    with pytest.raises(ProviderError) as info:
        asyncio.run(main())
    assert info.value.status == 404 and not info.value.retryable
    assert str(info.value).startswith("Anthropic API 404 not_found_error:")


def test_unreachable_server_is_retryable(refusing_url):
    async def main():
        provider = AnthropicProvider(api_key="k", base_url=refusing_url, timeout=2)
        try:
            await provider.generate(ask("hi"))
        finally:
            await provider.aclose()

    with pytest.raises(ProviderError) as info:
        asyncio.run(main())
    assert info.value.retryable and info.value.status is None


def _status_error(status: int, etype: str, message: str, headers: dict | None = None):
    request = httpx2.Request("POST", "http://fake/v1/messages")
    body = {"type": "error", "error": {"type": etype, "message": message}}
    response = httpx2.Response(status, json=body, headers=headers or {}, request=request)
    client = anthropic.Anthropic(api_key="k", base_url="http://fake", max_retries=0)
    return client._make_status_error(f"Error code: {status}", body=body, response=response)


@pytest.mark.parametrize(
    "status, etype",
    [
        (400, "invalid_request_error"),
        (401, "authentication_error"),
        (403, "permission_error"),
        (404, "not_found_error"),
        (413, "request_too_large"),
        (422, "invalid_request_error"),
    ],
)
def test_client_errors_are_not_retryable(status, etype):
    error = _provider_error(_status_error(status, etype, "invalid x-api-key\nsecond line"))
    assert not error.retryable and error.status == status
    assert str(error) == f"Anthropic API {status} {etype}: invalid x-api-key second line"


@pytest.mark.parametrize("status", [429, 500, 502, 503, 504, 529])
def test_server_errors_are_retryable(status):
    assert _provider_error(_status_error(status, "api_error", "boom")).retryable


def test_retry_after_headers():
    ms = _provider_error(_status_error(429, "rate_limit_error", "slow", {"retry-after-ms": "1500"}))
    assert ms.retry_after == 1.5
    s = _provider_error(_status_error(429, "rate_limit_error", "slow", {"retry-after": "7"}))
    assert s.retry_after == 7.0
    none = _provider_error(_status_error(429, "rate_limit_error", "slow"))
    assert none.retry_after is None


def test_sdk_exception_classes_map():
    request = httpx2.Request("POST", "http://fake/v1/messages")
    assert _provider_error(anthropic.APITimeoutError(request)).retryable
    assert _provider_error(anthropic.APIConnectionError(request=request)).retryable
    assert not _provider_error(ValueError("Streaming is required")).retryable


def test_concurrent_requests_overlap(fake):
    fake.script.respond(lambda body: body["messages"][0]["content"])
    fake.latency = 0.5
    responses = run(fake, *(ask(f"q{i}") for i in range(64)))
    assert [r.text for r in responses] == [f"q{i}" for i in range(64)]
    # Counted by the fake, not timed (a loaded machine cannot make this flaky): one after
    # another would never have two requests in the server at once.
    assert fake.peak_in_flight >= 8, fake.peak_in_flight


def test_lifecycles_come_from_the_models_endpoint(fake, anthropic_environ):
    anthropic_environ(fake)
    fake.models = [
        {"id": "claude-new-1", "lifecycle": "active", "retires_at": None, "structured_outputs": True, "thinking": True},
        {
            "id": "claude-old-1",
            "lifecycle": "deprecated",
            "retires_at": "2027-03-01T00:00:00Z",
            "structured_outputs": False,
            "thinking": True,
        },
        {"id": "claude-gone-1", "lifecycle": "retired", "retires_at": "2026-01-01T00:00:00Z", "max_tokens": 0},
    ]
    # Each model's capabilities as the API says them (thinking types, effort levels) and its max_tokens (the
    # fake lists 64,000 for a model its rules do not know); none said (`capabilities: null`, no positive
    # max_tokens): unknown.
    thinking = {"adaptive": False, "enabled": True, "disabled": True, "between_tools": False}
    levels = ["low", "medium", "high", "max"]
    assert fetch_lifecycles() == {
        "claude-new-1": {
            "lifecycle": "active",
            "retires_at": None,
            "structured_outputs": True,
            "thinking": thinking,
            "effort": levels,
            "max_tokens": 64_000,
        },
        "claude-old-1": {
            "lifecycle": "deprecated",
            "retires_at": "2027-03-01",
            "structured_outputs": False,
            "thinking": thinking,
            "effort": levels,
            "max_tokens": 64_000,
        },
        "claude-gone-1": {
            "lifecycle": "retired",
            "retires_at": "2026-01-01",
            "structured_outputs": None,
            "thinking": None,
            "effort": None,
            "max_tokens": None,
        },
    }
    assert fake.models_requests == 1 and fake.request_count == 0


def test_a_models_endpoint_that_fails_raises_for_the_caller_to_fall_back(fake, anthropic_environ):
    anthropic_environ(fake)
    fake.models = None  # 404
    with pytest.raises(Exception):
        fetch_lifecycles()


def test_aclose_closes_the_client(fake):
    async def main():
        provider = AnthropicProvider(api_key="k", base_url=fake.url)
        await provider.aclose()
        return provider._client.is_closed()

    assert asyncio.run(main())


def test_a_batch_result_not_shaped_like_a_message_is_an_error_to_retry():
    from evalkit.llm.providers.anthropic import _result
    from evalkit.testing.script import BAD_SHAPE

    result = _result({"custom_id": "k1", "result": {"type": "succeeded", "message": BAD_SHAPE}})
    assert (result.custom_id, result.kind, result.retryable, result.response) == ("k1", "errored", True, None)
    assert result.error == "the reply was not a message: a text block's `text` is not a string"
