"""Write the check result as Markdown, HTML and JSON.

The HTML reuses :mod:`noveval.report`'s stylesheet when that module provides one
(``templates/report.css``); otherwise a small self-contained
stylesheet. The page has no external resources.
"""

from __future__ import annotations

import html
import re
from importlib.resources import files
from pathlib import Path
from typing import Any

from noveval.check.judge import sampling_note
from noveval.check.opinion import BUNDLED_NOTE
from noveval.io import make_dir, write_json, write_text

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
    try:
        base = files("noveval.report").joinpath("templates", "report.css").read_text(encoding="utf-8")
    except (ImportError, FileNotFoundError, OSError):
        return _CSS
    return base + _EXTRA


def _fmt(x: float | None, digits: int = 3) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


def _input_lines(r: dict[str, Any]) -> list[str]:
    """The parsed input, each part with how it was found."""
    i = r["input"]
    pz = i.get("parsed") or {}
    lines = [f"Read as **{pz.get('source') or i['kind']}** from `{i['path']}`.", "",
             "| part | text | how it was found |", "|---|---|---|"]
    cell = lambda x: str(x).replace("|", "\\|").replace("\n", " ")  # noqa: E731
    t = pz.get("title") or {"text": i.get("title"), "how": ""}
    lines.append(f"| title | {cell(t['text'] or '(none)')} | {cell(t['how'] or '—')} |")
    if pz.get("abstract"):
        lines.append(f"| abstract | {cell(pz['abstract']['text'])} | {cell(pz['abstract']['how'])} |")
    for key, name in (("problem_statement", "problem"), ("objective", "objective"), ("solution_approach", "approach")):
        if pz.get(key):
            lines.append(f"| {name} | {cell(pz[key]['text'])} | {cell(pz[key]['how'])} |")
    for j, c in enumerate(pz.get("contributions") or [], 1):
        lines.append(f"| contribution ({j}) | {cell(c['text'])} | {cell(c['how'])} |")
    st = r.get("structuring")
    if st:
        lines.append("")
        if st["by"] == "model" and r.get("structured_idea"):
            si = r["structured_idea"]
            lines.append(f"The model structured it for the rubric judgment: problem: {si['problem_statement']} "
                         f"objective: {si['objective']} approach: {si['solution_approach']}")
        else:
            lines.append(f"The model's structuring was rejected ({st.get('error')}); the rubric judgment uses the "
                         "heuristic parse above.")
    elif i.get("text") and not pz:
        lines.append(i["text"])
    return lines


def _retrieval_line(r: dict[str, Any]) -> str:
    t, c = r["retrieval"], r["corpus"]
    parts = [f"{t['mode']} over the index (RRF k={t['rrf_k']}, {t['depth']} per ranking)" if t["mode"] == "hybrid"
             else f"{t['mode']} over the index"]
    if t.get("dense_method"):
        parts.append(f"dense ranking: {t['dense_method']}")
    if t.get("note"):
        parts.append(t["note"])
    rr = t.get("rerank")
    if rr:
        parts.append(f"reranked by {rr['model']} (top {rr['depth']}" + (f"; failed: {rr['error']}, retrieval order kept)"
                                                                      if rr.get("error") else ")"))
    if c.get("metric_pool_source"):
        parts.append(f"metric pool and evidence candidates: {c['metric_pool_source']}")
    return "; ".join(parts) + "."


