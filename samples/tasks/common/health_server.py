#!/usr/bin/env python3
"""Stand-in for the Blackbox Server's health endpoint (swegym-console samples, not the real BBS).

Serves GET /health -> {"healthy": true, "version": "1.1.0"} like Dressage's Blackbox Server, on
BBS_HOST:BBS_PORT (default 0.0.0.0:31000), with the Python standard library only.
"""
import http.server
import json
import os
import sys


class Handler(http.server.BaseHTTPRequestHandler):
    server_version = "swegym-sample-bbs/1.1.0"

    def _send(self, status, payload):
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.send_header("x-request-id", "req-00000000")
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path.split("?", 1)[0] == "/health":
            self._send(200, {"healthy": True, "version": "1.1.0"})
        else:
            self._send(404, {"error": "not_found", "message": "only /health is served by the sample stand-in", "details": {}})

    def log_message(self, fmt, *args):
        sys.stderr.write("%s %s\n" % (self.command if hasattr(self, "command") else "-", fmt % args))


def main():
    host = os.environ.get("BBS_HOST", "0.0.0.0")
    port = int(os.environ.get("BBS_PORT", "31000"))
    http.server.ThreadingHTTPServer((host, port), Handler).serve_forever()


if __name__ == "__main__":
    main()
