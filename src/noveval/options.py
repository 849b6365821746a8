"""Run options: the one declaration behind ``noveval run <name>`` and ``noveval.run``.

Every system declares one pydantic options class (``Benchmark.options``) that extends
:class:`RunOptions`. Its fields *are* the system's options: the CLI command
``noveval run <name>`` is generated from them (:mod:`noveval.cli.generate`) and the Python
``noveval.run(name, model, out, options=...)`` takes the same object (or a dict of its
fields). A field's CLI spelling is ``--field-name`` unless :func:`option` names flags.

Errors speak the caller's language: a bad value is ``options.<field>: ...`` here; the
CLI rewrites it to the flag (``--field-name: ...``).

Pure: pydantic only.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic_core import PydanticCustomError

from noveval.errors import InputError
from noveval.io import validation_field

__all__ = [
    "DataDirOption",
    "RetrievalMode",
    "GENERATION_FIELDS",
    "HF_SOURCE_HELP",
    "EMBEDDER_HELP",
    "EVERYDAY_EMBEDDER",
    "EmbedderOption",
    "ModelOption",
    "OutOption",
    "narrow",
    "shared",
    "PAPER_EMBEDDER",
    "embedder_option",
    "own_embedder",
    "paper_embedder",
    "JudgeOption",
    "OptionsT",
    "PromptVariantsOption",
    "RunOptions",
    "as_options",
    "flags_of",
    "model_specs",
    "option",
    "parse_extra_body",
]

OptionsT = TypeVar("OptionsT", bound=BaseModel)

HF_SOURCE_HELP = "or hf:NAME[:SPLIT], a Hugging Face dataset (hub id, read offline from the local cache, or a save_to_disk folder)"
"""Help text every data option that reads records through :func:`noveval.io.read_records` may append."""


def option(default: Any = ..., *flags: str, help: str, aliases: tuple[str, ...] = (), spec: str | None = None,
           json: bool = False, argument: bool = False, **constraints: Any) -> Any:
    """A documented options field with its CLI spelling.

    Args:
        default: The default (``...``: required).
        *flags: CLI flags (default ``--field-name``); a boolean may give ``--on/--off``.
        help: One line for ``--help`` and the docs.
        aliases: Older flag spellings, kept hidden for one release.
        spec: ``"chat"`` or ``"embed"`` when the field is a model spec the run will call: the
            runner checks each remote one with one short call before any work.
        json: The CLI takes the value as one JSON text (a dict field, e.g. ``--extra-body``).
        argument: The CLI takes the value positionally (e.g. a ``score`` command's run folder);
            ``aliases`` then name its older option spellings.
        **constraints: pydantic constraints (``ge``, ``le``, ``gt``, ...).
    """
    extra: dict[str, Any] = {}
    if flags:
        extra["flags"] = list(flags)
    if aliases:
        extra["aliases"] = list(aliases)
    if spec is not None:
        extra["spec"] = spec
    if json:
        extra["json"] = True
    if argument:
        extra["argument"] = True
    return Field(default, description=help, json_schema_extra=extra or None, **constraints)


def shared(name: str, cls: type[BaseModel] | None = None, **changes: Any) -> Any:
    """Field ``name`` of ``cls`` (default :class:`RunOptions`) for another options class: the same
    flags, help, constraints and default (``changes``: e.g. another ``default``), declared once.

    A command that takes a few of the shared run options (``--seed``, ``--no-cache``) gives its
    options class those fields with ``seed: int = shared("seed")``.
    """
    f = copy.copy((cls or RunOptions).model_fields[name])
    for k, v in changes.items():
        setattr(f, k, v)
    return f


def model_specs(options: BaseModel) -> list[tuple[str, str, str]]:
    """The model specs an options object names: ``(field, kind, spec)`` for each set spec field."""
    out = []
    for name, f in type(options).model_fields.items():
        extra = f.json_schema_extra
        kind = extra.get("spec") if isinstance(extra, dict) else None
        value = getattr(options, name)
        if isinstance(kind, str) and isinstance(value, str) and value:
            out.append((name, kind, value))
    return out


def flags_of(cls: type[BaseModel], name: str) -> list[str]:
    """The CLI flags of field ``name`` (its declared flags, else ``--name-with-hyphens``)."""
    extra = cls.model_fields[name].json_schema_extra
    flags = extra.get("flags") if isinstance(extra, dict) else None
    return [str(f) for f in flags] if isinstance(flags, list) else ["--" + name.replace("_", "-")]


class RunOptions(BaseModel):
    """The options every run has, whatever the system (unknown fields are errors).

    Attributes:
        limit: Use only the first N items (None: all).
        seed: Random seed (sampling, example selection, bootstrap).
        concurrency: Model requests in flight (None: 1 for the bundled model, 8 over HTTP).
        timeout: Seconds per model request.
        max_tokens: Max new tokens of every call to the model under test (None: each call's
            own budget). A system that declares its answers' budget redeclares this field with
            that default; a value other than the default then holds for every call.
        temperature: Sampling temperature of every call to the model under test (None: each
            call's own); redeclared like ``max_tokens`` by a system that declares its own.
        extra_body: Further request-body fields of every call to the model under test (a JSON
            object on the command line), sent as they are; part of the cache key.
        no_cache: Neither read nor write the response cache.
        refresh: Ignore cached responses and overwrite them.
        overwrite: Discard a run with other settings in the output folder.
        allow_failures: Finish normally although model calls failed (the run is still
            marked incomplete).
        allow_unparseable: Accept mostly empty or unparseable answers as the model's answers.
        max_cost: Budget in US dollars for this run folder's model calls (None: none).
        batch: Send uncached requests through the provider's batch API.
    """

    model_config = ConfigDict(extra="forbid")

    limit: int | None = option(None, "--limit", "-n", ge=1, help="Use only the first N items.")
    seed: int = option(0, help="Random seed (sampling, example selection, bootstrap).")
    concurrency: int | None = option(None, "--concurrency", "-c", ge=1,
                                     help="Max model requests in flight (default: 1 local, 8 HTTP).")
    timeout: float = option(120.0, gt=0, help="Per-request timeout in seconds.")
    max_tokens: int | None = option(
        None, ge=1, help="Max new tokens of every call to the model under test (default: each call's own budget).")
    temperature: float | None = option(
        None, ge=0.0, le=2.0, help="Sampling temperature of every call to the model under test (default: each call's "
                                   "own).")
    extra_body: dict[str, Any] | None = option(
        None, json=True,
        help="JSON object of further request-body fields for every call to the model under test, sent as they are "
             "(e.g. '{\"chat_template_kwargs\": {\"enable_thinking\": false}}' or '{\"reasoning_effort\": \"low\"}'); "
             "part of the cache key.")
    no_cache: bool = option(False, help="Do not read or write the response cache.")
    refresh: bool = option(False, help="Ignore cached responses and overwrite them.")
    overwrite: bool = option(False, help="Discard an existing run in --out with different settings.")
    allow_failures: bool = option(
        False, help="Exit 0 even when model calls failed (the run is still marked incomplete).")
    allow_unparseable: bool = option(
        False, help="Accept a run in which more than half of a model's answers are empty or unparseable (by default "
                    "such a run is a broken endpoint configuration, not a result: exit 3).")
    max_cost: float | None = option(
        None, ge=0.0,
        help="Spend at most this many USD on this run folder's model calls (prices: noveval prices); stop cleanly "
             "(exit 4, resumable) when the rest cannot pay for one more request. Re-run with a higher value to finish.")
    batch: bool = option(
        False,
        help="Send the uncached requests through the provider's batch API (openai/..., openai-compatible/... with "
             "/v1/files and /v1/batches): batch prices (OpenAI: half), answers within 24 h; the batch ids are saved "
             "in the run folder, so a killed run resumes without resubmitting.")

    @field_validator("extra_body", mode="before")
    @classmethod
    def _extra_body(cls, v: Any) -> Any:
        return parse_extra_body(v)

    def generation(self) -> dict[str, Any]:
        """The generation settings the user gave (``max_tokens``, ``temperature``, ``extra_body``).

        Only the shared declarations count (default None): where a system redeclares
        ``max_tokens`` or ``temperature`` with a default of its own, the field keeps the meaning
        its system gives it (e.g. focus: the review's budget, the annotator's sampling
        temperature) and the system's calls read it themselves, so it is not laid over every
        call. Empty when none is given.
        """
        out: dict[str, Any] = {}
        for name in GENERATION_FIELDS:
            value = getattr(self, name)
            if value is not None and type(self).model_fields[name].default is None:
                out[name] = value
        return out

    def client_kwargs(self, *, role: str = "model") -> dict[str, Any]:
        """Keyword arguments of :func:`noveval.models.client.get_client` these options set.

        Args:
            role: ``model`` (the model under test: the generation settings, :meth:`generation`,
                hold for each of its calls) or ``judge`` (a judge or annotator of its own: its
                protocol's settings stay).
        """
        kw: dict[str, Any] = {"cache": None if self.no_cache else "default", "refresh": self.refresh,
                              "concurrency": self.concurrency, "timeout_s": self.timeout}
        given = self.generation() if role == "model" else {}
        if given:
            kw["generation"] = given
        return kw


GENERATION_FIELDS = ("max_tokens", "temperature", "extra_body")
"""The :class:`RunOptions` fields that set every call to the model under test (``noveval eval`` takes them too)."""

RESERVED_BODY_FIELDS = ("model", "messages", "stream", "n", "max_tokens", "temperature")
"""Request fields ``--extra-body`` may not set (noveval sets them; max tokens and temperature have their own options)."""


def parse_extra_body(value: Any) -> dict[str, Any] | None:
    """``--extra-body``: a JSON object (a string is parsed) of further request-body fields.

    Raises:
        pydantic_core.PydanticCustomError: (a ValueError) not JSON, not an object, or a field
            noveval sets itself (:data:`RESERVED_BODY_FIELDS`).
    """
    if value is None or value == "":
        return None
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as e:
            raise PydanticCustomError("extra_body", f"not valid JSON ({e.msg} at character {e.pos}); expected an "
                                      'object such as \'{"chat_template_kwargs": {"enable_thinking": false}}\'') from None
    if not isinstance(value, dict):
        raise PydanticCustomError("extra_body", f"expected a JSON object of request fields, got {type(value).__name__}")
    bad = [k for k in value if k in RESERVED_BODY_FIELDS]
    if bad:
        raise PydanticCustomError("extra_body", f"{', '.join(map(repr, bad))}: set by noveval (use --max-tokens / "
                                  "--temperature for those)")
    return value or None


class JudgeOption(BaseModel):
    """Mixin: a judge model (same spec grammar as the model)."""

    judge: str | None = option(None, "--judge", "-j", spec="chat",
                               help="Judge model spec (same grammar as --model); default: no judge metrics.")


EMBEDDER_HELP = ("Embedding model spec: local (bundled all-MiniLM-L6-v2, bf16 where native, 128 tokens) | local@N "
                 "(N tokens) | local:bf16 | local:bf16@N | local:fp32 (256 tokens) | local:fp32@N | local:onnx | "
                 "local:static | local:/folder | local:/folder@N | openai/<model> | openai-compatible/<model>@<url>.")
"""The ``-e/--embedder`` help of every command (the grammar: :data:`noveval.models.spec.EMBEDDER_GRAMMAR`)."""

EVERYDAY_EMBEDDER = "local"
"""Retrieval, ``index``, ``check``: the fast setting (MiniLM, bf16 where native, 128 tokens)."""

PAPER_EMBEDDER = "local:bf16@256"
"""Numbers that sit beside a paper's or results.md's: MiniLM at its own 256 tokens in bf16, whose
vectors equal fp32's to 1e-3 cosine at ~2.5x the texts per CPU-second (docs/performance.md)."""


def embedder_option(default: str = EVERYDAY_EMBEDDER, *, paper: bool = False) -> Any:
    """The ``-e/--embedder`` field with a system's default.

    Args:
        default: The spec the system's numbers need (declared once, on its options class).
        paper: The default is the setting its published / results.md numbers were made with:
            a run with another resolved embedder says so
            (:func:`noveval.models.embed.embedder_departure`).
    """
    f = option(default, "--embedder", "-e", spec="embed", help=f"{EMBEDDER_HELP} Default: {default}"
               + (" (the setting its paper / results.md numbers need; another one is noted in the run)." if paper
                  else "."))
    if paper:
        f.json_schema_extra["paper_embedder"] = default
    return f


def paper_embedder(options: BaseModel | type[BaseModel]) -> str | None:
    """The embedder spec an options class (or object) declares for its paper numbers (None: none declared)."""
    cls = options if isinstance(options, type) else type(options)
    f = cls.model_fields.get("embedder")
    extra = f.json_schema_extra if f is not None else None
    value = extra.get("paper_embedder") if isinstance(extra, dict) else None
    return value if isinstance(value, str) else None


def own_embedder(demo_embedder: str, options: type[BaseModel]) -> str:
    """The embedder a demo gives a system: for the demo's default ``local`` the one the system's
    options declare (e.g. ``local:bf16@256``), else the demo's ``-e``."""
    if demo_embedder != EVERYDAY_EMBEDDER:
        return demo_embedder
    f = options.model_fields.get("embedder")
    return str(f.default) if f is not None and isinstance(f.default, str) else demo_embedder


class EmbedderOption(BaseModel):
    """Mixin: an embedding model (a system whose numbers need another default redeclares the field
    with :func:`embedder_option`)."""

    embedder: str = embedder_option()


class PromptVariantsOption(BaseModel):
    """Mixin for a system with prompts: the same run under reworded prompts (:mod:`noveval.benchmarks._variants`)."""

    prompt_variants: str | None = option(
        None, "--prompt-variants",
        help="Run once with the shipped prompts (OUT/shipped) and once per variant folder in DIR "
             "(DIR/<variant>/<system>/<template>.txt, laid out like `noveval prompts export`; 'bundled': the variants "
             "this system ships) into OUT/<variant>, then compare them: flip rate, agreement, each metric's spread "
             "(OUT/variants.json).")


RetrievalMode = Literal["bm25", "dense", "hybrid"]
"""How a corpus index ranks papers (``--retrieval``): BM25, dense vectors, or both by reciprocal
rank fusion (:data:`noveval.index.search.MODES` holds the same three)."""


class DataDirOption(BaseModel):
    """Mixin: the folder of the real datasets."""

    data_dir: Path | None = option(
        None, help="Folder with the real datasets (default: $NOVEVAL_DATA_DIR, else the user data folder "
                   "`noveval data get` fills, else ../shared/data; `noveval data dir` prints it).")


class ModelOption(BaseModel):
    """Mixin: the model under test (``-m/--model``; :func:`noveval.run`'s ``model``)."""

    model: str = option("local", "--model", "-m", spec="chat",
                        help="Model spec: local | local:/path.gguf | openai/<model> | openai-compatible/<model>@<url>.")


class OutOption(BaseModel):
    """Mixin: the run folder a command writes (``-o/--out``; :func:`noveval.run`'s ``out``)."""

    out: Path = option(..., "--out", "-o",
                       help="Run directory (created; an existing run with the same settings is resumed).")


def narrow(options: BaseModel, cls: type[OptionsT]) -> OptionsT:
    """The ``cls`` part of ``options`` (a command's options object holding ``cls``'s fields and more):
    the fields the user set, validated again as a ``cls``."""
    return cls.model_validate(options.model_dump(include=set(cls.model_fields), exclude_unset=True))


def as_options(cls: type[OptionsT], options: OptionsT | Mapping[str, Any] | None, **fill: Any) -> OptionsT:
    """``options`` as a ``cls`` (None: the defaults); ``fill`` sets fields the caller gave apart.

    Args:
        cls: The system's options class.
        options: An instance of ``cls``, a dict (any mapping) of its fields, or None.
        **fill: Fields to set when not None (``noveval.run(data=...)`` fills the system's
            data field); a field also set in ``options`` is an error.

    Raises:
        InputError: an unknown option or a value of the wrong type or range
            (``options.<field>: <what is wrong>``).
    """
    fill = {k: v for k, v in fill.items() if v is not None}
    if options is None:
        values: dict[str, Any] = {}
    elif isinstance(options, cls):
        if not fill:
            return options
        values = options.model_dump(exclude_unset=True)
    elif isinstance(options, BaseModel):
        raise InputError(None, None, "options",
                         f"expected {cls.__name__} (or a dict of its fields), got {type(options).__name__}")
    elif isinstance(options, Mapping):
        values = dict(options)
    else:
        raise InputError(None, None, "options",
                         f"expected {cls.__name__} or a dict of its fields, got {type(options).__name__}")
    for k, v in fill.items():
        if values.get(k) is not None and values[k] != v:
            raise InputError(None, None, f"options.{k}", f"given twice ({values[k]!r} and {v!r})")
        values[k] = v
    try:
        return cls.model_validate(values)
    except ValidationError as e:
        field, msg = validation_field(e)
        raise InputError(None, None, f"options.{field}", msg) from e
