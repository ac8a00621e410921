#!/usr/bin/env python3
"""A tiny local OpenAI-compatible SSE server for benchmarks (stdlib only).

Usage: sse_server.py PORT [--bytes N | --content N] [--rate BYTES_PER_S]

Listens on 127.0.0.1:PORT (loopback only) and answers every `POST /v1/chat/completions` with
the same pre-generated stream of ~N bytes (default 1 MiB) of OpenAI-shaped
`chat.completion.chunk` events: a role chunk, small content deltas (1-6 words), a finish
chunk, a usage chunk and `data: [DONE]`. The body is sent with chunked transfer encoding in
16 KiB writes, as fast as the client reads it, so the time measured is the client's.

`--content N` sizes the stream by its reply text instead (~N bytes of content). `--rate R`
paces it like a slow model: one event per write, each sent when the content so far is due at
R bytes of content per second (a ~6 word delta every ~30 ms at 1,000 bytes/s).
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


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    pieces: list[bytes] = []
    # With --rate: (HTTP chunk, seconds after the start it is due).
    paced: list[tuple[bytes, float]] = []

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
        try:
            if self.paced:
                start = time.monotonic()
                for piece, due in self.paced:
                    wait = start + due - time.monotonic()
                    if wait > 0:
                        time.sleep(wait)
                    self.wfile.write(piece)
                    self.wfile.flush()
            for piece in self.pieces:
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
    args = ap.parse_args()

    events, content = make_stream(args.content or args.bytes, by_content=bool(args.content))
    frame = lambda b: b"%x\r\n" % len(b) + b + b"\r\n"
    body = b"".join(e for e, _ in events)
    if args.rate:
        sent = 0
        for e, c in events:
            sent += c
            Handler.paced.append((frame(e), sent / args.rate))
    else:
        step = 16 * 1024
        # Each 16 KiB piece pre-framed as one HTTP chunk: no per-request work but the writes.
        Handler.pieces = [frame(body[i : i + step]) for i in range(0, len(body), step)]
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
