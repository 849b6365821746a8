"""Grid search finds a known optimum; LODO never trains on the held-out field."""

from __future__ import annotations

import numpy as np

from noveval.benchmarks.axioms import combine as cb
from noveval.benchmarks.axioms.axioms import VARIANTS


def test_simplex_grid():
    g = cb.simplex_grid(4, 0.05)
    assert len(g) == 1771  # C(23, 3)
    np.testing.assert_allclose(g.sum(axis=1), 1.0)
    assert (g >= 0).all() and g[0].tolist() == [1, 0, 0, 0]
    assert len(cb.simplex_grid(2, 0.5)) == 3


def _rows(fields=("A", "B", "C"), n=20, seed=0):
    """Metric X passes only Ax1 via 'copy', metric Y passes only Ax4 via 'distant';
    the mix 0.5/0.5 is needed for both, and any w_X < w_Y*... is constructed below."""
    rng = np.random.default_rng(seed)
    rows = []
    for f in fields:
        for _ in range(n):
            base_x, base_y = rng.normal(), rng.normal()
            sx = {"base": base_x, "copy": base_x - 1.0, "distant": base_x - 0.4}
            sy = {"base": base_y, "copy": base_y + 0.4, "distant": base_y + 1.0}
            rows.append({"field": f, "scores": {"X": sx, "Y": sy}})
    return rows


def test_grid_search_finds_known_optimum():
    rows = _rows()
    t = cb.score_tensor(rows, ["X", "Y"])
    # pass Ax1 needs w_x*(-1)+w_y*(0.4) < 0 (in z units, same scale here) and Ax4 needs
    # w_x*(-0.4)+w_y*(1.0) > 0: both hold for w_x in (0.29, 0.71); the first such grid point
    # in lexicographic (descending) order is w_x = 0.70
    grid = cb.simplex_grid(2, 0.05)
    w, obj = cb.best_weights(t, grid)
    assert obj == 100.0
    assert w[0] == 0.70 and w[1] == 0.30
    w1, _ = cb.best_weights(t, grid, axiom="Ax1")
    assert w1[0] == 1.0


def test_lodo_never_trains_on_held_out(monkeypatch):
    rows = _rows()
    seen = []
    real = cb.best_weights

    def spy(t, grid, **kw):
        seen.append(t.shape[0])
        return real(t, grid, **kw)

    monkeypatch.setattr(cb, "best_weights", spy)
    res = cb.lodo(rows, ["X", "Y"])
    for fold in res["folds"]:
        assert fold["held_out"] not in fold["train_fields"]
        assert len(fold["train_fields"]) == 2
    assert seen == [40, 40, 40]  # two of the three fields, never the held-out one
    assert res["test_by_axiom"]["Ax1"] == 100.0
    assert set(VARIANTS) >= {"copy", "distant"}


def test_lodo_weights_ignore_held_out_data():
    rows = _rows()
    # corrupt field C so that training on it would change the weights
    for r in rows:
        if r["field"] == "C":
            r["scores"]["X"]["copy"] += 100.0
    res = cb.lodo(rows, ["X", "Y"])
    fold_c = next(f for f in res["folds"] if f["held_out"] == "C")
    assert fold_c["weights"] == {"X": 0.7, "Y": 0.3}


def test_ablation_and_pearson():
    rows = _rows()
    out = cb.combine(rows, ["X", "Y"])
    assert set(out["ablation"]) == {"None", "X", "Y"}
    assert out["pearson"]["X"]["X"] == 1.0
    assert out["per_axiom"]["folds"][0]["weights"]["Ax1"]["X"] == 1.0


def test_per_axiom_check_absent_from_training_uses_global_weights():
    rows = _rows()
    for r in rows:  # Ax6 (cited_only < minus_cited) exists only in field A
        if r["field"] == "A":
            for m, d in (("X", 0.5), ("Y", -0.5)):
                s = r["scores"][m]
                s["minus_cited"], s["cited_only"] = s["base"], s["base"] + d
    res = cb.lodo(rows, ["X", "Y"], per_axiom=True)
    by = {f["held_out"]: f for f in res["folds"]}
    glob = {f["held_out"]: f for f in cb.lodo(rows, ["X", "Y"])["folds"]}
    assert "Ax6" in by["A"]["untrained"] and by["A"]["weights"]["Ax6"] == glob["A"]["weights"]
    # with A in training, Ax6 is fitted: X alone fails it everywhere, the fit passes it all
    assert "Ax6" not in by["B"]["untrained"] and by["B"]["train"]["Ax6"] == 100.0
    assert by["B"]["weights"]["Ax6"]["Y"] > 0
    assert by["B"]["test"]["Ax6"] is None  # and B has no Ax6 checks to test