def _evidence_lines(r: dict[str, Any]) -> list[str]:
    ev = r.get("evidence") or {}
    rows = ev.get("contributions") or []
    if not rows:
        return []
    th = ev.get("thresholds") or {}
    out = ["## Evidence per contribution", "",
           f"Each contribution against its {len(rows[0]['works']) if rows[0]['works'] else 0} most similar papers among "
           f"the {ev.get('candidates')} candidates; quotes are sentences of their abstracts sharing at least "
           f"{th.get('quote_overlap', 0):.0%} of the contribution's IDF-weighted terms. Verdict: anticipated "
           f"(similarity ≥ {th.get('anticipated_similarity')} and a quote covering ≥ "
           f"{th.get('anticipated_overlap', 0):.0%}), partly anticipated (similarity ≥ {th.get('partly_similarity')} "
           "with a quote), new (neither).", "",
           "| contribution | verdict | closest works (similarity) | quotes |", "|---|---|---|---|"]
    cell = lambda x: str(x).replace("|", "\\|").replace("\n", " ")  # noqa: E731
    for e in rows:
        works = "<br>".join(f"[{w['rank']}] {cell(w['title'])} ({w['year'] or 'n.d.'}; {w['similarity']:.2f})"
                            for w in e["works"])
        quotes = "<br>".join(f"[{w['rank']}] “{cell(q['sentence'])}” ({q['overlap']:.0%})" for w in e["works"]
                             for q in w["quotes"][:1]) or "—"
        out.append(f"| ({e['n']}) {cell(e['text'])} | **{e['verdict']}** ({cell(e['reason'])}) | {works} | {quotes} |")
    return out + [""]


def _judgment_lines(r: dict[str, Any]) -> list[str]:
    v, rb = r["verdict"], r["rubric"]
    out = ["", f"## Model judgment (RINoBench rubric, `{r.get('model')}`)", ""]
    if r.get("bundled_model"):
        out += [f"> {BUNDLED_NOTE}", ""]
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
    out += ["## Structured evaluation per contribution (NovBench style)", ""]
    if ev.get("error"):
        out += [f"*The model gave no usable evaluation: {ev['error']}*", ""]
    for sec, name in (("positive", "Positive (new)"), ("neutral", "Neutral (partly anticipated)"),
                      ("negative", "Negative (anticipated)")):
        out += [f"**{name}**", ""]
        pts = ev.get(sec) or []
        for p in pts:
            cites = " ".join(f"[{c}]" for c in p["cites"])
            which = f"({p['contribution']}) " if p.get("contribution") else ""
            tail = (f" — quote [{p['quote_work']}]: “{p['quote']}”" if p.get("grounded")
                    else f" **⚠ {p['flag']}**")
            out.append(f"- {which}{p['point']} {cites}{tail}")
        out += ["- (none)" if not pts else "", ""]
    out.append(f"{ev.get('n_grounded', 0)} of {ev.get('n_points', 0)} points are grounded (a sentence of a cited work "
               f"overlaps the point); {ev.get('n_ungrounded', 0)} are not.")
    return out


def to_markdown(r: dict[str, Any]) -> str:
    """The report as Markdown."""
    v, c = r["verdict"], r["corpus"]
    out = ["# Novelty check", ""]
    out += [("> **Cannot judge.** " if not v["supported"] else "> ") + v["summary"], ""]
    out += ["## Input", ""] + _input_lines(r) + [""]
    sampled = f", sampled from {c['sampled_from']}" if c.get("sampled_from") else ""
    out += [f"**Corpus:** `{c['path']}`: {c['papers']} papers ({c['year_min']}–{c['year_max']}{sampled}; "
            f"filters {c['filters']}); metrics on {c.get('metric_pool_source') or c['metric_pool']}; "
            f"embedder `{c['embedder']}`.", ""]
    if r.get("retrieval"):
        out += [f"**Retrieval:** {_retrieval_line(r)}", ""]
    out += _evidence_lines(r)
    out += ["## Closest prior work", "", f"In retrieval order ({r.get('order', '')}). The most similar of all "
            f"{c.get('metric_pool')} candidates is [{(r.get('closest') or {}).get('rank', '–')}].", "",
            "| # | similarity | year | title |", "|---|---|---|---|"]
    for n in r["neighbours"]:
        out.append(f"| [{n['rank']}] | {n['similarity']:.3f} | {n['year'] or ''} | {n['title']} |")
    out += ["", "## Corpus novelty metrics", "",
            f"Percentile among {c.get('metric_pool_source') or 'the pool'} (each scored against the rest of that pool); "
            "higher = more novel.", "",
            "| metric | score | percentile | what it measures | known failure modes |", "|---|---|---|---|---|"]
    for m in r["metrics"]:
        pct = _fmt(m["percentile"], 1) if m["percentile"] is not None else m["note"] or "—"
        out.append(f"| {m['name']} | {_fmt(m['score'])} | {pct} | {m['measures']} | {m['failure_modes']} |")
    notes = [f"{m['name']}: {m['note']}" for m in r["metrics"] if m["note"] and m["percentile"] is not None]
    if notes:
        out += ["", *[f"- {n}" for n in notes]]
    if "rubric" in r:
        out += _judgment_lines(r)
    return "\n".join(out).rstrip() + "\n"


