"""Yardsticks: what chance, a constant answer or a shuffled pairing scores on the same gold (issue 29).

A metric value means little alone: RINoBench's best published macro-F1 (17.2) is below what
answering at random with the test set's class frequencies scores on average (19.9). The
functions here compute such reference values from the gold at hand, each with how it was
computed (``how``): an exact expectation where it can be derived, else the mean of
:data:`N_SIMULATIONS` simulations, and for chance answers the range that 95% of the
simulated draws fall in (the spread a single random run would show).

A yardstick is a dict (the ``scores.json`` contract of issue 29)::

    {"name": "class-frequency random", "kind": "chance", "value": 0.199,
     "how": "exact expectation; 95% of 10,000 simulated draws in [0.154, 0.247]",
     "ci_low": 0.154, "ci_high": 0.247}

``kind`` is one of :data:`KINDS`. Values are on the metric's own scale.

Pure: numbers in, numbers out.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

__all__ = [
    "KINDS",
    "N_SIMULATIONS",
    "best_constant_mae",
    "binomial_rate_range",
    "chance_f1_yardsticks",
    "constant_macro_f1",
    "expected_class_f1",
    "expected_macro_f1",
    "expected_mae",
    "mae_yardsticks",
    "pair_matrix",
    "references_of",
    "random_derangements",
    "shuffled_matrix_yardstick",
    "shuffled_micro_f1_yardstick",
    "simulate_macro_f1",
    "spearman_null_range",
    "spread_text",
    "within_group_derangements",
    "yardstick",
]

KINDS: tuple[str, ...] = ("chance", "trivial", "shuffled", "human", "ceiling", "paper-reference")
"""Kinds of yardstick: random answers, a constant or majority answer, each prediction scored
against another item's gold, the human row of the data, an inter-annotator ceiling, and a
reserved kind for values quoted from a paper."""

N_SIMULATIONS = 10_000
"""Simulated draws behind every simulated value and spread."""


def yardstick(name: str, kind: str, value: float | None, how: str, *, ci_low: float | None = None,
              ci_high: float | None = None, **more: Any) -> dict[str, Any]:
    """One yardstick record (see the module docstring).

    Args:
        name: What answers it stands for (``"class-frequency random"``).
        kind: One of :data:`KINDS`.
        value: Its value on the metric's scale (None: undefined on this gold).
        how: How it was computed (exact, or simulations with their count and spread).
        ci_low, ci_high: The range 95% of simulated draws fall in (or a CI), when there is one.
        **more: Further fields (e.g. ``n``).

    Raises:
        ValueError: unknown ``kind``.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown yardstick kind {kind!r}; expected one of {KINDS}")
    return {"name": name, "kind": kind, "value": _clean(value), "how": how,
            "ci_low": _clean(ci_low), "ci_high": _clean(ci_high), **more}


def _clean(v: float | None) -> float | None:
    return None if v is None or math.isnan(float(v)) else float(v)


def spread_text(draws: np.ndarray, *, digits: int = 3, what: str = "simulated draws") -> tuple[str, float, float]:
    """``"95% of 10,000 simulated draws in [lo, hi]"`` and the bounds (2.5% and 97.5% quantiles)."""
    x = np.asarray(draws, dtype=float)
    x = x[~np.isnan(x)]
    if x.size == 0:
        return f"no {what} defined", math.nan, math.nan
    lo, hi = (float(v) for v in np.quantile(x, [0.025, 0.975]))
    return f"95% of {x.size:,} {what} in [{lo:.{digits}f}, {hi:.{digits}f}]", lo, hi


# ------------------------------------------------------------------ classes: F1 and MAE


def expected_class_f1(n_class: int, n: int, q: float) -> float:
    """Exact expected F1 of one class when every item is answered that class with probability ``q``.

    With ``n_class`` gold items of the class among ``n``, the true positives are
    ``T ~ Bin(n_class, q)`` and the false positives ``F ~ Bin(n - n_class, q)``, independent;
    ``F1 = 2T / (n_class + T + F)``, 0 when the denominator is 0 (``zero_division=0``). The
    expectation is the double sum over both binomial laws.

    Args:
        n_class: Gold items of the class (0 allowed: F1 is then always 0).
        n: All gold items.
        q: Probability of answering the class, in [0, 1].

    Returns:
        E[F1] in [0, 1].
    """
    from scipy.stats import binom

    if n_class == 0 or q <= 0:
        return 0.0
    t = np.arange(n_class + 1)
    f = np.arange(n - n_class + 1)
    pt, pf = binom.pmf(t, n_class, q), binom.pmf(f, n - n_class, q)
    den = n_class + t[:, None] + f[None, :]
    return float((pt[:, None] * pf[None, :] * (2 * t[:, None] / den)).sum())


