"""A real HTTP server for generated sites, on 127.0.0.1 only, that stops by itself.

:class:`SiteServer` serves a dict ``path -> HTML`` from a ``ThreadingHTTPServer`` bound to
``127.0.0.1`` on a free port.  It stops after ``max_requests`` requests or ``idle_seconds``
without one (a watchdog thread), and on leaving its ``with`` block.  Every element of a
served page carries ``data-nid`` (its document-order number), and ``?render=1`` appends a
script that writes each element's box (``getBoundingClientRect`` plus scroll) into
``data-box`` -- what :func:`render_boxes` reads back from headless Chromium.

:func:`fetch` reads a URL on this machine only and turns every failure into a
``ConnectionError`` or ``ValueError`` that names the URL.
"""

from __future__ import annotations

import http.server
import shutil
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from typing import Any

from infometer.core.validation import check_int, check_seconds

from ._html import parse

__all__ = ["SiteServer", "fetch", "annotate", "render_boxes", "chromium_path", "BOX_SCRIPT"]

BOX_SCRIPT = (
    "<script>for (const e of document.querySelectorAll('[data-nid]')) {"
    "const r = e.getBoundingClientRect();"
    "e.setAttribute('data-box', [r.x, r.y + window.scrollY, r.width, r.height]"
    ".map(Math.round).join(','));}</script>"
)


def annotate(html: str) -> str:
    """``html`` with ``data-nid`` on every element (document order, from 0).

    Examples
    --------
    >>> 'data-nid="0"' in annotate("<p>x</p>")
    True
    """
    import lxml.html

    root = parse(html)
    for i, el in enumerate(e for e in root.iter() if isinstance(e.tag, str)):
        el.set("data-nid", str(i))
    return "<!DOCTYPE html>" + lxml.html.tostring(root, encoding="unicode")


class SiteServer:
    """Serve ``pages`` (path -> HTML) on 127.0.0.1; stops itself when idle or exhausted.

    Parameters
    ----------
    pages
        Paths (``"/v0/books/0"``) to HTML.  A query string other than ``render=1`` is
        part of the path (``"/x?page=2"``).
    max_requests
        Requests served before the server stops.
    idle_seconds
        Seconds without a request before it stops.

    Examples
    --------
    >>> with SiteServer({"/a": "<p>hi</p>"}) as srv:
    ...     "hi" in fetch(srv.url("/a"))
    True
    """

    def __init__(
        self, pages: Mapping[str, str], *, max_requests: int = 5000, idle_seconds: float = 120.0
    ) -> None:
        if not isinstance(pages, Mapping) or not pages:
            raise ValueError("pages must be a non-empty mapping of path -> HTML")
        self.max_requests = check_int(max_requests, "max_requests", min_value=1)
        # NaN or inf idle seconds never stop the server; 0 or less stops it at once
        self.idle_seconds = check_seconds(idle_seconds, "idle_seconds")
        self.pages = {p: annotate(h) for p, h in pages.items()}
        self.requests = 0
        self._last = time.monotonic()
        self._httpd: http.server.ThreadingHTTPServer | None = None
        self._threads: list[threading.Thread] = []
        self.stopped = threading.Event()

    def _handler(self) -> type[http.server.BaseHTTPRequestHandler]:
        srv = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
                srv.requests += 1
                srv._last = time.monotonic()
                u = urllib.parse.urlsplit(self.path)
                q = urllib.parse.parse_qs(u.query)
                render = q.pop("render", None) is not None
                rest = urllib.parse.urlencode({k: v[0] for k, v in q.items()})
                path = u.path + (f"?{rest}" if rest else "")
                html = srv.pages.get(path)
                if html is None:
                    self.send_error(404, f"no page at {path}")
                    return
                if render:
                    html = html.replace("</body>", BOX_SCRIPT + "</body>")
                body = html.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                if srv.requests >= srv.max_requests:
                    threading.Thread(target=srv.stop, daemon=True).start()

            def log_message(self, *args: Any) -> None:
                pass

        return Handler

    def start(self) -> SiteServer:
        """Bind 127.0.0.1 on a free port and serve in background threads."""
        self._httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        t = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        w = threading.Thread(target=self._watchdog, daemon=True)
        t.start()
        w.start()
        self._threads = [t, w]
        return self

    def _watchdog(self) -> None:
        while not self.stopped.wait(0.2):
            if time.monotonic() - self._last > self.idle_seconds:
                self.stop()

    @property
    def port(self) -> int:
        """The bound port."""
        if self._httpd is None:
            raise RuntimeError("the server is not started")
        return int(self._httpd.server_address[1])

    def url(self, path: str) -> str:
        """Absolute URL of ``path`` on this server."""
        return f"http://127.0.0.1:{self.port}{path}"

    def stop(self) -> None:
        """Stop serving (idempotent)."""
        if self.stopped.is_set():
            return
        self.stopped.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()

    def __enter__(self) -> SiteServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


