"""Kept-alive HTTP connections to one SPARQL server, shared by the threads of a process.

A request used to open a TCP connection of its own (``urllib.request``). An ask sends about 23
queries, so each paid the handshake and the server's connection setup, and a busy instance left
thousands of sockets a second in TIME_WAIT. On ``oxigraph serve``, a trivial query took 0.45 ms
over a new connection and 0.18 ms over a kept one (p50 of 300 on loopback), and an ask at 10k
facts 153 ms against 124 ms. ``http.client`` is used directly: httpx2 (which openai brings) keeps
connections too, but took 0.66 ms for the trivial query, more than a new connection. Virtuoso 7.2
answered asks more slowly over kept connections (:attr:`~provgraph.store.dialects.Dialect.kept_connections`),
so a pool can also open a new connection a request, as urllib did.

A connection is taken for one request and given back once its answer has been read to the end;
one whose answer was left unread, or that the server said it would close, is closed instead. An
idle connection the server has closed meanwhile (its socket reads as ready: the server's FIN) is
dropped when taken. A request that meets a connection closed under it anyway is sent once more on
a new one, when it may be (its body is bytes, not a stream already read). HTTP proxies from the
environment (``http_proxy``, ``https_proxy``, ``no_proxy``) are used as ``urllib`` used them.
"""

from __future__ import annotations

import base64
import contextlib
import http.client
import os
import select
import ssl
import threading
import urllib.parse
import urllib.request
from collections.abc import Iterable, Iterator

#: Idle connections kept; more are closed when given back (a burst of threads opens more).
MOST_IDLE = 16
#: What a connection closed by the server raises when it is used: the request never reached it.
_CLOSED = (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError, ConnectionAbortedError)


class ConnectionPool:
    """Connections to the server of ``url`` (its scheme, host and port); with ``keep`` False, a
    new one a request, closed by the server once it has answered (``Connection: close``)."""

    def __init__(self, url: str, *, timeout: float, keep: bool = True) -> None:
        self._keep = keep
        parts = urllib.parse.urlsplit(url)
        self._https = parts.scheme == "https"
        self._host = parts.hostname or ""
        self._port = parts.port or (443 if self._https else 80)
        self._timeout = timeout
        self._proxy: urllib.parse.SplitResult | None = None
        proxy = urllib.request.getproxies().get(parts.scheme)
        if proxy and not urllib.request.proxy_bypass(self._host):
            self._proxy = urllib.parse.urlsplit(proxy if "://" in proxy else "http://" + proxy)
        self._idle: list[http.client.HTTPConnection] = []
        self._lock = threading.Lock()
        self._pid = os.getpid()

    @contextlib.contextmanager
    def request(
        self, method: str, url: str, body: bytes | Iterable[bytes] | None, headers: dict[str, str]
    ) -> Iterator[http.client.HTTPResponse]:
        """The server's answer to ``method url``, to read as it comes. Raises :class:`OSError`
        (the server cannot be reached) or :class:`http.client.HTTPException`."""
        parts = urllib.parse.urlsplit(url)
        plain_proxy = self._proxy is not None and not self._https
        # through a plain HTTP proxy the request names the whole URL; otherwise its path
        target = url if plain_proxy else (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        if plain_proxy:
            headers = {**headers, **self._proxy_authorization()}
        if not self._keep:
            headers = {**headers, "Connection": "close"}
        connection, kept = self._take()
        try:
            try:
                response = self._send(connection, method, target, body, headers)
            except _CLOSED:
                if not kept or not (body is None or isinstance(body, bytes)):
                    raise
                connection.close()  # the server closed it while idle: send again on a new one
                connection = self._new()
                response = self._send(connection, method, target, body, headers)
        except BaseException:
            connection.close()
            raise
        try:
            yield response
        except BaseException:
            connection.close()
            raise
        if response.isclosed() and not response.will_close:
            self._give(connection)
        else:  # the answer was not read to its end, or the server closes the connection
            connection.close()

    def close(self) -> None:
        """Close the idle connections (one in use is closed when its request ends)."""
        with self._lock:
            idle, self._idle = self._idle, []
        for connection in idle:
            connection.close()

    @staticmethod
    def _send(
        connection: http.client.HTTPConnection,
        method: str,
        target: str,
        body: bytes | Iterable[bytes] | None,
        headers: dict[str, str],
    ) -> http.client.HTTPResponse:
        connection.request(method, target, body=body, headers=headers)
        return connection.getresponse()

    def _take(self) -> tuple[http.client.HTTPConnection, bool]:
        """An idle connection still open (True), or a new one (False)."""
        with self._lock:
            if self._pid != os.getpid():  # a child process: its parent's sockets are not its own
                self._idle, self._pid = [], os.getpid()
            while self._idle:
                connection = self._idle.pop()
                sock = connection.sock
                if sock is not None and not select.select([sock], [], [], 0)[0]:
                    return connection, True
                connection.close()
        return self._new(), False

    def _give(self, connection: http.client.HTTPConnection) -> None:
        with self._lock:
            if self._keep and len(self._idle) < MOST_IDLE and self._pid == os.getpid():
                self._idle.append(connection)
                return
        connection.close()

    def _new(self) -> http.client.HTTPConnection:
        connection: http.client.HTTPConnection
        if self._proxy is None:
            if self._https:
                return http.client.HTTPSConnection(
                    self._host, self._port, timeout=self._timeout, context=ssl.create_default_context()
                )
            return http.client.HTTPConnection(self._host, self._port, timeout=self._timeout)
        proxy_port = self._proxy.port or (443 if self._proxy.scheme == "https" else 80)
        proxy_host = self._proxy.hostname or ""
        if not self._https:
            return http.client.HTTPConnection(proxy_host, proxy_port, timeout=self._timeout)
        # HTTPS through the proxy: a CONNECT tunnel, then TLS with the server itself
        connection = http.client.HTTPSConnection(
            proxy_host, proxy_port, timeout=self._timeout, context=ssl.create_default_context()
        )
        connection.set_tunnel(self._host, self._port, headers=self._proxy_authorization())
        return connection

    def _proxy_authorization(self) -> dict[str, str]:
        if self._proxy is None or self._proxy.username is None:
            return {}
        user = urllib.parse.unquote(self._proxy.username)
        password = urllib.parse.unquote(self._proxy.password or "")
        return {"Proxy-Authorization": "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()}
