"""Heuristic reading of what people write: sentences, titles, the problem / objective /
approach of an idea, and the 2-5 contributions it claims.

Pure functions, deterministic (no model): ``noveval check`` shows what they found and
how, and uses them for retrieval and per-contribution evidence whatever the model says.

* :func:`sentences` splits prose at ``.``/``!``/``?`` followed by a capital letter or
  digit, not after common abbreviations ("e.g.", "et al.", "Fig.", initials).
* :func:`heuristic_idea` picks the problem from sentences with problem cues ("however",
  "lack", "fail", "challenge", ...), the approach from sentences with method cues ("we
  propose", "our method", "by training", ...) and the objective from goal cues ("aim",
  "goal", "in order to", ...), with fallbacks by position; each part says which rule, and
  no sentence stands for two parts (else all three are the whole text, and say so).
* :func:`find_contributions` takes an explicit list first (a section or sentence naming
  "contributions" followed by bullets or "(i) ... (ii) ..." items), then sentences with
  claim cues ("we propose / introduce / show ..."), then approach sentences.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["CONTRIB_HEAD", "UNSEPARATED", "Part", "sentences", "heuristic_idea", "find_contributions", "split_items", "looks_like_title"]

_ABBREV = re.compile(r"(?:\b(?:e\.g|i\.e|et al|etc|vs|cf|Fig|Figs|Eq|Eqs|Sec|Tab|No|resp|approx|al|Dr|Prof)|\b[A-Z])\.$")
_SPLIT = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[A-Z0-9\"'(\[])")
_PROBLEM = re.compile(r"\b(problem|challeng\w*|limitation\w*|lack\w*|fail\w*|suffer\w*|however|bottleneck\w*|difficult\w*|"
                      r"costly|expensive|unclear|remain\w*|gap|issue\w*|hard to|cannot|insufficient|struggle\w*|"
                      r"little is known|understudied|less studied|leaves? open|open question|poor\w*|unreliab\w*|"
                      r"too (expensive|slow|costly|coarse)|requires? (hundreds|many|thousands)|(do|does|did|can|could)(\s?not|n't))\b",
                      re.I)
_OBJECTIVE = re.compile(r"\b(aim\w*|goal\w*|objective\w*|we seek|seeks? to|we want|in order to|we ask|we target|"
                        r"to achieve|set out to|our purpose|we investigate|we study|we explore|question of)\b", re.I)
_ADV = r"(?:also |further |then |first |additionally |here |now |thus |therefore )?"
_APPROACH = re.compile(r"\b(we " + _ADV + r"(propose|introduce|present|develop|design|use|train|build|apply|combine|leverage|devise|"
                       r"formulate|construct|derive|learn|insert|model)|our (method|approach|framework|model|algorithm|"
                       r"technique|system)|by (using|training|combining|learning|inserting|modeling|leveraging)|"
                       r"(method|approach|framework|algorithm) (that|which|to|for))\b", re.I)
_CLAIM = re.compile(r"\b(we " + _ADV + r"(propose|introduce|present|develop|design|show|demonstrate|prove|find|release|provide|establish|"
                    r"derive|formulate|characterize|characterise|identify|construct|devise|obtain|achieve|give)|"
                    r"our (method|approach|framework|model|analysis|results?|contributions?|algorithm|benchmark)|"
                    r"(this|the) (paper|work) (proposes|introduces|presents|shows|develops))\b", re.I)
CONTRIB_HEAD = re.compile(r"\bcontributions?\b", re.I)
_TO_COLON = re.compile(r"[^.:]{0,300}:")
_BULLET = re.compile(r"^\s*(?:[-*•‣▪]|\(?\d{1,2}[.)]|\(?[ivx]{1,4}\)|\(?[a-h]\))\s+(.*\S)")
_INLINE_ITEM = re.compile(r"\((?:[ivx]{1,4}|\d{1,2}|[a-h])\)\s*")


@dataclass(frozen=True)
class Part:
    """A piece of the input and how it was found.

    Attributes:
        text: The text.
        how: The rule that found it, in plain words.
    """

    text: str
    how: str


def sentences(text: str) -> list[str]:
    """Sentences of ``text`` (whitespace collapsed), in order; empty pieces dropped."""
    flat = re.sub(r"\s+", " ", text or "").strip()
    if not flat:
        return []
    out: list[str] = []
    buf = ""
    for piece in _SPLIT.split(flat):
        buf = f"{buf} {piece}".strip() if buf else piece
        if _ABBREV.search(buf):
            continue
        out.append(buf)
        buf = ""
    if buf:
        out.append(buf)
    return [s for s in out if len(s.split()) >= 3 or not out]


def looks_like_title(line: str) -> bool:
    """A short line without a final full stop that reads as a title (2-25 words)."""
    s = line.strip().strip("#*_ ").strip()
    words = s.split()
    return 2 <= len(words) <= 25 and not s.endswith((".", ":", ";", ",")) and len(s) <= 200


def _first(cands: list[str], pattern: re.Pattern[str], used: set[str], limit: int) -> list[str]:
    return [s for s in cands if s not in used and pattern.search(s)][:limit]


UNSEPARATED = "could not tell problem, objective and approach apart ({n}): the whole text"
"""How each part is found when the text has no distinct sentence for each (``{n}`` says why)."""


def heuristic_idea(text: str) -> dict[str, Part]:
    """Problem, objective and approach of a prose description (see the module docstring).

    A sentence with a method or claim cue ("we propose", "our method", "we show") belongs to
    the approach; problem and goal cues count only in the other sentences. The three parts
    are always different sentences: a part without its cue takes a sentence no other part
    took (the objective may take the approach's first sentence when the approach has
    several). When the text has no distinct sentence for each part, all three are the
    whole text and say so (:data:`UNSEPARATED`), rather than one sentence standing for two parts.

    Returns:
        ``{"problem_statement", "objective", "solution_approach"}`` -> :class:`Part`; parts
        are never empty when the text has at least one sentence.
    """
    ss = sentences(text)
    if not ss:
        return {}
    ours = [s for s in ss if _APPROACH.search(s) or _CLAIM.search(s)]
    other = [s for s in ss if s not in ours]
    prob = [s for s in other if _PROBLEM.search(s)][:2]
    how_p = "sentences with problem cues (however, lack, fail, leaves open, ...)"
    goal = [s for s in other if _OBJECTIVE.search(s) and s not in prob][:2]
    how_o = "sentences with goal cues (aim, goal, in order to, we investigate, ...)"
    free = [s for s in other if s not in prob and s not in goal]
    if not prob and free:
        prob, free = free[:1], free[1:]
        how_p = "the first sentence with no method or goal cue (no sentence with a problem cue)"
    appr = ours[:3]
    how_a = "sentences with method or claim cues (we propose, our method, we show, ...)"
    if not appr and free:
        appr, free = free[-2:], free[:-2]
        how_a = "the last sentences (no sentence with a method cue)"
    if not goal and free:
        goal = free[:1]
        how_o = "a sentence between the problem and the approach (no sentence with a goal cue)"
    elif not goal and len(appr) > 1:
        goal, appr = appr[:1], appr[1:]
        how_o = "the approach's first sentence (no sentence with a goal cue)"
    if not (prob and goal and appr):
        whole = " ".join(ss)
        why = f"{len(ss)} sentence{'s' if len(ss) != 1 else ''}"
        return {k: Part(whole, UNSEPARATED.format(n=why)) for k in ("problem_statement", "objective", "solution_approach")}
    keep = {s: i for i, s in enumerate(ss)}
    join = lambda xs: " ".join(sorted(xs, key=keep.__getitem__))  # noqa: E731 - text order
    return {"problem_statement": Part(join(prob), how_p), "objective": Part(join(goal), how_o),
            "solution_approach": Part(join(appr), how_a)}


def split_items(text: str, *, inline: bool = True) -> list[str]:
    """Items of a list written as bullet lines or (with ``inline``) ``(i) ... (ii) ...`` / ``(1) ... (2) ...``."""
    lines = [m.group(1) for ln in text.splitlines() if (m := _BULLET.match(ln))]
    if len(lines) >= 2:
        return [re.sub(r"\s+", " ", x).strip(" ;,.") + "." for x in lines]
    if not inline:
        return []
    parts = _INLINE_ITEM.split(re.sub(r"\s+", " ", text))
    if len(parts) >= 3:
        items = [p.strip(" ;,.") for p in parts[1:]]
        items = [re.sub(r"\s*(,|;)?\s*and$", "", x).strip(" ;,") for x in items]
        return [x + "." for x in items if len(x.split()) >= 3]
    return []


def _explicit(sections: list[tuple[str, str]]) -> tuple[list[str], str] | None:
    for head, body in sections:
        if CONTRIB_HEAD.search(head) and body.strip():
            items = split_items(body, inline=False) or [s for s in sentences(body) if _CLAIM.search(s)] or sentences(body)
            if items:
                return items, f"the '{head}' section"
    for head, body in sections:
        for c in CONTRIB_HEAD.finditer(body):  # "... contributions ...:" within one sentence (linear scan)
            m = _TO_COLON.match(body, c.end())
            if m is None:
                continue
            start = body.rfind(".", 0, c.start()) + 1
            lead = body[start:m.end()]
            tail = body[m.end():m.end() + 3000]
            items = split_items(tail.split("\n\n")[0] if not _BULLET.match(tail.lstrip("\n").split("\n")[0])
                                else tail)
            if len(items) >= 2:
                return items, f"the list after \"{lead.strip()[:60]}\" in '{head or 'the text'}'"
    return None


def find_contributions(sections: list[tuple[str, str]], summary: str, *, limit: int = 5) -> list[Part]:
    """The input's claimed contributions (2-``limit`` when the text allows; see the module docstring).

    Args:
        sections: ``(heading, body)`` pairs of the full text ("" heading for unheaded text).
        summary: The abstract (paper) or the idea's objective + approach (idea) or the text.
        limit: Most contributions returned.
    """
    found = _explicit(sections)
    if found:
        items, where = found
        return [Part(x, f"listed in {where}") for x in items[:limit]]
    ss = sentences(summary)
    claims = [s for s in ss if _CLAIM.search(s)]
    out = [Part(s, "a sentence with a claim cue (we propose / introduce / show ...)") for s in claims[:limit]]
    if len(out) < 2:  # a sentence stating the problem is not a contribution
        extra = [s for s in ss if _APPROACH.search(s)] + [s for s in ss if not _PROBLEM.search(s)]
        for s in extra:
            if len(out) >= min(2, len(ss)):
                break
            if s in {p.text for p in out}:
                continue
            out.append(Part(s, "a method sentence (fewer than two claim sentences)" if _APPROACH.search(s)
                            else "a later sentence of the description (fewer than two claim sentences)"))
    if not out and ss:
        out = [Part(ss[0], "the only sentence")]
    return out[:limit]
