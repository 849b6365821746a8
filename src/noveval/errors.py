"""Errors that the CLI turns into one clear line and a non-zero exit code."""

from __future__ import annotations

from pathlib import Path


class NovevalError(Exception):
    """Base class of all errors noveval raises on purpose."""


class InputError(NovevalError):
    """Bad user input: a file, line and field that cannot be used.

    ``str(error)`` is a single line ``path:line: field: message`` (parts that are
    unknown are left out), suitable for printing as-is. The CLI exits with code 2.

    Args:
        path: The offending file (or ``None`` for command-line values).
        line: 1-based line number in that file, if known.
        field: Dotted field path inside the record, if known (``related_works.0.title``).
        message: What is wrong, in plain words.
    """

    def __init__(
        self,
        path: str | Path | None,
        line: int | None,
        field: str | None,
        message: str,
    ) -> None:
        self.path = str(path) if path is not None else None
        self.line = line
        self.field = field
        self.message = message
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = self.path or "<input>"
        if self.line is not None:
            where += f":{self.line}"
        head = f"{where}: "
        if self.field:
            head += f"{self.field}: "
        return head + self.message


class ConfigError(NovevalError):
    """A model spec, endpoint or option that cannot work (missing key, bad URL, ...)."""
