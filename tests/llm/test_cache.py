"""The on-disk response cache: what is stored comes back, damage is a miss, and a bad disk never
fails a run."""

from __future__ import annotations

from evalkit.llm.cache import ResponseCache, default_cache_dir
from evalkit.llm.providers.interface import ModelRequest, ModelResponse


def test_a_reply_round_trips_by_key(tmp_path):
    cache = ResponseCache(tmp_path)
    reply = ModelResponse(text="hi", model="m", input_tokens=3, output_tokens=1, stop_reason="end_turn")
    key = ModelRequest.from_prompt("hello", model="m").cache_key()
    assert cache.get(key) is None
    cache.put(key, reply)
    assert cache.get(key) == reply


def test_the_key_depends_on_the_request_and_the_repeat():
    a = ModelRequest.from_prompt("hello", model="m")
    assert a.cache_key() == ModelRequest.from_prompt("hello", model="m").cache_key()
    assert a.cache_key() != ModelRequest.from_prompt("hello!", model="m").cache_key()
    assert a.cache_key(0) != a.cache_key(1)


def test_a_damaged_entry_is_a_miss(tmp_path):
    cache = ResponseCache(tmp_path)
    key = "ab" + "0" * 62
    path = tmp_path / "ab" / f"{key}.json"
    path.parent.mkdir(parents=True)
    for damage in ("{not json", '{"other": 1}', '{"response": 7}'):
        path.write_text(damage, encoding="utf-8")
        assert cache.get(key) is None


def test_an_unwritable_folder_does_not_raise(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    cache = ResponseCache(blocker / "cache")  # its parent is a file: nothing can be written
    cache.put("ab" + "1" * 62, ModelResponse(text="x", model="m"))
    assert cache.get("ab" + "1" * 62) is None


def test_the_folder_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("EVALKIT_CACHE_DIR", str(tmp_path / "c"))
    assert default_cache_dir() == tmp_path / "c"
    monkeypatch.delenv("EVALKIT_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert default_cache_dir() == tmp_path / "x" / "evalkit"


def test_an_entry_rewritten_or_moved_by_anyone_but_evalkit_is_a_miss(tmp_path):
    import json

    from evalkit.llm.cache import ResponseCache, derive_seal

    cache = ResponseCache(tmp_path, seal=derive_seal("sk-key-of-this-run"))
    failing, passing = ModelRequest.from_prompt("judge a", model="m"), ModelRequest.from_prompt("judge b", model="m")
    cache.put(failing.cache_key(), ModelResponse(text="fail", model="m", input_tokens=1, output_tokens=1))
    cache.put(passing.cache_key(), ModelResponse(text="pass", model="m", input_tokens=1, output_tokens=1))
    assert cache.get(failing.cache_key()).text == "fail"
    path = next(p for p in tmp_path.rglob("*.json") if failing.cache_key() in p.name)
    entry = json.loads(path.read_text())
    for tampered in (
        {**entry, "response": {**entry["response"], "text": "pass"}},  # the verdict changed
        {"response": {**entry["response"], "text": "pass"}},  # and its seal dropped
        json.loads(next(p for p in tmp_path.rglob("*.json") if passing.cache_key() in p.name).read_text()),
    ):
        path.write_text(json.dumps(tampered))  # the last: another key's entry, seal and all, copied over
        assert cache.get(failing.cache_key()) is None, tampered
    # Another run's key (a worker that does not know this one) cannot forge an entry either.
    ResponseCache(tmp_path, seal=derive_seal("a key the worker made up")).put(
        failing.cache_key(), ModelResponse(text="pass", model="m", input_tokens=1, output_tokens=1)
    )
    assert cache.get(failing.cache_key()) is None
