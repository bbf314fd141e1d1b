#!/usr/bin/env python3
"""A loopback HTTP proxy in front of an S3 server, for tests that need to see or break traffic.

It forwards every request unchanged (method, raw path and query, every end-to-end header including
Host, so SigV4 signatures stay valid), counts what it saw, and on command answers the next matching
requests with a fault instead. Python 3 standard library only.

Counting (GET /__proxy/stats, text "name value" lines; POST /__proxy/reset zeroes it and clears
pending faults):
  requests.<KIND>      requests received, faulted ones included; KIND is HEAD, GET, PUT, POST,
                       DELETE, or LIST (a GET with list-type in its query)
  requests.total
  bytes_out.<KIND>     response body bytes of 2xx responses relayed from the server
  error_bytes_out      response body bytes of non-2xx responses relayed from the server
  bytes_in.<KIND>      request body bytes received
  status.<CODE>        responses relayed from the server, by status
  faults.injected      requests answered with a fault
  connections          client connections that carried a proxied (non-control) request
  inflight.max         most requests in progress at once (received, response not yet sent)

Faults (POST /__proxy/inject?...; each applies to the next `count` requests whose kind matches
`kind`, default any):
  action=status&status=503   answer with that status and an S3 error body (503: SlowDown,
                             500: InternalError) without forwarding
  action=reset               read the request, then reset the connection (TCP RST), no response
  action=truncate            forward, then send the headers and half the body and reset
  action=delay&ms=N          wait N ms, then forward as usual (for client timeouts)

Connections: HTTP/1.1 keep-alive towards the client and towards the server; each client connection
gets its own server connection, so requests on one connection stay in order.
"""

import argparse
import http.client
import http.server
import os
import socket
import struct
import sys
import threading
import time
import urllib.parse

# Hop-by-hop headers (RFC 9110 7.6.1) plus Expect, which this proxy answers itself.
HOP_BY_HOP = {
    "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization",
    "te", "trailer", "transfer-encoding", "upgrade", "expect",
}
KINDS = ("HEAD", "GET", "PUT", "POST", "DELETE", "LIST")

ERROR_CODES = {
    503: ("SlowDown", "Please reduce your request rate."),
    500: ("InternalError", "We encountered an internal error. Please try again."),
}


class State:
    def __init__(self):
        self.lock = threading.Lock()
        self.inflight = 0  # not reset: requests in progress during a reset still finish
        self.reset()

    def reset(self):
        self.counters = {}
        self.faults = []

    def add(self, name, n=1):
        self.counters[name] = self.counters.get(name, 0) + n

    def take_fault(self, kind):
        """The first pending fault matching `kind`, consuming one of its uses."""
        for fault in self.faults:
            if fault["kind"] in ("", kind):
                fault["count"] -= 1
                if fault["count"] <= 0:
                    self.faults.remove(fault)
                return fault
        return None


STATE = State()
UPSTREAM = ("127.0.0.1", 0)
VERBOSE = False


