"""``sqlext serve --http-port N``: a small read-only web page of the running
dataflow (its graph with counts and rates, the system views, log and
snapshot state, recent errors), refreshing itself.

Served from the engine's own event loop, so reading the state needs no
locks and never waits for the executor: the rows come from the same
functions that fill the system views (``LiveTables.rows``), which count a
stream's tuples with a query of their own, as monitoring queries do (an
open transaction's batches may show). ``/`` is the page, ``/state.json`` what it shows (the
views, recent errors, and the dataflow as EXPLAIN (FORMAT JSON) DATAFLOW
gives it) and ``/graph.svg`` the graph drawn by Graphviz. Nothing can be
changed here.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import shutil
from collections import deque
from datetime import UTC, datetime
from importlib import resources
from typing import Any, Final

from catalog.schema import PG_CATALOG, PUBLIC
from executor.core import Executor
from executor.pg_catalog.live import LiveTables
from executor.streaming.scheduler import Scheduler
from sqlext.dataflow.explain import dataflow_document
from sqlext.dataflow.render import Document, render_dot

log = logging.getLogger("sqlext")

VIEWS: Final[dict[str, tuple[str, ...] | None]] = {
    "sqlext_streams": None, "sqlext_windows": None, "sqlext_procedures": None,
    "sqlext_log": None, "sqlext_snapshots": None, "sqlext_checkpoints": None,
    "pg_stat_activity": ("pid", "usename", "application_name", "client_addr", "state",
                         "query_start", "query"),
}
"""The system views the page shows, with the columns it shows (None: all)."""
RECENT_ERRORS: Final = 20
_REQUEST_LIMIT: Final = 8192
_REQUEST_TIMEOUT_S: Final = 10.0


class RecentErrors(logging.Handler):
    """The server's last ERROR log records (a procedure that stopped, say)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: deque[dict[str, str]] = deque(maxlen=RECENT_ERRORS)

    def emit(self, record: logging.LogRecord) -> None:
        self.records.appendleft({
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="seconds"),
            "message": record.getMessage()})


class Dashboard:
    def __init__(self, executor: Executor, scheduler: Scheduler, live_tables: LiveTables
                 ) -> None:
        self.executor = executor
        self.scheduler = scheduler
        self.live_tables = live_tables
        self.errors = RecentErrors()
        self._page = resources.files("sqlext.server").joinpath("dashboard.html").read_bytes()
        self._server: asyncio.Server | None = None
        self._drawn: tuple[str, bytes] | None = None
        """The last DOT text drawn, and its SVG."""

    async def start(self, host: str, port: int) -> int:
        """Listens on ``host``:``port`` (0: a free one); returns the port."""
        logging.getLogger("sqlext").addHandler(self.errors)
        self._server = await asyncio.start_server(self._serve, host, port)
        return self._server.sockets[0].getsockname()[1]

    def close(self) -> None:
        logging.getLogger("sqlext").removeHandler(self.errors)
        if self._server is not None:
            self._server.close()

    def state(self) -> dict[str, Any]:
        catalog = self.executor.catalog
        views = {}
        for name, shown in VIEWS.items():
            columns = [c.name for c in catalog.relation(name, PG_CATALOG).columns]
            rows = self.live_tables.rows(name)
            if shown is not None:
                positions = [columns.index(column) for column in shown]
                columns = list(shown)
                rows = [tuple(row[i] for i in positions) for row in rows]
            views[name] = {"columns": columns, "rows": rows}
        return {"time": datetime.now(UTC).isoformat(timespec="milliseconds"),
                "views": views, "errors": list(self.errors.records),
                "dataflow": self._document()}

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError, asyncio.TimeoutError,
                                 asyncio.LimitOverrunError, asyncio.IncompleteReadError):
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), _REQUEST_TIMEOUT_S)
            status, content_type, body = await self._answer(head[:_REQUEST_LIMIT])
            writer.write(b"HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n"
                         b"Cache-Control: no-store\r\nConnection: close\r\n\r\n"
                         % (status.encode(), content_type.encode(), len(body)) + body)
            await writer.drain()
        writer.close()

    async def _answer(self, head: bytes) -> tuple[str, str, bytes]:
        method, _, rest = head.partition(b" ")
        path = rest.partition(b" ")[0].partition(b"?")[0]
        if method != b"GET":
            return "405 Method Not Allowed", "text/plain", b"read-only: GET only\n"
        if path == b"/":
            return "200 OK", "text/html; charset=utf-8", self._page
        if path == b"/state.json":
            body = json.dumps(self.state(), default=str).encode()
            return "200 OK", "application/json", body
        if path == b"/graph.svg":
            return await self._graph()
        return "404 Not Found", "text/plain", b"not found\n"

    def _document(self) -> Document:
        return dataflow_document(self.executor.catalog, self.executor, self.scheduler)

    async def _graph(self) -> tuple[str, str, bytes]:
        """The graph drawn by Graphviz (the same drawing is not made twice)."""
        dot = render_dot(self._document(), (PUBLIC,))
        if self._drawn is None or self._drawn[0] != dot:
            program = shutil.which("dot")
            if program is None:
                return ("503 Service Unavailable", "text/plain",
                        b"the graph needs Graphviz's dot program (apt-get install graphviz)")
            drawing = await asyncio.create_subprocess_exec(
                program, "-Tsvg", stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
            svg, problem = await drawing.communicate(dot.encode())
            if drawing.returncode != 0:
                return "500 Internal Server Error", "text/plain", problem
            self._drawn = (dot, svg)
        return "200 OK", "image/svg+xml", self._drawn[1]
