"""Helpers shared by the systems' Python entry points (``<system>/contract.py``).

:func:`as_options` turns ``options`` (None, a dict, or the system's pydantic options
object) into that object, with a bad field reported as an :class:`InputError` that names
it; :func:`sample_file` is a shipped sample; :func:`client_of` accepts a spec or a client.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from noveval.errors import InputError
from noveval.io import validation_field
from noveval.models.chat import ChatClientProtocol
from noveval.models.types import ModelLike

__all__ = ["RunOptions", "as_options", "client_of", "sample_file"]

OptionsT = TypeVar("OptionsT", bound=BaseModel)


class RunOptions(BaseModel):
    """The options every system that builds its chat client from a spec shares (unknown fields are errors).

    Attributes:
        overwrite: Replace a run with other settings in ``out``.
        cache: Response cache: ``default``, a path, or None (no cache).
        concurrency: Requests in flight.
    """

    model_config = ConfigDict(extra="forbid")

    overwrite: bool = False
    cache: str | None = "default"
    concurrency: int | None = Field(None, ge=1)


def as_options(cls: type[OptionsT], options: OptionsT | dict[str, Any] | None) -> OptionsT:
    """``options`` as a ``cls`` (None: the defaults).

    Raises:
        InputError: an unknown option or a value of the wrong type or range
            (``options.<field>: <what is wrong>``).
    """
    if options is None:
        return cls()
    if isinstance(options, cls):
        return options
    if isinstance(options, BaseModel):
        raise InputError(None, None, "options", f"expected {cls.__name__} (or a dict of its fields), got {type(options).__name__}")
    if not isinstance(options, dict):
        raise InputError(None, None, "options", f"expected {cls.__name__} or a dict of its fields, got {type(options).__name__}")
    try:
        return cls.model_validate(options)
    except ValidationError as e:
        field, msg = validation_field(e)
        raise InputError(None, None, f"options.{field}", msg) from e


def sample_file(system: str, name: str) -> Path:
    """A file shipped under ``noveval/samples/<system>/``."""
    return Path(str(resources.files("noveval").joinpath("samples", system, name)))


def client_of(model: ModelLike, **kw: Any) -> ChatClientProtocol:
    """A chat client: ``model`` itself when it is one, else :func:`noveval.models.client.get_client` of the spec."""
    if not isinstance(model, str):
        return model
    from noveval.models.client import get_client

    return get_client(model, **kw)
