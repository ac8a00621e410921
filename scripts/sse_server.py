#!/usr/bin/env python3
"""A tiny local OpenAI-compatible SSE server for benchmarks (stdlib only).

Usage: sse_server.py PORT [--bytes N | --content N] [--rate BYTES_PER_S] [--scenario FILE]

Listens on 127.0.0.1:PORT (loopback only) and answers every `POST /v1/chat/completions` with
the same pre-generated stream of ~N bytes (default 1 MiB) of OpenAI-shaped
`chat.completion.chunk` events: a role chunk, small content deltas (1-6 words), a finish
chunk, a usage chunk and `data: [DONE]`. The body is sent with chunked transfer encoding in
16 KiB writes, as fast as the client reads it, so the time measured is the client's.

`--content N` sizes the stream by its reply text instead (~N bytes of content). `--rate R`
paces it like a slow model: one event per write, each sent when the content so far is due at
R bytes of content per second (a ~6 word delta every ~30 ms at 1,000 bytes/s).
`--scenario FILE` serves a scenario of ../shared/bench/gen_scenarios.py instead: `{"turns":
[{"text", "chunk", "delay_ms"}], "after": "repeat_last"}` — the Nth request gets turn N (the
last one again after the end), its text in events of `chunk` characters, `delay_ms` apart (as
fast as read when 0 or absent). The start line reports the first turn's content bytes.
`GET /health` answers 200 (the benchmark script waits on it). Stop it with SIGTERM or Ctrl+C.
"""

import argparse
import json
import random
import signal
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

WORDS = (
    "the a of to and in is that for it with as on this function returns value error file "
    "stream buffer request server client model token should could would because therefore "
    "however crate module test config line byte chunk parse decode write read call result "
    "option café naïve über → ✓ 🙂 x y 0 1 42"
).split()

HEAD = (
    '{"id":"chatcmpl-AbCdEf0123456789GhIjKlMnOpQr","object":"chat.completion.chunk",'
    '"created":1764460800,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_7f6be3efb0",'
    '"choices":'
)


def event(choices: str) -> str:
    return "data: " + HEAD + choices + "}\n\n"


def make_stream(target: int, by_content: bool = False) -> tuple[list[tuple[bytes, int]], int]:
    """The SSE events with the content bytes each carries, and the total content bytes. The
    stream is about `target` bytes of SSE (or of content, with `by_content`)."""
    rng = random.Random(20261130)
    parts = [
        event(
            '[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},'
            '"logprobs":null,"finish_reason":null}]'
        )
    ]
    sizes = [0]
    size = len(parts[0])
    content = 0
    n = 0
    while (content if by_content else size) < target:
        words = []
        for _ in range(rng.randint(1, 6)):
            r = rng.randrange(30)
            words.append("\n\n" if r == 0 else "\n" if r == 1 else " " + rng.choice(WORDS))
        text = "".join(words)
        content += len(text.encode())
        delta = json.dumps(
            {"content": text}, ensure_ascii=False, separators=(",", ":")
        )
        p = event(
            '[{"index":0,"delta":' + delta + ',"logprobs":null,"finish_reason":null}]'
        )
        parts.append(p)
        sizes.append(len(text.encode()))
        size += len(p.encode())
        n += 1
        if n % 400 == 0:
            parts.append(": ping\n\n")
            sizes.append(0)
    parts.append(event('[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]'))
    parts.append(
        "data: " + HEAD + '[],"usage":{"prompt_tokens":12,"completion_tokens":%d,'
        '"total_tokens":%d}}\n\n' % (n, n + 12)
    )
    parts.append("data: [DONE]\n\n")
    sizes += [0, 0, 0]
    return [(p.encode(), c) for p, c in zip(parts, sizes)], content


