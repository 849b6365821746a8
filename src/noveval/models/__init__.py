"""Everything that talks to a model: chat backends, cache, structured output, embeddings.

Public API (see ``docs/internals.md``)::

    from noveval.models import get_client, ChatRequest, GenerationParams
    client = get_client("local")
    [resp] = client.complete_many([ChatRequest(messages=[{"role": "user", "content": "Hi"}])])
"""

from noveval.models.cache import ResponseCache, cache_key
from noveval.models.chat import (
    ChatClientProtocol,
    ChatRequest,
    ChatResponse,
    GenerationParams,
    Message,
    TokenLogprob,
    TopLogprob,
)
from noveval.models.client import ChatClient, RetryPolicy, get_client
from noveval.models.spec import ModelSpec, parse_spec
from noveval.models.structured import (
    StructuredResult,
    acomplete_structured,
    acomplete_structured_many,
    complete_structured_many,
    extract_json,
    parse_as,
    schema_of,
)


def get_embedder(*args, **kwargs):  # type: ignore[no-untyped-def]
    """Lazy alias of :func:`noveval.models.embed.get_embedder` (keeps imports light)."""
    from noveval.models.embed import get_embedder as _g

    return _g(*args, **kwargs)


__all__ = [
    "ChatClient",
    "ChatClientProtocol",
    "ChatRequest",
    "ChatResponse",
    "GenerationParams",
    "Message",
    "ModelSpec",
    "ResponseCache",
    "RetryPolicy",
    "StructuredResult",
    "TokenLogprob",
    "TopLogprob",
    "acomplete_structured",
    "acomplete_structured_many",
    "cache_key",
    "complete_structured_many",
    "extract_json",
    "get_client",
    "get_embedder",
    "parse_as",
    "parse_spec",
    "schema_of",
]
