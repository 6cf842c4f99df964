"""The Action streams what its worker prints to the log as it comes, redacted in whole lines (a secret
split across two reads is still replaced), and keeps only a capped tail in memory for error messages."""

from __future__ import annotations

import io
import os
import sys
import tracemalloc

from evalkit.action.output_relay import OutputRelay, stream_process
from evalkit.limits import WORKER_OUTPUT_TAIL_CHARS

SECRET = "sk-ant-api03-" + "s3cr3t" * 6


def test_a_secret_split_across_reads_is_redacted():
    log = io.StringIO()
    relay = OutputRelay("evalkit: output of the run worker", [SECRET], log)
    relay.feed(f"calling with {SECRET[:11]}".encode())
    relay.feed(f"{SECRET[11:20]}".encode())
    relay.feed(f"{SECRET[20:]} done\nnext line".encode())
    relay.close()
    text = log.getvalue()
    assert SECRET not in text and SECRET[:11] not in text
    assert "calling with *** done\nnext line\n" in text
    assert text.startswith("::group::evalkit: output of the run worker\n::stop-commands::")
    assert text.endswith("::endgroup::\n")


def test_a_secret_split_inside_a_long_line_without_an_end_is_redacted():
    log = io.StringIO()
    relay = OutputRelay("w", [SECRET], log)
    relay.feed(b"x" * 20_000 + SECRET[:7].encode())  # past LONG_LINE_CHARS: written in pieces
    relay.feed(SECRET[7:].encode() + b"y" * 20_000)
    relay.close()
    assert SECRET not in log.getvalue() and "x" * 20_000 + "***" + "y" * 20_000 in log.getvalue()


def test_a_multibyte_character_split_across_reads_is_kept_whole():
    log = io.StringIO()
    relay = OutputRelay("w", [], log)
    data = "café ☕\n".encode()
    relay.feed(data[:4])
    relay.feed(data[4:])
    relay.close()
    assert "café ☕\n" in log.getvalue()


class _Discard(io.TextIOBase):
    def __init__(self) -> None:
        self.chars = 0

    def write(self, text: str) -> int:
        self.chars += len(text)
        return len(text)


def test_fifty_megabytes_of_output_keep_only_the_tail_in_memory():
    sink = _Discard()
    relay = OutputRelay("w", [SECRET], sink)
    chunk = (("a line of output " * 6) + "\n").encode() * 640  # ~64 KB, as one read of the pipe
    tracemalloc.start()
    try:
        for _ in range(50_000_000 // len(chunk) + 1):
            relay.feed(chunk)
        relay.close()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert relay.chars >= 50_000_000
    assert len(relay.tail) == WORKER_OUTPUT_TAIL_CHARS
    assert peak < 2_000_000, peak  # a few reads' worth, not 50 MB
    assert sink.chars < 5_100_000  # the log shows at most WORKER_LOG_MAX_CHARS, then one line says so


CHILD = """
import os, sys, time
sys.stdout.write("ready\\n"); sys.stdout.flush()
deadline = time.monotonic() + 120  # a hang guard, with room for a loaded machine
while not os.path.exists(sys.argv[1]) and time.monotonic() < deadline:  # until the parent has seen "ready"
    time.sleep(0.01)
if not os.path.exists(sys.argv[1]):
    sys.exit(3)  # nobody read "ready" while this process ran: its output was not streamed
line = "x" * 99 + "\\n"
for _ in range(500_000):  # 50 MB
    sys.stdout.write(line)
sys.stderr.write("the end\\n")
"""


class _Watch(io.TextIOBase):
    """A log that, on seeing "ready", lets the child go on: the output was relayed before the child exited."""

    def __init__(self, flag: str) -> None:
        self.flag = flag
        self.seen_ready = False

    def write(self, text: str) -> int:
        if "ready" in text and not self.seen_ready:
            self.seen_ready = True
            open(self.flag, "w").close()
        return len(text)


def test_a_worker_s_output_is_streamed_as_it_comes_and_only_its_tail_kept(tmp_path):
    flag = str(tmp_path / "seen")
    log = _Watch(flag)
    relay = OutputRelay("w", [], log)
    status = stream_process([sys.executable, "-c", CHILD, flag], relay, env=dict(os.environ))
    assert status == 0  # 3: the child waited 20 s and nobody had read its first line
    assert log.seen_ready
    assert relay.chars >= 50_000_000
    assert len(relay.tail) == WORKER_OUTPUT_TAIL_CHARS and relay.tail.endswith("x\nthe end\n")
