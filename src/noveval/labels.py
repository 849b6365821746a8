"""Names people recognise for the models of runs: one labelling rule for every view.

The report, ``compare``, ``export``, ``eval`` and ``leaderboard`` name a run by the model it
evaluated, as its spec or model id gives it (``openai-compatible/Qwen2.5-7B@http://gpu:8000/v1``
is ``Qwen2.5-7B``, ``openai/gpt-4o-mini`` is ``gpt-4o-mini``, the bundled model's id
``local/SmolLM2-135M-Instruct-Q4_1`` is ``SmolLM2-135M-Instruct-Q4_1``), and add only what is
needed to tell runs apart: the host when runs of the same model name ran on different
hosts, then what the caller says differs (a task, a prompting), then the run folder.

Pure: strings in, strings out.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path, PurePath
from urllib.parse import urlparse

__all__ = ["model_host", "model_labels", "model_name"]

_UNKNOWN = "model not recorded"
_GENERIC_FOLDERS = {"run", "out", "output", "runs"}


def _strip_suffix(name: str) -> str:
    return name[: -len(".gguf")] if name.lower().endswith(".gguf") else name


def model_name(spec: str | None) -> str:
    """The model's own name in a model spec or model id.

    Args:
        spec: ``local``, ``local:/path/m.gguf``, ``local/<name>``, ``openai/<model>``,
            ``openai-compatible/<model>@<base url>``, or any other string (None: not recorded).

    Returns:
        ``<model>`` for remote specs, the file or folder name for local ones (``.gguf``
        dropped), ``local`` for the bare bundled spec, the text itself otherwise.
    """
    s = (spec or "").strip()
    if not s:
        return _UNKNOWN
    if s.startswith("openai-compatible/"):
        model, sep, _url = s[len("openai-compatible/"):].rpartition("@")
        return model if sep and model else s
    if s.startswith("openai/"):
        return s[len("openai/"):] or s
    if s.startswith("local:"):
        path = s[len("local:"):].rstrip("/\\")
        return _strip_suffix(PurePath(path).name) if path else "local"
    if s.startswith("local/"):
        return _strip_suffix(s[len("local/"):].rstrip("/").split("/")[-1]) or "local"
    return s


def model_host(spec: str | None) -> str | None:
    """Where the model ran: ``host:port`` of an OpenAI-compatible server, ``openai``, ``local``, or None."""
    s = (spec or "").strip()
    if s.startswith("openai-compatible/"):
        _model, sep, url = s.rpartition("@")
        return (urlparse(url).netloc or url) if sep else None
    if s.startswith("openai/"):
        return "openai"
    if s == "local" or s.startswith(("local:", "local/")):
        return "local"
    return None


def _folder(path: str | Path, deep: bool = False) -> str:
    p = PurePath(path)
    return f"{p.parent.name}/{p.name}" if (deep or p.name in _GENERIC_FOLDERS) and p.parent.name else p.name


def model_labels(models: Sequence[str | None], *, details: Sequence[Sequence[str]] | None = None,
                 folders: Sequence[str | Path] | None = None) -> list[str]:
    """One short, distinct label per run, led by the model's name.

    Rules, in order, each applied only where labels still collide:

    1. the model's name (:func:`model_name`);
    2. `` @host`` for runs of the same model name on different hosts (:func:`model_host`);
    3. `` · detail`` for every detail the caller gives (task, prompting, ...), always shown;
    4. `` (folder)`` for runs whose labels are still the same (the folder's name, with its
       parent for generic names such as ``run`` or when the names alone are the same);
    5. `` #2``, `` #3``, ... for what remains.

    Args:
        models: Each run's model spec or model id (None: not recorded).
        details: Per run, short strings that say what else the run is (shown after the name).
        folders: Per run, its folder (used by rule 4).

    Returns:
        The labels, in the order of ``models``; all distinct.
    """
    n = len(models)
    labels = [model_name(m) for m in models]
    hosts = [model_host(m) for m in models]
    for name in {x for x, c in Counter(labels).items() if c > 1}:
        idx = [i for i in range(n) if labels[i] == name]
        if len({hosts[i] for i in idx}) > 1:
            for i in idx:
                labels[i] = f"{name} @{hosts[i]}" if hosts[i] else name
    if details is not None:
        labels = [" · ".join([lab, *[d for d in details[i] if d]]) for i, lab in enumerate(labels)]
    if folders is not None:
        counts = Counter(labels)
        names = [_folder(f) for f in folders]
        clash = Counter((labels[i], names[i]) for i in range(n))
        names = [_folder(folders[i], deep=True) if clash[(labels[i], names[i])] > 1 else names[i] for i in range(n)]
        labels = [f"{lab} ({names[i]})" if counts[lab] > 1 else lab for i, lab in enumerate(labels)]
    seen: Counter[str] = Counter()
    out = []
    for lab in labels:
        seen[lab] += 1
        out.append(lab if seen[lab] == 1 else f"{lab} #{seen[lab]}")
    return out
