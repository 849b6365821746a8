"""Prompt templates: one file layout, one syntax, one hash, overridable without code changes.

Every system keeps its prompts as files ``<package>/prompts/<name>.txt`` (see
:func:`packages`), and reads them only through :func:`load`:

Layout
    A ``### system`` line, the system message, a ``### user`` line, the user message.
    The system part may be empty (then no system message is sent); the ``### user`` part
    is required. Only these two exact lines are headers (other ``###`` lines are text).
    Each part is rendered and then stripped of surrounding whitespace.

Syntax
    Jinja2 (``{{ name }}``, ``{% for x in xs %}``) with strict undefined variables: a
    template that uses a variable the system does not provide is an
    :class:`~noveval.errors.InputError` naming the file, the line and the variable (the
    CLI exits 2), raised when a run starts, before any model call. A provided variable
    the template does not use is fine. Templates render in Jinja's sandbox.

Hash
    :attr:`PromptTemplate.sha` is the first 12 hex digits of the SHA-256 of the file's
    bytes (``sha256sum FILE | cut -c1-12``); runs record it in ``config.json``
    (:func:`prompt_hashes`), so runs with different prompts never mix on resume.

Overrides
    A file ``$NOVEVAL_PROMPTS_DIR/<system>/<name>.txt`` replaces the shipped template of that
    name; ``noveval prompts export DIR`` writes all shipped templates there as a start.

The variables each system provides to each template are declared next to the templates,
in ``<package>/prompts/__init__.py`` as ``VARIABLES`` (template -> variable ->
description); :func:`variables` reads them and docs/prompts.md lists them.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib
import importlib.util
import logging
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path
from typing import Any, NamedTuple

from noveval.errors import InputError
from noveval.registry import TOOLS
from noveval.registry import packages as systems

__all__ = [
    "SystemPrompts",
    "SUFFIX",
    "PromptTemplate",
    "Rendered",
    "load",
    "prompt_hashes",
    "variables",
    "packages",
    "override_dir",
    "list_prompts",
    "unused_overrides",
    "check_overrides",
    "using_overrides",
    "export_prompts",
    "parse_layout",
]

log = logging.getLogger("noveval")

SUFFIX = ".txt"
"""The one file suffix of templates (shipped and overrides)."""

OVERRIDE_ENV = "NOVEVAL_PROMPTS_DIR"
"""The environment variable naming the override folder."""

SYSTEM_HEADER = "### system"
USER_HEADER = "### user"


def packages() -> dict[str, str]:
    """System or tool name -> package holding its ``prompts/`` folder: the prompt catalogue.

    Every registered system (:func:`noveval.registry.packages`, plugins included) and the
    tools (``check``, ``index``) whose package ships a ``prompts/`` folder. Every function
    here looks systems up through this one function.
    """
    out = {}
    for name, package in {**systems(), **TOOLS}.items():
        try:
            spec = importlib.util.find_spec(package)
        except ModuleNotFoundError:
            continue
        locs = list(spec.submodule_search_locations or []) if spec is not None else []
        if any((Path(loc) / "prompts").is_dir() for loc in locs):
            out[name] = package
    return out


def override_dir() -> Path | None:
    """``$NOVEVAL_PROMPTS_DIR`` when set (None when unset or empty).

    Raises:
        InputError: it is set but is not a folder.
    """
    env = os.environ.get(OVERRIDE_ENV)
    if not env:
        return None
    p = Path(env)
    if not p.is_dir():
        raise InputError(p, None, "NOVEVAL_PROMPTS_DIR", "is not a folder (unset it, or run: noveval prompts export DIR)")
    return p


@contextlib.contextmanager
def using_overrides(folder: str | Path | None) -> Iterator[None]:
    """Use ``folder`` as the override folder inside the block (None: the shipped templates only).

    Sets ``$NOVEVAL_PROMPTS_DIR`` for the block and restores its earlier value (or its
    absence) afterwards, also when the block raises. Runs started inside the block record
    the hashes of the templates in effect, as with the variable set by hand.

    Args:
        folder: A folder laid out like ``noveval prompts export`` output, or None.
    """
    old = os.environ.get(OVERRIDE_ENV)
    try:
        if folder is None:
            os.environ.pop(OVERRIDE_ENV, None)
        else:
            os.environ[OVERRIDE_ENV] = str(folder)
        yield
    finally:
        if old is None:
            os.environ.pop(OVERRIDE_ENV, None)
        else:
            os.environ[OVERRIDE_ENV] = old


# ------------------------------------------------------------------------------- layout
class _Part(NamedTuple):
    text: str
    first_line: int  # 1-based line of the file where the part's text starts


def parse_layout(text: str, path: str = "<template>") -> tuple[_Part, _Part]:
    """Split a template file into its system and user parts.

    Args:
        text: The file's text.
        path: Its location, for error messages.

    Returns:
        ``(system, user)`` parts with the file line each starts on (system is empty when
        the file has no ``### system`` part).

    Raises:
        InputError: text before the first header, a header twice, ``### system`` after
            ``### user``, or no ``### user`` header.
    """
    lines = text.split("\n")
    heads: dict[str, int] = {}
    for i, line in enumerate(lines):
        h = line.rstrip()
        if h in (SYSTEM_HEADER, USER_HEADER):
            if h in heads:
                raise InputError(path, i + 1, None, f"a second {h!r} header; a prompt file has one "
                                 f"{SYSTEM_HEADER!r} part (optional) and one {USER_HEADER!r} part")
            heads[h] = i
    if USER_HEADER not in heads:
        raise InputError(path, None, None, f"no {USER_HEADER!r} line; a prompt file is a {SYSTEM_HEADER!r} line, "
                         f"the system message (may be empty), a {USER_HEADER!r} line, the user message "
                         "(see docs/prompts.md)")
    u = heads[USER_HEADER]
    s = heads.get(SYSTEM_HEADER)
    if s is not None and s > u:
        raise InputError(path, s + 1, None, f"{SYSTEM_HEADER!r} must come before {USER_HEADER!r}")
    start = s if s is not None else u
    lead = "\n".join(lines[:start])
    if lead.strip():
        first = next(i for i, ln in enumerate(lines[:start]) if ln.strip())
        raise InputError(path, first + 1, None, f"text before the first header ({SYSTEM_HEADER!r} or {USER_HEADER!r})")
    system = _Part("\n".join(lines[s + 1:u]), s + 2) if s is not None else _Part("", u + 1)
    return system, _Part("\n".join(lines[u + 1:]), u + 2)


# ------------------------------------------------------------------------------- syntax
@functools.lru_cache(maxsize=1)
def _env() -> Any:
    from jinja2 import StrictUndefined
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    return ImmutableSandboxedEnvironment(undefined=StrictUndefined, keep_trailing_newline=True, autoescape=False)


def _line_of(text: str, name: str, first_line: int = 1) -> int | None:
    """First line of ``text`` (numbered from ``first_line``) that uses ``name`` in a Jinja tag."""
    pat = re.compile(r"\{[{%][^}]*\b" + re.escape(name) + r"\b")
    for i, line in enumerate(text.split("\n")):
        if pat.search(line):
            return first_line + i
    return None


def _legacy_use(text: str, name: str) -> str | None:
    """The old placeholder (``$name``, ``${name}`` or ``{name}``) for ``name`` if ``text`` has one."""
    m = re.search(r"\$\{?" + re.escape(name) + r"\b|(?<!\{)\{" + re.escape(name) + r"\}(?!\})", text)
    return m.group(0) if m else None


@dataclass(frozen=True)
class Rendered:
    """A rendered prompt: the system message (may be empty) and the user message."""

    system: str
    user: str

    def messages(self, *, end: str = "") -> list[dict[str, str]]:
        """Chat messages: the system message when it is not empty, then the user message.

        Args:
            end: Appended to the user message (``"\\n"`` for the systems whose user
                messages have always ended with a newline, so cached responses stay valid).
        """
        msgs = [{"role": "system", "content": self.system}] if self.system else []
        return [*msgs, {"role": "user", "content": self.user + end}]


@dataclass(frozen=True)
class PromptTemplate:
    """One prompt template as it is in effect (the override if there is one, else shipped).

    Attributes:
        system_name: The owning system (``"rinobench"``) -- a key of :func:`packages`.
        name: Template name without suffix (``"alignment"``).
        text: The file's text.
        path: Where the file is (the override's path, or the shipped file's).
        overridden: True when the file comes from ``$NOVEVAL_PROMPTS_DIR``.
        sha: First 12 hex digits of the SHA-256 of the file's bytes.
    """

    system_name: str
    name: str
    text: str
    path: str
    overridden: bool
    sha: str
    _parts: tuple[Any, Any] = field(repr=False, compare=False)

    @property
    def source(self) -> str:
        """``"override <path>"`` or ``"shipped"``."""
        return f"override {self.path}" if self.overridden else "shipped"

    @property
    def variables(self) -> frozenset[str]:
        """Names the template reads from its inputs (loop variables and Jinja's globals excluded)."""
        return _variables(self.text, self.path)

    def check(self, provided: Iterable[str]) -> None:
        """Fail unless every variable the template uses is in ``provided``.

        Raises:
            InputError: naming the file, the line and the first missing variable; or a
                provided variable written in the old ``$name`` / ``{name}`` syntax (which
                would otherwise be sent to the model as literal text).
        """
        given = set(provided)
        missing = sorted(self.variables - given)
        if missing:
            name = missing[0]
            line = _line_of(self.text, name)
            offer = ", ".join(sorted(given)) or "none"
            raise InputError(self.path, line, name, f"the {self.system_name} prompt {self.name!r} uses the variable "
                             f"{name!r}, which is not provided (provided: {offer}); see docs/prompts.md")
        for name in sorted(given - self.variables):
            old = _legacy_use(self.text, name)
            if old is not None:
                raise InputError(self.path, _first_line_with(self.text, old), name,
                                 f"{old!r} is the old placeholder syntax, sent as literal text; write "
                                 f"{{{{ {name} }}}} (templates are Jinja, see docs/prompts.md)")

    def render(self, **values: Any) -> Rendered:
        """Fill the template.

        Args:
            **values: The variables (a template may leave some unused).

        Returns:
            The rendered system and user messages, each stripped of surrounding whitespace.

        Raises:
            InputError: a variable the template uses is missing (file, line, variable), or
                rendering fails (e.g. an attribute that a value does not have).
        """
        self.check(values)
        from jinja2 import TemplateError

        out = []
        for tpl in self._parts:
            try:
                out.append(tpl.render(**values).strip())
            except TemplateError as e:
                raise InputError(self.path, None, None, f"cannot render the {self.system_name} prompt "
                                 f"{self.name!r}: {e}") from e
        return Rendered(out[0], out[1])


def _first_line_with(text: str, needle: str) -> int | None:
    for i, line in enumerate(text.split("\n"), 1):
        if needle in line:
            return i
    return None


@functools.lru_cache(maxsize=256)
def _variables(text: str, path: str) -> frozenset[str]:
    from jinja2 import meta

    env = _env()
    names: set[str] = set()
    for part in parse_layout(text, path):
        names |= meta.find_undeclared_variables(env.parse(part.text))
    return frozenset(names - set(env.globals))


@functools.lru_cache(maxsize=256)
def _compile(system_name: str, name: str, text: str, path: str, overridden: bool, sha: str) -> PromptTemplate:
    from jinja2 import TemplateSyntaxError

    spans = parse_layout(text, path)
    parts = []
    for span in spans:
        try:
            parts.append(_env().from_string(span.text))
        except TemplateSyntaxError as e:
            line = span.first_line + (e.lineno or 1) - 1
            raise InputError(path, line, None, f"template syntax error: {e.message}") from e
    return PromptTemplate(system_name, name, text, path, overridden, sha, (parts[0], parts[1]))


# ------------------------------------------------------------------------------- lookup
def _package(system_name: str) -> str:
    pk = packages()
    if system_name not in pk:
        raise InputError(None, None, "system", f"no prompts for {system_name!r}; one of {', '.join(pk)}")
    return pk[system_name]


def _shipped_dir(system_name: str) -> Traversable:
    return resources.files(_package(system_name)) / "prompts"


def _stem(name: str) -> str:
    return name[: -len(SUFFIX)] if name.endswith(SUFFIX) else name


def shipped_names(system_name: str) -> list[str]:
    """Names (no suffix) of the templates a system ships, sorted."""
    try:
        folder = _shipped_dir(system_name)
        return sorted(_stem(p.name) for p in folder.iterdir() if p.name.endswith(SUFFIX))
    except (ModuleNotFoundError, FileNotFoundError, NotADirectoryError):
        return []


_warned: set[str] = set()
_scanned: set[str] = set()


def load(system_name: str, name: str) -> PromptTemplate:
    """The template ``name`` of ``system_name`` in effect: the override if present, else shipped.

    Args:
        system_name: A key of :func:`packages` (``"rinobench"``).
        name: Template name, with or without ``.txt`` (``"alignment"``).

    Raises:
        InputError: unknown system or template; a malformed file (layout or syntax, with
            file and line).
    """
    stem = _stem(name)
    shipped = _shipped_dir(system_name) / f"{stem}{SUFFIX}"
    if not shipped.is_file():
        known = ", ".join(shipped_names(system_name)) or "none"
        raise InputError(None, None, "name", f"no template {stem!r} for {system_name} (templates: {known}; "
                         "see: noveval prompts list)")
    over = override_dir()
    if over is not None:
        if str(over) not in _scanned:  # once per folder: a scan on every render costs ~8 ms
            _scanned.add(str(over))
            _warn_unused(over)
        f = over / system_name / f"{stem}{SUFFIX}"
        if f.is_file():
            data = f.read_bytes()
            return _compile(system_name, stem, _decode(data, f), str(f), True, _sha(data))
    data = shipped.read_bytes()
    return _compile(system_name, stem, _decode(data, shipped), str(shipped), False, _sha(data))


def _decode(data: bytes, where: Any) -> str:
    try:
        return data.decode("utf-8").replace("\r\n", "\n")
    except UnicodeDecodeError as e:
        raise InputError(str(where), None, None, f"not UTF-8 text ({e.reason} at byte {e.start})") from e


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:12]


def _warn_unused(over: Path) -> None:
    for p in unused_overrides(over):
        if str(p) not in _warned:
            _warned.add(str(p))
            log.warning("%s matches no shipped template, so it is not used (see: noveval prompts list)", p)


def unused_overrides(over: Path | None = None) -> list[Path]:
    """Files under the override folder that replace no shipped template (a typo in a name)."""
    over = over if over is not None else override_dir()
    if over is None:
        return []
    pk = packages()
    out = []
    for p in sorted(over.rglob("*")):
        if not p.is_file() or p.name.startswith("."):
            continue
        rel = p.relative_to(over).parts
        ok = len(rel) == 2 and rel[0] in pk and p.suffix == SUFFIX and _stem(rel[1]) in shipped_names(rel[0])
        if not ok:
            out.append(p)
    return out


def _why_unused(root: Path, path: Path) -> str:
    """Why ``path`` (under the override folder ``root``) replaces no shipped template."""
    rel = path.relative_to(root).parts
    pk = packages()
    if len(rel) != 2:
        return f"not where a template goes: a template is <system>/<name>{SUFFIX} directly under {root}"
    if rel[0] not in pk:
        return f"no system named {rel[0]!r} (systems: {', '.join(pk)})"
    if path.suffix != SUFFIX:
        return f"a template file name ends in {SUFFIX}"
    known = ", ".join(shipped_names(rel[0]))
    return f"no {rel[0]} template named {_stem(rel[1])!r} (a typo?); its templates: {known}"


def check_overrides(folder: str | Path) -> dict[str, dict[str, str]]:
    """Check every file of an override folder as a run would use it, before any model call.

    Args:
        folder: A folder laid out like ``noveval prompts export`` output
            (``<system>/<name>.txt``; it may hold only some templates). Hidden files are
            ignored.

    Returns:
        ``{system: {template name: sha}}`` of the templates the folder holds (empty when
        it holds none).

    Raises:
        InputError: the folder does not exist; a file that replaces no shipped template
            (a typo in its name: the file and the system's template names); a template
            that does not load (layout, syntax: file and line) or uses a variable its
            system does not provide (file, line, variable).
    """
    root = Path(folder)
    if not root.is_dir():
        raise InputError(root, None, None, "no such folder" if not root.exists() else "is a file, expected a folder")
    for p in unused_overrides(root):
        raise InputError(p, None, None, _why_unused(root, p) + "; see: noveval prompts list")
    out: dict[str, dict[str, str]] = {}
    with using_overrides(root):
        for p in sorted(root.rglob(f"*{SUFFIX}")):
            if not p.is_file() or p.name.startswith("."):
                continue
            system = p.parent.name
            t = load(system, p.name)
            t.check(variables(system).get(t.name, {}))
            out.setdefault(system, {})[t.name] = t.sha
    return out


# ------------------------------------------------------------------------------- catalogue
def variables(system_name: str) -> dict[str, dict[str, str]]:
    """Template name -> variable -> description: what ``system_name`` provides to each template.

    Read from ``VARIABLES`` in ``<package>/prompts/__init__.py``.
    """
    mod = importlib.import_module(_package(system_name) + ".prompts")
    declared: Mapping[str, Mapping[str, str]] = getattr(mod, "VARIABLES", {})
    return {k: dict(v) for k, v in declared.items()}


def prompt_hashes(system_name: str, names: Iterable[str]) -> dict[str, str]:
    """Content hash (:attr:`PromptTemplate.sha`) of each named template in effect, checked.

    Systems call this when a run starts and record the result in ``config.json``; each
    template is checked against the variables the system declares for it, so an override
    that uses a variable the system does not provide fails here, before any model call.

    Raises:
        InputError: see :meth:`PromptTemplate.check` and :func:`load`.
    """
    declared = variables(system_name)
    out = {}
    for n in names:
        t = load(system_name, n)
        t.check(declared.get(t.name, {}))
        out[t.name] = t.sha
    return out


class SystemPrompts:
    """One system's templates, as the system's own ``prompts`` package exposes them.

    ``render_messages = SystemPrompts("rinobench").render_messages`` gives the package its
    ``render_messages(name, **values)`` and ``prompt_hashes(names)``.

    Args:
        system_name: The system (``rinobench``, ``novelty-pairs``, ``check``, ...).
    """

    def __init__(self, system_name: str) -> None:
        self.system_name = system_name

    def render_messages(self, name: str, **values: Any) -> list[dict[str, str]]:
        """Fill the template ``name`` and return its chat messages (system + user).

        Raises:
            InputError: the template (e.g. an override) uses a variable not in ``values``.
        """
        return load(self.system_name, name).render(**values).messages()

    def prompt_hashes(self, names: Iterable[str] | None = None) -> dict[str, str]:
        """:func:`prompt_hashes` of ``names`` (None: every template the system declares in ``VARIABLES``)."""
        return prompt_hashes(self.system_name, variables(self.system_name) if names is None else names)


def list_prompts() -> Iterator[tuple[str, str, bool]]:
    """Yield ``(system, file name, overridden)`` for every shipped template."""
    over = override_dir()
    for sys_name in packages():
        for stem in shipped_names(sys_name):
            fname = f"{stem}{SUFFIX}"
            yield sys_name, fname, bool(over and (over / sys_name / fname).is_file())


def export_prompts(dest: str | Path) -> int:
    """Copy every shipped template to ``dest/<system>/<name>.txt``; return how many."""
    n = 0
    for sys_name, fname, _ in list_prompts():
        target = Path(dest) / sys_name / fname
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes((_shipped_dir(sys_name) / fname).read_bytes())
        n += 1
    return n