_LOOPBACK = ("127.0.0.1", "localhost")


def _is_local(url: str) -> bool:
    u = urllib.parse.urlsplit(url)
    return u.scheme == "http" and u.hostname in _LOOPBACK


class _LoopbackRedirects(urllib.request.HTTPRedirectHandler):
    """Follow a redirect only to another ``http://127.0.0.1``/``localhost`` URL."""

    def http_error_302(self, req: Any, fp: Any, code: int, msg: str, headers: Any) -> Any:
        loc = headers.get("location") or headers.get("uri") or ""
        target = urllib.parse.urljoin(req.full_url, loc)
        if not _is_local(target):
            fp.close()
            raise _OffLoopback(f"{req.full_url} redirected off the loopback host to {target!r}")
        return super().http_error_302(req, fp, code, msg, headers)

    http_error_301 = http_error_303 = http_error_307 = http_error_308 = http_error_302


class _OffLoopback(urllib.error.URLError):
    pass


#: No proxies (an ``http_proxy`` variable would send local requests elsewhere) and no
#: redirects off the loopback host.
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}), _LoopbackRedirects())


def fetch(url: str, *, timeout: float = 5.0) -> str:
    """GET a page from this machine (``127.0.0.1``/``localhost`` only).

    Redirects are followed only to another ``127.0.0.1``/``localhost`` URL and proxy
    settings are ignored.  Raises ``ValueError`` for a non-local or malformed URL, a
    redirect off the loopback host or an HTTP error, and ``ConnectionError`` for an
    unreachable server; all name the URL.

    Examples
    --------
    >>> with SiteServer({"/x": "<p>ok</p>"}) as srv:
    ...     "ok" in fetch(srv.url("/x"))
    True
    """
    if not isinstance(url, str):
        raise TypeError(f"url must be a string, got {type(url).__name__}")
    if not _is_local(url):
        raise ValueError(f"url must be http://127.0.0.1:PORT/... (local only), got {url!r}")
    try:
        with _OPENER.open(url, timeout=timeout) as r:
            return r.read().decode("utf-8", errors="replace")
    except _OffLoopback as e:
        raise ValueError(str(e.reason)) from None
    except urllib.error.HTTPError as e:
        raise ValueError(f"{url} answered HTTP {e.code} ({e.reason})") from None
    except (urllib.error.URLError, OSError) as e:
        reason = getattr(e, "reason", e)
        raise ConnectionError(f"could not fetch {url}: {reason}") from None


def chromium_path() -> str | None:
    """The headless-capable Chromium on PATH, or ``None``."""
    for b in ("chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(b)
        if p:
            return p
    return None


def render_boxes(url: str, *, timeout: float = 60.0) -> dict[int, tuple[int, int, int, int]]:
    """Node boxes ``nid -> (x, y, width, height)`` of a served page, from headless Chromium.

    The page is loaded at 1280 x 800 with ``?render=1`` and its DOM dumped after the box
    script ran.  Raises ``RuntimeError`` if Chromium is missing or fails.
    """
    exe = chromium_path()
    if exe is None:
        raise RuntimeError("headless Chromium is not installed (run .ci/ensure-chromium)")
    sep = "&" if "?" in url else "?"
    cmd = [
        exe,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--hide-scrollbars",
        "--window-size=1280,800",
        "--virtual-time-budget=3000",
        "--dump-dom",
        f"{url}{sep}render=1",
    ]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"chromium did not render {url} within {timeout:g} s") from None
    if p.returncode != 0 or "data-box" not in p.stdout:
        raise RuntimeError(f"chromium failed on {url}: {p.stderr.strip()[-300:]}")
    root = parse(p.stdout, name="rendered DOM")
    out = {}
    for el in root.xpath("//*[@data-nid and @data-box]"):
        x, y, w, h = (int(v) for v in el.get("data-box").split(","))
        out[int(el.get("data-nid"))] = (x, y, w, h)
    return out