def expected_macro_f1(counts: Mapping[Any, int], probs: Mapping[Any, float], labels: Sequence[Any]) -> float:
    """Exact expected macro-F1 over ``labels`` of independent random answers drawn from ``probs``.

    Macro-F1 is the mean of the per-class F1s, so its expectation is the mean of
    :func:`expected_class_f1` (linearity), whatever the dependence between classes.

    Args:
        counts: Gold items per class.
        probs: Probability of answering each class (summing to 1).
        labels: The classes averaged over (a class absent from the gold scores 0).
    """
    n = int(sum(counts.values()))
    return float(np.mean([expected_class_f1(int(counts.get(c, 0)), n, float(probs.get(c, 0.0))) for c in labels]))


def simulate_macro_f1(gold: Sequence[Any], probs: Mapping[Any, float], labels: Sequence[Any] | None = None, *,
                      n_sims: int = N_SIMULATIONS, seed: int = 0) -> np.ndarray:
    """Macro-F1 of ``n_sims`` independent random answer sets drawn from ``probs``.

    Args:
        gold: The gold labels.
        probs: Probability of answering each class.
        labels: Classes averaged over; None: the classes in the gold or the answers of each
            draw (scikit-learn's default, RINoBench's released ``eval.py``).
        n_sims: Draws.
        seed: RNG seed.

    Returns:
        One macro-F1 per draw (``zero_division=0`` per class).
    """
    g = np.asarray(list(gold))
    classes = list(probs)
    p = np.array([probs[c] for c in classes], dtype=float)
    rng = np.random.default_rng(seed)
    draws = np.asarray(classes)[rng.choice(len(classes), size=(n_sims, g.size), p=p / p.sum())]
    universe = list(dict.fromkeys([*classes, *(labels or []), *g.tolist()]))
    f1 = {}
    present = {}
    for c in universe:
        tp = ((draws == c) & (g == c)).sum(axis=1)
        pred_c = (draws == c).sum(axis=1)
        gold_c = int((g == c).sum())
        den = gold_c + pred_c
        f1[c] = np.where(den > 0, 2 * tp / np.maximum(den, 1), 0.0)
        present[c] = (pred_c > 0) | (gold_c > 0)
    if labels is not None:
        return np.mean([f1[c] for c in labels], axis=0)
    stacked = np.array([f1[c] for c in universe])
    mask = np.array([present[c] for c in universe])
    return (stacked * mask).sum(axis=0) / np.maximum(mask.sum(axis=0), 1)


def constant_macro_f1(counts: Mapping[Any, int], answer: Any, labels: Sequence[Any]) -> float:
    """Exact macro-F1 of answering ``answer`` for every item: ``2 n_a / (n_a + n)`` over ``len(labels)``.

    Args:
        counts: Gold items per class.
        answer: The constant answer.
        labels: The classes averaged over (should include ``answer``).
    """
    n = int(sum(counts.values()))
    n_a = int(counts.get(answer, 0))
    f1_a = 2 * n_a / (n_a + n) if n_a + n else 0.0
    return f1_a / len(labels) if answer in labels else 0.0


def best_constant_mae(counts: Mapping[int, int], candidates: Sequence[int]) -> tuple[int, float]:
    """The constant answer with the lowest mean absolute error on this gold, and that error (exact).

    A median of the gold minimises it; among ``candidates`` the smallest best one is returned.

    Args:
        counts: Gold items per score.
        candidates: The answers allowed (e.g. 1..5).

    Returns:
        ``(answer, MAE)``; MAE in [0, max-min], lower is better.
    """
    n = sum(counts.values())
    if n == 0:
        raise ValueError("no gold items")
    best = min(candidates, key=lambda c: (sum(k * abs(g - c) for g, k in counts.items()), c))
    return best, sum(k * abs(g - best) for g, k in counts.items()) / n


def expected_mae(counts: Mapping[int, int], probs: Mapping[int, float]) -> float:
    """Exact expected MAE of independent random answers drawn from ``probs`` (``Σ_g n_g Σ_c p_c |g-c| / n``)."""
    n = sum(counts.values())
    return sum(k * sum(p * abs(g - c) for c, p in probs.items()) for g, k in counts.items()) / n