def scenario_events(text: str, chunk: int) -> list[tuple[bytes, int]]:
    """A scenario turn's text as SSE events of `chunk` characters each, with the content bytes
    each carries: role chunk, content chunks, finish, usage, [DONE]."""
    parts = [
        event(
            '[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},'
            '"logprobs":null,"finish_reason":null}]'
        )
    ]
    sizes = [0]
    chunk = max(1, chunk)
    n = 0
    for i in range(0, len(text), chunk):
        piece = text[i : i + chunk]
        delta = json.dumps({"content": piece}, ensure_ascii=False, separators=(",", ":"))
        parts.append(
            event('[{"index":0,"delta":' + delta + ',"logprobs":null,"finish_reason":null}]')
        )
        sizes.append(len(piece.encode()))
        n += 1
    parts.append(event('[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]'))
    parts.append(
        "data: " + HEAD + '[],"usage":{"prompt_tokens":12,"completion_tokens":%d,'
        '"total_tokens":%d}}\n\n' % (n, n + 12)
    )
    parts.append("data: [DONE]\n\n")
    sizes += [0, 0, 0]
    return [(p.encode(), c) for p, c in zip(parts, sizes)]


def frame(b: bytes) -> bytes:
    """One HTTP chunk of chunked transfer encoding."""
    return b"%x\r\n" % len(b) + b + b"\r\n"


def flood_pieces(body: bytes) -> list[bytes]:
    """`body` as 16 KiB HTTP chunks, pre-framed: no per-request work but the writes."""
    step = 16 * 1024
    return [frame(body[i : i + step]) for i in range(0, len(body), step)]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    pieces: list[bytes] = []
    # With --rate: (HTTP chunk, seconds after the start it is due).
    paced: list[tuple[bytes, float]] = []
    # With --scenario: (pieces, paced) per turn, and how many requests were answered.
    turns: list[tuple[list[bytes], list[tuple[bytes, float]]]] = []
    served = 0

    def log_message(self, format, *args):  # noqa: A002 - quiet
        pass

    def do_GET(self):
        if self.path.rstrip("/") == "/health":
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")
        else:
            self.send_error(404)

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        if self.path.rstrip("/") != "/v1/chat/completions":
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        pieces, paced = self.pieces, self.paced
        if self.turns:
            k = min(Handler.served, len(self.turns) - 1)
            Handler.served += 1
            pieces, paced = self.turns[k]
        try:
            if paced:
                start = time.monotonic()
                for piece, due in paced:
                    wait = start + due - time.monotonic()
                    if wait > 0:
                        time.sleep(wait)
                    self.wfile.write(piece)
                    self.wfile.flush()
            for piece in pieces:
                self.wfile.write(piece)
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("port", type=int)
    ap.add_argument("--bytes", type=int, default=1 << 20, help="stream size (default 1 MiB)")
    ap.add_argument("--content", type=int, help="size the stream by its content bytes instead")
    ap.add_argument("--rate", type=float, help="content bytes per second (default: no pacing)")
    ap.add_argument("--scenario", help="serve a gen_scenarios.py scenario file instead")
    args = ap.parse_args()

    if args.scenario:
        with open(args.scenario, encoding="utf-8") as f:
            turns = json.load(f)["turns"]
        for t in turns:
            events = scenario_events(t["text"], int(t.get("chunk") or 20))
            delay = float(t.get("delay_ms") or 0) / 1000
            if delay > 0:
                paced = [(frame(e), k * delay) for k, (e, _) in enumerate(events)]
                Handler.turns.append(([], paced))
            else:
                Handler.turns.append((flood_pieces(b"".join(e for e, _ in events)), []))
        events = scenario_events(turns[0]["text"], int(turns[0].get("chunk") or 20))
        content = sum(c for _, c in events)
    else:
        events, content = make_stream(args.content or args.bytes, by_content=bool(args.content))
    body = b"".join(e for e, _ in events)
    if args.scenario:
        pass  # the turns are framed above
    elif args.rate:
        sent = 0
        for e, c in events:
            sent += c
            Handler.paced.append((frame(e), sent / args.rate))
    else:
        Handler.pieces = flood_pieces(body)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(
        f"sse_server: http://127.0.0.1:{args.port}/v1 serving {len(body)} bytes "
        f"({content} bytes of content)",
        flush=True,
    )
    try:
        server.serve_forever()
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