def _e(x: Any) -> str:
    return html.escape(str(x if x is not None else ""))


def _html_block(lines: list[str]) -> str:
    """Markdown lines of this module's own making (tables, quotes, bullets, paragraphs) as HTML."""
    out: list[str] = []
    table: list[list[str]] = []
    items: list[str] = []

    def inline(t: str) -> str:
        t = _e(t).replace("\\|", "|").replace("&lt;br&gt;", "<br>")
        t = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", t)
        return re.sub(r"`(.+?)`", r"<code>\1</code>", t)

    def flush() -> None:
        if table:
            head, *body = table
            out.append("<table><tr>" + "".join(f"<th>{inline(c)}</th>" for c in head) + "</tr>"
                       + "".join("<tr>" + "".join(f"<td>{inline(c)}</td>" for c in row) + "</tr>" for row in body)
                       + "</table>")
            table.clear()
        if items:
            out.append("<ul>" + "".join(f"<li>{inline(x)}</li>" for x in items) + "</ul>")
            items.clear()

    for ln in lines:
        if ln.startswith("|"):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", ln.strip())[1:-1]]
            if not all(set(c) <= {"-"} for c in cells):
                table.append(cells)
            continue
        if ln.startswith("- "):
            items.append(ln[2:])
            continue
        flush()
        if ln.startswith("## "):
            out.append(f"<h2>{inline(ln[3:])}</h2>")
        elif ln.startswith("> "):
            out.append(f"<p class='muted'>{inline(ln[2:])}</p>")
        elif ln.strip():
            out.append(f"<p>{inline(ln)}</p>")
    flush()
    return "".join(out)


def to_html(r: dict[str, Any]) -> str:
    """The report as one self-contained HTML page (the Markdown report's content)."""
    v = r["verdict"]
    body = to_markdown(r).splitlines()
    start = next(i for i, ln in enumerate(body) if ln.startswith("## Input"))
    verdict = (f"<div class='verdict{'' if v['supported'] else ' abstain'}'>"
               f"{'<strong>Cannot judge.</strong> ' if not v['supported'] else ''}{_e(v['summary'])}</div>")
    return (f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>noveval check</title>"
            f"<style>{_css()}</style></head><body><header class='top'><h1>Novelty check</h1>"
            f"<div class='meta'>noveval check · {_e(r['input']['path'])}</div></header>"
            f"<main>{verdict}{_html_block(body[start:])}</main></body></html>\n")


def write_outputs(result: dict[str, Any], out_dir: str | Path) -> dict[str, Path]:
    """Write ``check.json``, ``check.md`` and ``check.html`` into ``out_dir`` (atomic writes)."""
    d = Path(out_dir)
    make_dir(d, "--out")
    paths = {"json": d / "check.json", "markdown": d / "check.md", "html": d / "check.html"}
    write_json(paths["json"], result)
    write_text(paths["markdown"], to_markdown(result))
    write_text(paths["html"], to_html(result))
    return paths