def chance_f1_yardsticks(gold: Sequence[Any], labels: Sequence[Any], *, mode: str = "fixed",
                         n_sims: int = N_SIMULATIONS, seed: int = 0) -> list[dict[str, Any]]:
    """Macro-F1 yardsticks of a gold label list: uniform random, class-frequency random, majority class.

    Uniform random answers every class of ``labels`` with the same probability;
    class-frequency random draws each answer from the gold's class frequencies
    (stratified); the majority class answers the most frequent gold class every time.

    Args:
        gold: The gold labels.
        labels: The answer classes (e.g. 1..5).
        mode: ``"fixed"``: macro-F1 over ``labels`` (the expectation is exact); ``"present"``:
            over the classes in the gold or the answers (then the value is the simulation mean).
        n_sims: Simulated draws for the spread.
        seed: RNG seed.

    Returns:
        Three yardsticks (kinds ``chance``, ``chance``, ``trivial``).
    """
    counts = {c: sum(1 for g in gold if g == c) for c in labels}
    n = len(gold)
    out = []
    for name, probs in (("uniform random", {c: 1 / len(labels) for c in labels}),
                        ("class-frequency random", {c: counts[c] / n for c in labels})):
        draws = simulate_macro_f1(gold, probs, labels if mode == "fixed" else None, n_sims=n_sims, seed=seed)
        spread, lo, hi = spread_text(draws)
        if mode == "fixed":
            value, how = expected_macro_f1(counts, probs, labels), f"exact expectation; {spread}"
        else:
            value, how = float(draws.mean()), f"mean of {n_sims:,} simulations; {spread}"
        out.append(yardstick(name, "chance", value, how, ci_low=lo, ci_high=hi))
    major = max(labels, key=lambda c: (counts[c], -list(labels).index(c)))
    used = list(labels) if mode == "fixed" else sorted({*gold, major})
    out.append(yardstick(f"majority class (always {major})", "trivial", constant_macro_f1(counts, major, used), "exact"))
    return out


def mae_yardsticks(gold: Sequence[int], labels: Sequence[int]) -> list[dict[str, Any]]:
    """MAE yardsticks of a gold score list: best constant answer, uniform and class-frequency random (all exact)."""
    counts = {c: sum(1 for g in gold if g == c) for c in labels}
    n = len(gold)
    best, value = best_constant_mae(counts, labels)
    return [
        yardstick(f"best constant answer ({best})", "trivial", value, "exact"),
        yardstick("uniform random", "chance", expected_mae(counts, {c: 1 / len(labels) for c in labels}),
                  "exact expectation"),
        yardstick("class-frequency random", "chance", expected_mae(counts, {c: counts[c] / n for c in labels}),
                  "exact expectation"),
    ]


# ------------------------------------------------------------------ shuffled pairing


def random_derangements(excluded: np.ndarray, n_sims: int = N_SIMULATIONS, seed: int = 0,
                        max_batches: int = 200) -> np.ndarray | None:
    """``n_sims`` uniformly random permutations ``π`` with no ``excluded[i, π(i)]`` (rejection sampling).

    With ``excluded`` the identity this samples derangements: every item paired with
    another item's gold. Marking items of the same group (e.g. two annotators of one
    review) excludes pairing an item with its own group.

    Args:
        excluded: ``(n, n)`` bool; ``True`` where ``i`` may not take ``j``'s gold.
        n_sims: Permutations wanted.
        seed: RNG seed.
        max_batches: Give up after this many batches of ``n_sims`` candidates.

    Returns:
        ``(n_sims, n)`` int array, or None when too few valid permutations turn up (no or
        almost no valid pairing exists).
    """
    n = excluded.shape[0]
    if n < 2:
        return None
    rng = np.random.default_rng(seed)
    kept: list[np.ndarray] = []
    have = 0
    rows = np.arange(n)
    for _ in range(max_batches):
        perms = np.argsort(rng.random((n_sims, n)), axis=1)
        ok = ~excluded[rows[None, :], perms].any(axis=1)
        kept.append(perms[ok])
        have += int(ok.sum())
        if have >= n_sims:
            return np.concatenate(kept)[:n_sims]
    return None