def kind_of(method, path):
    if method == "GET":
        query = urllib.parse.urlsplit(path).query
        if "list-type" in urllib.parse.parse_qs(query, keep_blank_values=True):
            return "LIST"
    return method


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "floe-s3-proxy"
    # Headers and body go out in separate writes; with Nagle on, the body waits for the client's
    # delayed ACK (40 ms per response).
    disable_nagle_algorithm = True

    def setup(self):
        super().setup()
        self.upstream = None
        self.counted = False  # counted as a connection at its first proxied request

    def finish(self):
        try:
            super().finish()
        finally:
            if self.upstream is not None:
                self.upstream.close()

    def log_message(self, fmt, *args):
        if VERBOSE:
            sys.stderr.write(f"s3_proxy: {time.monotonic():.3f} [client port "
                             f"{self.client_address[1]}] " + (fmt % args) + "\n")

    def do_GET(self):
        self.handle_any()

    do_HEAD = do_PUT = do_POST = do_DELETE = do_GET

    # -- control ---------------------------------------------------------------------------------

    def reply_text(self, status, text):
        data = text.encode()
        self.send_response_only(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def control(self, body):
        url = urllib.parse.urlsplit(self.path)
        params = {k: v[-1] for k, v in urllib.parse.parse_qs(url.query).items()}
        if url.path == "/__proxy/stats" and self.command == "GET":
            with STATE.lock:
                lines = [f"{k} {v}" for k, v in sorted(STATE.counters.items())]
            return self.reply_text(200, "".join(line + "\n" for line in lines))
        if url.path == "/__proxy/reset" and self.command == "POST":
            with STATE.lock:
                STATE.reset()
            return self.reply_text(200, "ok\n")
        if url.path == "/__proxy/inject" and self.command == "POST":
            action = params.get("action", "status" if "status" in params else "")
            if action not in ("status", "reset", "truncate", "delay"):
                return self.reply_text(400, f"unknown action '{action}'\n")
            kind = params.get("kind", "").upper()
            if kind and kind not in KINDS:
                return self.reply_text(400, f"unknown kind '{kind}'\n")
            try:
                fault = {
                    "action": action,
                    "status": int(params.get("status", "503")),
                    "count": int(params.get("count", "1")),
                    "ms": int(params.get("ms", "0")),
                    "kind": kind,
                }
            except ValueError:
                return self.reply_text(400, "status, count and ms must be integers\n")
            with STATE.lock:
                STATE.faults.append(fault)
            return self.reply_text(200, "ok\n")
        return self.reply_text(404, f"unknown control path {url.path}\n")

    # -- proxying --------------------------------------------------------------------------------

    def read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length", "0") or "0")
        return self.rfile.read(length) if length else b""

    def reset_connection(self):
        # SO_LINGER with a zero timeout turns close() into a TCP RST: the client sees
        # "connection reset by peer", as from a crashing server or a middlebox.
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.connection.close()
        self.close_connection = True

    def forward(self, body, fresh):
        if fresh or self.upstream is None:
            if self.upstream is not None:
                self.upstream.close()
            self.upstream = http.client.HTTPConnection(*UPSTREAM, timeout=300)
        conn = self.upstream
        conn.putrequest(self.command, self.path, skip_host=True, skip_accept_encoding=True)
        has_length = False
        for name, value in self.headers.items():
            lower = name.lower()
            if lower in HOP_BY_HOP:
                continue
            has_length |= lower == "content-length"
            conn.putheader(name, value)
        if body and not has_length:
            conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body if body else None)
        resp = conn.getresponse()
        data = resp.read()
        if resp.will_close:
            conn.close()
            self.upstream = None
        return resp, data

    def handle_any(self):
        body = self.read_body()
        if self.path.startswith("/__proxy/"):
            return self.control(body)
        kind = kind_of(self.command, self.path)
        with STATE.lock:
            STATE.inflight += 1
            if STATE.inflight > STATE.counters.get("inflight.max", 0):
                STATE.counters["inflight.max"] = STATE.inflight
        try:
            self.proxy_one(kind, body)
        finally:
            with STATE.lock:
                STATE.inflight -= 1

    def proxy_one(self, kind, body):
        self.log_message("%s %s", self.command, self.path)
        with STATE.lock:
            if not self.counted:
                # Control requests (stats, reset, inject) open connections too; they don't count.
                self.counted = True
                STATE.add("connections")
            STATE.add(f"requests.{kind}")
            STATE.add("requests.total")
            if body:
                STATE.add(f"bytes_in.{kind}", len(body))
            fault = STATE.take_fault(kind)
            if fault:
                STATE.add("faults.injected")

        if fault and fault["action"] == "status":
            status = fault["status"]
            code, message = ERROR_CODES.get(status, ("InjectedFault", "Injected by s3_proxy."))
            xml = ('<?xml version="1.0" encoding="UTF-8"?>\n'
                   f"<Error><Code>{code}</Code><Message>{message}</Message></Error>").encode()
            self.send_response_only(status)
            self.send_header("Content-Type", "application/xml")
            self.send_header("Content-Length", str(len(xml)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(xml)
            return
        if fault and fault["action"] == "reset":
            return self.reset_connection()
        if fault and fault["action"] == "delay":
            time.sleep(fault["ms"] / 1000.0)

        try:
            resp, data = self.forward(body, fresh=False)
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
            # The server closed an idle kept-alive connection before reading this request; it did
            # not see it, so sending it again on a new connection is safe.
            resp, data = self.forward(body, fresh=True)

        truncate = fault is not None and fault["action"] == "truncate" and self.command != "HEAD"
        sent = len(data) // 2 if truncate else len(data)
        with STATE.lock:
            STATE.add(f"status.{resp.status}")
            if 200 <= resp.status < 300:
                if sent:
                    STATE.add(f"bytes_out.{kind}", sent)
            elif sent:
                STATE.add("error_bytes_out", sent)

        try:
            self.send_response_only(resp.status, resp.reason)
            has_length = False
            for name, value in resp.getheaders():
                lower = name.lower()
                if lower in HOP_BY_HOP:
                    continue
                has_length |= lower == "content-length"
                self.send_header(name, value)
            if not has_length and self.command != "HEAD" and resp.status not in (204, 304):
                self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if self.command == "HEAD":
                return
            if truncate:
                self.wfile.write(data[:sent])
                return self.reset_connection()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            # The client gave up (a timeout it was meant to hit); nothing more to say to it.
            self.close_connection = True


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128


def main():
    global UPSTREAM, VERBOSE
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--upstream", required=True, help="http://host:port of the S3 server")
    parser.add_argument("--port", type=int, default=0, help="listen port on 127.0.0.1 (0: any)")
    parser.add_argument("--port-file", help="write the chosen port here once listening")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    url = urllib.parse.urlsplit(args.upstream)
    if url.scheme != "http" or not url.hostname:
        parser.error(f"--upstream must be http://host:port, got '{args.upstream}'")
    UPSTREAM = (url.hostname, url.port or 80)
    VERBOSE = args.verbose

    # A test that dies without stopping its proxy must not leave it behind: exit with the parent.
    parent = os.getppid()

    def watch_parent():
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch_parent, daemon=True).start()

    server = Server(("127.0.0.1", args.port), Handler)
    port = server.server_address[1]
    if args.port_file:
        tmp = args.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write(f"{port}\n")
        os.replace(tmp, args.port_file)
    else:
        print(port, flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
