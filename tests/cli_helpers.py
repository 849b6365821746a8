"""The CLI as the tests call it: quiet, in process, and the one-line error contract."""

from __future__ import annotations

import socket
from typing import Any

from typer.testing import CliRunner


def cli(*args: str) -> Any:
    """``noveval -q ARGS`` in process (Typer's runner; stdout and stderr kept apart)."""
    from noveval.cli.main import app

    return CliRunner().invoke(app, ["-q", *args])


def one_line_exit_2(r: Any, *needles: str) -> None:
    """An input error: exit 2, exactly one ``error: ...`` line on stderr holding every needle, no traceback."""
    assert r.exit_code == 2, r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    assert "Traceback" not in r.output
    for n in needles:
        assert n in lines[0], (n, lines[0])


def closed_port() -> int:
    """A 127.0.0.1 port nothing listens on (bound, then closed): connections to it are refused."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = int(s.getsockname()[1])
    s.close()
    return port
