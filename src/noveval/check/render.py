"""Write the check result as Markdown, HTML and JSON.

The HTML reuses :mod:`noveval.report`'s stylesheet when that module provides one
(``templates/report.css``); otherwise a small self-contained
stylesheet. The page has no external resources.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from noveval.check.judge import sampling_note

__all__ = ["to_markdown", "to_html", "write_outputs"]

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;
color:#1f2328;line-height:1.5}
h1{font-size:1.6rem}h2{font-size:1.25rem;border-bottom:1px solid #d0d7de;padding-bottom:.2rem;margin-top:2rem}
table{border-collapse:collapse;width:100%;margin:.5rem 0}th,td{border:1px solid #d0d7de;padding:.35rem .5rem;
text-align:left;vertical-align:top}th{background:#f6f8fa}td.num{text-align:right;font-variant-numeric:tabular-nums}
.verdict{padding:.75rem 1rem;border-radius:6px;background:#ddf4ff;border:1px solid #54aeff}
.abstain{background:#fff8c5;border-color:#d4a72c}.flag{color:#cf222e;font-weight:600}
.muted{color:#656d76;font-size:.9rem}details{margin:.25rem 0}
"""


_EXTRA = """
.verdict{padding:.75rem 1rem;border-radius:6px;background:var(--accent-soft);border:1px solid var(--accent)}
.abstain{background:var(--warn-bg);border-color:var(--warn)}.flag{color:var(--bad);font-weight:600}
.muted{color:var(--muted);font-size:.9rem}table{border-collapse:collapse;width:100%}
th,td{border:1px solid var(--line);padding:.35rem .5rem;text-align:left;vertical-align:top}
"""


def _css() -> str:
    """The report stylesheet of :mod:`noveval.report` when installed, plus this page's few extras."""
    from importlib.resources import files

    try:
        base = files("noveval.report").joinpath("templates", "report.css").read_text(encoding="utf-8")
    except (ImportError, FileNotFoundError, OSError):
        return _CSS
    return base + _EXTRA


def _fmt(x: float | None, digits: int = 3) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


def _input_lines(r: dict[str, Any]) -> list[str]:
    i = r["input"]
    lines = [f"**Input** ({i['kind']}, `{i['path']}`)", ""]
    if i.get("title"):
        lines.append(f"**Title:** {i['title']}")
    if i.get("abstract"):
        lines.append(f"**Abstract:** {i['abstract']}")
    idea = i.get("idea") or r.get("structured_idea")
    if idea:
        tag = "" if i.get("idea") else " (structured by the model)"
        lines += [f"**Problem{tag}:** {idea['problem_statement']}", f"**Objective:** {idea['objective']}",
                  f"**Approach:** {idea['solution_approach']}"]
    elif i.get("text"):
        lines.append(i["text"])
    return lines


def _retrieval_line(r: dict[str, Any]) -> str:
    t, c = r["retrieval"], r["corpus"]
    parts = [f"{t['mode']} over the index (RRF k={t['rrf_k']}, {t['depth']} per ranking)" if t["mode"] == "hybrid"
             else f"{t['mode']} over the index"]
    if t.get("dense_method"):
        parts.append(f"dense search {t['dense_method']}")
    if t.get("note"):
        parts.append(t["note"])
    rr = t.get("rerank")
    if rr:
        parts.append(f"reranked by {rr['model']} (top {rr['depth']}" + (f"; failed: {rr['error']}, retrieval order kept)"
                                                                      if rr.get("error") else ")"))
    if c.get("metric_pool_source"):
        parts.append(f"metric pool: {c['metric_pool_source']}")
    return "; ".join(parts) + "."


