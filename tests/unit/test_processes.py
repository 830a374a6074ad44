"""``start_sqlext`` against stand-ins for the server: a ``sqlext`` package
in a checkout of its own (``source``) whose ``python -m sqlext`` does not
start a server."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from sqlext.tools.processes import start_sqlext


def _checkout(root: Path, main: str) -> Path:
    """A checkout whose ``python -m sqlext`` runs ``main``."""
    package = root / "sqlext"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "__main__.py").write_text(main)
    return root


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_a_server_that_prints_nothing_fails_at_the_deadline(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    source = _checkout(tmp_path, "import os, pathlib, time\n"
                       f"pathlib.Path({str(pid_file)!r}).write_text(str(os.getpid()))\n"
                       "time.sleep(600)\n")
    started = time.monotonic()
    with pytest.raises(RuntimeError, match="sqlext server did not start"):
        start_sqlext(source=source, timeout=2)
    assert time.monotonic() - started < 10
    assert _gone(int(pid_file.read_text()))  # killed and reaped


def test_a_server_that_talks_but_never_listens_fails_at_the_deadline(tmp_path: Path) -> None:
    source = _checkout(tmp_path, "import time\n"
                       "print('starting', flush=True)\n"
                       "time.sleep(600)\n")
    started = time.monotonic()
    with pytest.raises(RuntimeError, match="did not start:\nstarting\n"):
        start_sqlext(source=source, timeout=2)
    assert time.monotonic() - started < 10


def test_a_server_that_exits_fails_at_once_with_its_output(tmp_path: Path) -> None:
    source = _checkout(tmp_path, "raise SystemExit('no such option')\n")
    with pytest.raises(RuntimeError, match="did not start:\nno such option\n"):
        start_sqlext(source=source, timeout=600)


def test_the_listening_line_gives_the_address(tmp_path: Path) -> None:
    source = _checkout(tmp_path, "import time\n"
                       "print('sqlext listening on 127.0.0.1:4242', flush=True)\n"
                       "time.sleep(600)\n")
    server = start_sqlext(source=source, timeout=30)
    try:
        assert (server.host, server.port) == ("127.0.0.1", 4242)
        assert server.log == ["sqlext listening on 127.0.0.1:4242\n"]
    finally:
        server.stop()
    assert server.process.returncode is not None
