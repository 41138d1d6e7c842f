"""Serve web-demo/dist on localhost (what `make run` runs, through scripts/serve-demo.sh).

Like `python3 -m http.server --bind 127.0.0.1 8000`, plus the headers that make the page
cross-origin isolated (so a check can be cancelled through grail's progress callback, with a
SharedArrayBuffer) and explicit content types for .mjs and .wasm.
"""

import argparse
import functools
import http.server
import sys


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".mjs": "text/javascript",
        ".js": "text/javascript",
        ".wasm": "application/wasm",
        ".json": "application/json",
        ".edn": "text/plain; charset=utf-8",
        ".svg": "image/svg+xml",
    }

    def end_headers(self):
        self.send_header("Cross-Origin-Opener-Policy", "same-origin")
        self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        self.send_header("Cross-Origin-Resource-Policy", "same-origin")
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--bind", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--dir", required=True)
    a = p.parse_args()
    handler = functools.partial(Handler, directory=a.dir)
    try:
        server = http.server.ThreadingHTTPServer((a.bind, a.port), handler)
    except OSError as e:
        print(f"serve-demo: cannot listen on {a.bind}:{a.port}: {e} (set PORT=... to use another port)", file=sys.stderr)
        sys.exit(1)
    print(f"grail web demo: http://{a.bind}:{a.port}/  (Ctrl-C to stop)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("\nserve-demo: stopped")
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