def to_markdown(r: dict[str, Any]) -> str:
    """The report as Markdown."""
    v, c = r["verdict"], r["corpus"]
    out = ["# Novelty check", ""]
    out += [("> **Cannot judge.** " if not v["supported"] else "> ") + v["summary"], ""]
    out += _input_lines(r) + [""]
    sampled = f", sampled from {c['sampled_from']}" if c.get("sampled_from") else ""
    out += [f"**Corpus:** `{c['path']}`: {c['papers']} papers ({c['year_min']}–{c['year_max']}{sampled}; "
            f"filters {c['filters']}); metrics on {c['metric_pool']} papers; embedder `{c['embedder']}`.", ""]
    if r.get("retrieval"):
        out += [f"**Retrieval:** {_retrieval_line(r)}", ""]
    out += ["## Closest prior work", "", "| # | similarity | year | title |", "|---|---|---|---|"]
    for n in r["neighbours"]:
        out.append(f"| [{n['rank']}] | {n['similarity']:.3f} | {n['year'] or ''} | {n['title']} |")
    out += ["", "## Corpus novelty metrics", "",
            "Percentile among the corpus's own papers (each scored against the rest); higher = more novel.", "",
            "| metric | score | percentile | what it measures | known failure modes |", "|---|---|---|---|---|"]
    for m in r["metrics"]:
        pct = _fmt(m["percentile"], 1) if m["percentile"] is not None else m["note"] or "—"
        out.append(f"| {m['name']} | {_fmt(m['score'])} | {pct} | {m['measures']} | {m['failure_modes']} |")
    notes = [f"{m['name']}: {m['note']}" for m in r["metrics"] if m["note"] and m["percentile"] is not None]
    if notes:
        out += ["", *[f"- {n}" for n in notes]]
    if "rubric" in r:
        rb = r["rubric"]
        out += ["", f"## Model judgment (RINoBench rubric, `{r.get('model')}`)", ""]
        if rb.get("score"):
            out += [f"**Score: {rb['score']}/5** — {rb.get('label')}", ""]
        else:
            out += [f"**No score** ({rb.get('parse_status')}; {rb.get('error') or 'unparseable answer'})", ""]
        if rb.get("samples"):
            out += [f"Plurality of {len(rb['samples'])} samples: {sampling_note(rb)}. Sample scores (seed: score): "
                    + ", ".join(f"{x['seed']}: {x['score'] or '–'}" for x in rb["samples"]) + ".", ""]
        out += [rb.get("justification") or "", ""]
        if not v["supported"]:
            out += ["*The corpus cannot support this judgment (see above).*", ""]
        ev = r.get("evaluation", {})
        out += ["## Structured evaluation (NovBench style)", ""]
        if ev.get("error"):
            out += [f"*The model gave no usable evaluation: {ev['error']}*", ""]
        for sec in ("positive", "neutral", "negative"):
            out += [f"**{sec.capitalize()}**", ""]
            pts = ev.get(sec) or []
            for p in pts:
                cites = " ".join(f"[{c}]" for c in p["cites"])
                flag = f" **⚠ {p['flag']}**" if p["flag"] else ""
                out.append(f"- {p['point']} {cites}{flag}")
            out += ["- (none)" if not pts else "", ""]
        out.append(f"{ev.get('n_flagged', 0)} of {ev.get('n_points', 0)} points cite no retrieved work.")
    return "\n".join(out).rstrip() + "\n"


def _e(x: Any) -> str:
    return html.escape(str(x if x is not None else ""))


