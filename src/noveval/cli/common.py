"""Helpers every CLI command uses: error handling and client construction."""

from __future__ import annotations

import contextlib
import functools
import sys
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import typer

from noveval.errors import ConfigError, InputError

F = TypeVar("F", bound=Callable[..., Any])

EXIT_INPUT = 2


def fail(message: str, code: int = EXIT_INPUT) -> None:
    """Print ``error: message`` on stderr and exit with ``code``."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def path_error(e: OSError) -> str:
    """One line for a file-system error on a path: ``path: No such file or directory``."""
    return f"{e.filename}: {(e.strerror or str(e)).lower()}"


@contextlib.contextmanager
def user_errors(interrupted_note: str = "") -> Iterator[None]:
    """Turn :class:`InputError` / :class:`ConfigError` (and an OSError on a path) into one line
    and exit 2, and Ctrl-C into one line and exit 130 (``interrupted_note`` is appended to it)."""
    try:
        yield
    except (InputError, ConfigError) as e:
        fail(str(e))
    except OSError as e:
        if e.filename is None:
            raise
        fail(path_error(e))
    except KeyboardInterrupt:
        typer.echo(f"interrupted: finished items are saved; run the same command again to resume{interrupted_note}",
                   err=True)
        raise typer.Exit(130) from None


def cli_errors(fn: F) -> F:
    """Run a command inside :func:`user_errors`: one line and exit 2 for bad input."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with user_errors():
            return fn(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


def make_client(
    model: str,
    *,
    no_cache: bool = False,
    refresh: bool = False,
    concurrency: int | None = None,
    timeout_s: float = 120.0,
) -> Any:
    """Build a chat client from CLI options (lazy import keeps ``--help`` fast)."""
    from noveval.models.client import get_client

    return get_client(
        model,
        cache=None if no_cache else "default",
        refresh=refresh,
        concurrency=concurrency,
        timeout_s=timeout_s,
    )


def stdout_is_tty() -> bool:
    """True when stdout is a terminal."""
    return sys.stdout.isatty()