def within_group_derangements(groups: Sequence[Any], n_sims: int = N_SIMULATIONS, seed: int = 0) -> np.ndarray | None:
    """``n_sims`` random permutations that pair each item with another item of its own group.

    Each group gets its own uniformly random derangement (rejection sampling per group), so
    for every item ``π(i)`` is uniform over the other members of its group.

    Args:
        groups: One group label per item; every group needs at least two items.
        n_sims: Permutations wanted.
        seed: RNG seed.

    Returns:
        ``(n_sims, n)`` int array, or None when a group has a single item.
    """
    labels = list(groups)
    n = len(labels)
    out = np.tile(np.arange(n), (n_sims, 1))
    members: dict[Any, list[int]] = {}
    for i, g in enumerate(labels):
        members.setdefault(g, []).append(i)
    for k, idx in enumerate(members.values()):
        if len(idx) < 2:
            return None
        perms = random_derangements(np.eye(len(idx), dtype=bool), n_sims, seed + k)
        if perms is None:
            return None
        out[:, idx] = np.asarray(idx)[perms]
    return out


def _pairings(n: int, excluded: np.ndarray | None, within: Sequence[Any] | None, n_sims: int,
              seed: int) -> tuple[np.ndarray | None, np.ndarray, bool]:
    """Random pairings, the pairs allowed, and whether π(i) is uniform over them (the expectation is exact)."""
    if within is not None:
        g = np.asarray(list(within), dtype=object)
        allowed = (g[:, None] == g[None, :]) & ~np.eye(n, dtype=bool)
        return within_group_derangements(list(within), n_sims, seed), allowed, True
    ex = np.eye(n, dtype=bool) if excluded is None else np.asarray(excluded, dtype=bool) | np.eye(n, dtype=bool)
    return random_derangements(ex, n_sims, seed), ~ex, excluded is None


def shuffled_matrix_yardstick(matrix: np.ndarray, *, excluded: np.ndarray | None = None,
                              within: Sequence[Any] | None = None, name: str = "shuffled pairing",
                              n_sims: int = N_SIMULATIONS, seed: int = 0, what: str = "") -> dict[str, Any] | None:
    """The mean metric when each prediction is scored against another item's gold.

    ``matrix[i, j]`` is the metric of prediction ``i`` scored against gold ``j`` (NaN: the
    metric is undefined for that pair and left out of the mean, as the run leaves such
    items out). The value is the exact expectation over uniformly random derangements —
    for each prediction the mean over the other items' golds, then the mean over
    predictions — when only the diagonal is excluded or pairs stay ``within`` groups;
    otherwise (more pairs excluded) the mean of the simulations. The spread is over
    :data:`N_SIMULATIONS` random pairings.

    Args:
        matrix: ``(n, n)`` metric values.
        excluded: ``(n, n)`` bool of pairs not allowed besides the diagonal (e.g. the same review).
        within: A group per item: pair each item only with another item of its group.
        name: The yardstick's name.
        n_sims: Simulated pairings.
        seed: RNG seed.
        what: Appended to ``how`` (e.g. ``"on 60 of 140 items"``).

    Returns:
        A ``shuffled`` yardstick, or None with fewer than two items or no valid pairing.
    """
    m = np.asarray(matrix, dtype=float)
    n = m.shape[0]
    perms, allowed, exact = _pairings(n, excluded, within, n_sims, seed)
    if perms is None:
        return None
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a draw whose pairs are all undefined is NaN
        draws = np.nanmean(m[np.arange(n)[None, :], perms], axis=1)
        spread, lo, hi = spread_text(draws, what="random pairings")
        if exact:
            value = float(np.nanmean(np.nanmean(np.where(allowed, m, np.nan), axis=1)))
            how = f"exact expectation over random pairings; {spread}"
        else:
            value, how = float(np.nanmean(draws)), f"mean of {n_sims:,} random pairings; {spread}"
    return yardstick(name, "shuffled", value, how + (f"; {what}" if what else ""), ci_low=lo, ci_high=hi, seed=seed)