def to_html(r: dict[str, Any]) -> str:
    """The report as one self-contained HTML page."""
    v, c = r["verdict"], r["corpus"]
    b = [f"<div class='verdict{'' if v['supported'] else ' abstain'}'>"
         f"{'<strong>Cannot judge.</strong> ' if not v['supported'] else ''}{_e(v['summary'])}</div>"]
    b.append("<h2>Input</h2>" + "".join(f"<p>{_e(line).replace('**', '')}</p>" for line in _input_lines(r) if line))
    b.append(f"<p class='muted'>Corpus {_e(c['path'])}: {c['papers']} papers ({c['year_min']}–{c['year_max']}); "
             f"metrics on {c['metric_pool']} papers; embedder {_e(c['embedder'])}.</p>")
    if r.get("retrieval"):
        b.append(f"<p class='muted'>Retrieval: {_e(_retrieval_line(r))}</p>")
    rows = "".join(f"<tr><td>[{n['rank']}]</td><td class='num'>{n['similarity']:.3f}</td><td>{_e(n['year'])}</td>"
                   f"<td><details><summary>{_e(n['title'])}</summary><p class='muted'>{_e(n['abstract'])}</p>"
                   f"</details></td></tr>" for n in r["neighbours"])
    b.append(f"<h2>Closest prior work</h2><table><tr><th>#</th><th>similarity</th><th>year</th><th>title</th></tr>{rows}</table>")
    rows = "".join(f"<tr><td>{_e(m['name'])}</td><td class='num'>{_fmt(m['score'])}</td><td class='num'>"
                   f"{_fmt(m['percentile'], 1) if m['percentile'] is not None else _e(m['note'])}</td>"
                   f"<td>{_e(m['measures'])}</td><td>{_e(m['failure_modes'])}</td></tr>" for m in r["metrics"])
    b.append("<h2>Corpus novelty metrics</h2><p class='muted'>Percentile among the corpus's own papers; higher = more "
             "novel.</p><table><tr><th>metric</th><th>score</th><th>percentile</th><th>what it measures</th>"
             f"<th>known failure modes</th></tr>{rows}</table>")
    if "rubric" in r:
        rb, ev = r["rubric"], r.get("evaluation", {})
        head = f"Score {rb['score']}/5 — {_e(rb.get('label'))}" if rb.get("score") else f"No score ({_e(rb.get('parse_status'))})"
        note = (f"<p class='muted'>Plurality of {len(rb['samples'])} samples: {_e(sampling_note(rb))}. "
                "Sample scores (seed: score): " + _e(", ".join(f"{x['seed']}: {x['score'] or '–'}" for x in rb["samples"]))
                + ".</p>") if rb.get("samples") else ""
        b.append(f"<h2>Model judgment (RINoBench rubric, {_e(r.get('model'))})</h2><p><strong>{head}</strong></p>{note}"
                 f"<p>{_e(rb.get('justification'))}</p>")
        secs = []
        for sec in ("positive", "neutral", "negative"):
            items = "".join(f"<li>{_e(p['point'])} {' '.join(f'[{x}]' for x in p['cites'])}"
                            + (f" <span class='flag'>⚠ {_e(p['flag'])}</span>" if p["flag"] else "") + "</li>"
                            for p in ev.get(sec) or []) or "<li class='muted'>(none)</li>"
            secs.append(f"<h3>{sec.capitalize()}</h3><ul>{items}</ul>")
        b.append("<h2>Structured evaluation (NovBench style)</h2>" + "".join(secs)
                 + f"<p class='muted'>{ev.get('n_flagged', 0)} of {ev.get('n_points', 0)} points cite no retrieved work.</p>")
    return (f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>noveval check</title>"
            f"<style>{_css()}</style></head><body><header class='top'><h1>Novelty check</h1>"
            f"<div class='meta'>noveval check · {_e(r['input']['path'])}</div></header>"
            f"<main>{''.join(b)}</main></body></html>\n")


def write_outputs(result: dict[str, Any], out_dir: str | Path) -> dict[str, Path]:
    """Write ``check.json``, ``check.md`` and ``check.html`` into ``out_dir`` (atomic writes)."""
    from noveval.io import make_dir, write_json, write_text

    d = Path(out_dir)
    make_dir(d, "--out")
    paths = {"json": d / "check.json", "markdown": d / "check.md", "html": d / "check.html"}
    write_json(paths["json"], result)
    write_text(paths["markdown"], to_markdown(result))
    write_text(paths["html"], to_html(result))
    return paths
