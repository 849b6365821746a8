"""What systems ask of a model and an embedder: the protocols their parameters are typed by.

A system's code takes a chat client (:class:`~noveval.models.chat.ChatClientProtocol`) or an
embedder (:class:`EmbedderProtocol`), or a spec string that names one (:data:`ModelLike`,
:data:`EmbedderLike`), so any object with these members works: a user's own client, a test's
scripted one. Pure typing: nothing heavy is imported.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, TypeAlias, runtime_checkable

from noveval.models.chat import ChatClientProtocol

if TYPE_CHECKING:
    import numpy as np

__all__ = ["EmbedderLike", "EmbedderProtocol", "ModelLike", "as_embedder"]


@runtime_checkable
class EmbedderProtocol(Protocol):
    """An embedder: ``model_id`` (used in cache keys and run configs), ``dim`` and ``encode``."""

    @property
    def model_id(self) -> str:
        """The model's id (spec, precision and token limit where they change the vectors)."""
        ...

    @property
    def dim(self) -> int:
        """The vectors' dimension."""
        ...

    def encode(self, texts: Sequence[str], *, batch_size: int | None = None, progress: str | None = None) -> np.ndarray:
        """Float32 vectors of ``texts``, one row each, L2-normalised."""
        ...


ModelLike: TypeAlias = "str | ChatClientProtocol"
"""A chat model: a spec (``local``, ``openai/gpt-4o``, ...) or a ready client."""

EmbedderLike: TypeAlias = "str | EmbedderProtocol"
"""An embedder: a spec (``local``, ``openai-compatible/<model>@<url>``, ...) or a ready embedder."""


def as_embedder(embedder: EmbedderLike) -> EmbedderProtocol:
    """A ready embedder: ``embedder`` itself, or :func:`~noveval.models.embed.get_embedder` of a spec string."""
    if isinstance(embedder, str):
        from noveval.models.embed import get_embedder

        return get_embedder(embedder)
    return embedder