def shuffled_micro_f1_yardstick(matched: np.ndarray, n_pred: Sequence[int], n_gold: Sequence[int], *,
                                excluded: np.ndarray | None = None, within: Sequence[Any] | None = None,
                                zero_division: float = 1.0,
                                name: str = "shuffled pairing", n_sims: int = N_SIMULATIONS, seed: int = 0,
                                what: str = "") -> dict[str, Any] | None:
    """Micro-averaged span F1 when each item's predicted spans are scored against another item's gold.

    Micro F1 pools the matched similarity ``M`` and the span counts over items:
    ``F1 = 2 ΣM / (Σ|pred| + Σ|gold|)``. Under a permutation both sums of counts stay the
    same, so F1 is linear in the pairing and its expectation over random derangements is
    exact: ``2 Σ_i mean_{j≠i} matched[i, j] / (Σ|pred| + Σ|gold|)``.

    Args:
        matched: ``(n, n)``: summed similarity of the best one-to-one alignment of item
            ``i``'s predicted spans with item ``j``'s gold spans.
        n_pred, n_gold: Span counts per item.
        excluded: Pairs not allowed beside the diagonal (then the value is the simulation mean).
        within: A group per item: pair each item only with another item of its group (exact).
        zero_division: F1 when there is no span on either side.
        name, n_sims, seed, what: As :func:`shuffled_matrix_yardstick`.
    """
    m = np.asarray(matched, dtype=float)
    n = m.shape[0]
    den = float(sum(n_pred) + sum(n_gold))
    if den == 0:
        return yardstick(name, "shuffled", zero_division, "exact (no span on either side)")
    perms, allowed, exact = _pairings(n, excluded, within, n_sims, seed)
    if perms is None:
        return None
    draws = 2 * m[np.arange(n)[None, :], perms].sum(axis=1) / den
    spread, lo, hi = spread_text(draws, what="random pairings")
    if exact:
        off = np.where(allowed, m, 0.0).sum(axis=1) / np.maximum(allowed.sum(axis=1), 1)
        value, how = 2 * float(off.sum()) / den, f"exact expectation over random pairings; {spread}"
    else:
        value, how = float(draws.mean()), f"mean of {n_sims:,} random pairings; {spread}"
    return yardstick(name, "shuffled", value, how + (f"; {what}" if what else ""), ci_low=lo, ci_high=hi, seed=seed)


# ------------------------------------------------------------------ rates and correlations


def binomial_rate_range(n: int, p: float = 0.5) -> tuple[float, float]:
    """The central 95% range of a success share over ``n`` independent trials with probability ``p`` (exact)."""
    from scipy.stats import binom

    if n <= 0:
        return (p, p)
    lo, hi = binom.ppf([0.025, 0.975], n, p)
    return float(lo) / n, float(hi) / n


def spearman_null_range(n: int, *, n_sims: int = N_SIMULATIONS, seed: int = 0) -> tuple[float, float, np.ndarray]:
    """Spearman's ρ of ``n_sims`` random orderings of ``n`` items against a fixed one (no ties).

    Returns:
        ``(lo, hi, draws)``: the range 95% of the draws fall in, and the draws.
    """
    rng = np.random.default_rng(seed)
    ranks = np.argsort(rng.random((n_sims, n)), axis=1).astype(float)
    base = np.arange(n, dtype=float)
    xc = ranks - ranks.mean(axis=1, keepdims=True)
    bc = base - base.mean()
    rho = (xc @ bc) / (np.sqrt((xc**2).sum(axis=1)) * np.sqrt((bc**2).sum()))
    lo, hi = (float(v) for v in np.quantile(rho, [0.025, 0.975]))
    return lo, hi, rho


def pair_matrix(preds: Sequence[Any], golds: Sequence[Any], fn: Callable[[list[Any], list[Any]], Sequence[float]],
                ) -> np.ndarray:
    """``(n, n)`` matrix of ``fn`` over every (prediction ``i``, gold ``j``) pair, one batched call.

    ``fn(preds, refs)`` scores aligned lists (e.g. :func:`noveval.metrics.text.rouge_f1`).
    """
    n = len(preds)
    ps = [preds[i] for i in range(n) for _ in range(n)]
    gs = [golds[j] for _ in range(n) for j in range(n)]
    return np.asarray(fn(ps, gs), dtype=float).reshape(n, n) if n else np.zeros((0, 0))


# ------------------------------------------------------------------ reading them back (every view; their text: noveval.yardstick_text)


def references_of(scores: Mapping[str, Any], metric: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A run's yardsticks and published rows of one metric (``scores.json`` keys ``baselines``, ``published``)."""
    got = scores.get("baselines")
    base: Mapping[str, Any] = got if isinstance(got, Mapping) else {}
    ys = [y for y in (base.get(metric) or []) if isinstance(y, Mapping)]
    pub = [r for r in (scores.get("published") or []) if isinstance(r, Mapping) and r.get("metric") == metric]
    return ys, pub  # type: ignore[return-value]
