(function () {
  "use strict";
  var SHOW = 700;        // characters of a field shown before "show more"
  var PAGE = 50;         // rows per page of the item table
  var DIS_PAGE = 20;     // rows per page of the disagreement table
  var data = JSON.parse(document.getElementById("noveval-items").textContent);

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function fmt(v) {
    if (v === null || v === undefined) return "–";
    if (typeof v === "number") {
      if (Number.isInteger(v)) return v.toLocaleString("en-US");
      if (v !== 0 && Math.abs(v) < 0.001) return v.toExponential(1);
      if (Math.abs(v) >= 1000) return Math.round(v).toLocaleString("en-US");
      return v.toFixed(3);
    }
    return String(v);
  }

  function key(v) { return v === null || v === undefined ? "\u0000" : typeof v + ":" + String(v); }

  function plural(n, word) { return n.toLocaleString("en-US") + " " + word + (n === 1 ? "" : "s"); }

  function valueNode(text) {
    var wrap = el("div", "fld-v");
    var looksJson = /^[\[{]/.test(text);
    var pre = el("pre", "val" + (looksJson ? " mono" : ""));
    if (text.length <= SHOW) {
      pre.textContent = text;
      wrap.appendChild(pre);
      return wrap;
    }
    var open = false;
    var more = "show more (" + (text.length - SHOW).toLocaleString("en-US") + " more characters)";
    pre.textContent = text.slice(0, SHOW) + " …";
    var a = el("a", "toggle", more);
    a.href = "#";
    a.addEventListener("click", function (ev) {
      ev.preventDefault();
      open = !open;
      pre.textContent = open ? text : text.slice(0, SHOW) + " …";
      a.textContent = open ? "show less" : more;
    });
    wrap.appendChild(pre);
    wrap.appendChild(a);
    return wrap;
  }

  var ORDER = ["input", "output", "gold", "judge", "scores", "meta"];
  var TITLES = { gold: "Gold", scores: "Scores" };

  // the item's sections, with the per-item fields the table shows put back in (they are not repeated in details)
  function fullSections(run, i) {
    var secs = run.details[i].sections.map(function (s) { return { title: s.title, kind: s.kind, fields: s.fields }; });
    var add = {};
    run.cols.forEach(function (c, ci) {
      if (!c.sec) return;
      (add[c.sec] = add[c.sec] || []).push([c.name, fmt(run.rows[i][ci + 1])]);
    });
    Object.keys(add).forEach(function (kind) {
      var s = secs.filter(function (x) { return x.kind === kind; })[0];
      if (s) { s.fields = add[kind].concat(s.fields); return; }
      var at = 0;
      while (at < secs.length && ORDER.indexOf(secs[at].kind) < ORDER.indexOf(kind)) at += 1;
      secs.splice(at, 0, { title: TITLES[kind], kind: kind, fields: add[kind] });
    });
    return secs;
  }

  function sections(host, secs, skip) {
    secs.forEach(function (sec) {
      if (skip && skip.indexOf(sec.kind) >= 0) return;
      var s = el("div", "sec " + sec.kind);
      s.setAttribute("data-kind", sec.kind);
      s.appendChild(el("h5", null, sec.title));
      sec.fields.forEach(function (kv) {
        var f = el("div", "fld");
        f.appendChild(el("div", "k", kv[0]));
        f.appendChild(valueNode(kv[1]));
        s.appendChild(f);
      });
      host.appendChild(s);
    });
    if (!secs.length) host.appendChild(el("p", "empty", "No rows for this item."));
  }

  // ---- the model calls made for an item (transcripts.jsonl): rendered messages and parameters ----
  function callSummary(c) {
    var bits = [c.role, c.stage];
    if (c.tokens[0] !== null && c.tokens[0] !== undefined)
      bits.push(fmt(c.tokens[0]) + " + " + fmt(c.tokens[1] || 0) + " tokens");
    if (c.cached) bits.push("from the cache");
    if (c.error) bits.push("failed");
    else if (c.usable === false) bits.push("answer unusable");
    else if (c.usable === true) bits.push("answer usable");
    return bits.filter(Boolean).join(" · ");
  }

  function callNode(run, c, open) {
    var setup = run.setups[c.setup];
    var d = el("details", "call");
    d.open = open;
    d.appendChild(el("summary", null, callSummary(c)));
    var f = el("div", "fld");
    f.appendChild(el("div", "k", "model"));
    f.appendChild(valueNode(setup.model + (c.tag ? "  (" + c.tag + ")" : "")));
    d.appendChild(f);
    var params = el("div", "params");
    setup.params.forEach(function (kv) { params.appendChild(el("span", "param", kv[0] + " = " + kv[1])); });
    d.appendChild(params);
    c.msgs.forEach(function (m) {
      var md = el("details", "msg");
      md.open = true;
      md.setAttribute("data-role", m[0]);
      md.appendChild(el("summary", null, m[0] + " message"));
      md.appendChild(valueNode(run.texts[m[1]]));
      d.appendChild(md);
    });
    var r = el("div", "fld reply");
    r.appendChild(el("div", "k", c.error ? "failed" : "reply" + (c.finish ? " (finish: " + c.finish + ")" : "")));
    r.appendChild(valueNode(c.error ? String(c.error) : c.reply === null || c.reply === undefined ? "–" : c.reply));
    d.appendChild(r);
    return d;
  }

  function callsSection(host, run, index) {
    var calls = run.calls && run.calls[String(index)];
    if (!calls || !calls.length) return;
    var s = el("div", "sec calls");
    s.setAttribute("data-kind", "calls");
    s.appendChild(el("h5", null, "Model calls (" + calls.length + ")"));
    if (run.tcap < 8000) s.appendChild(el("p", "sub", "Messages are cut to " + run.tcap.toLocaleString("en-US") +
      " characters in this page; " + run.path + "/transcripts.jsonl has them whole."));
    calls.forEach(function (c) { s.appendChild(callNode(run, c, calls.length === 1)); });
    host.appendChild(s);
  }

  function show(panel, run, index) {
    panel.innerHTML = "";
    var h = el("h4", null, run.rows[index][0]);
    h.appendChild(el("span", "pill", run.label));
    panel.appendChild(h);
    sections(panel, fullSections(run, index));
    callsSection(panel, run, index);
  }

  // ---- a table of rows with search, filters on categorical columns, sort on any column, pages ----
  // cols: [{name, label, type, cat}], rows: arrays (row[0] = id), text(i): extra searchable text of row i
  function Grid(host, cols, rows, opts) {
    var state = { q: opts.q || "", filters: {}, sort: null, dir: 1, page: 0, active: -1 };
    var hay = null;
    var controls = el("div", "controls");
    var search = el("input", "q");
    search.type = "search";
    search.placeholder = "Search ids and text";
    search.setAttribute("aria-label", "Search the items");
    search.value = state.q;
    controls.appendChild(search);
    cols.forEach(function (c, ci) {
      if (!c.cat) return;
      var counts = {}, order = [];
      rows.forEach(function (r) {
        var k = key(r[ci]);
        if (!(k in counts)) { counts[k] = 0; order.push(r[ci]); }
        counts[k] += 1;
      });
      if (c.cat === "auto" && order.length > 12) return;
      order.sort(function (a, b) { return cmp(a, b, 1); });
      var sel = el("select", "f");
      sel.setAttribute("data-col", c.name);
      sel.setAttribute("aria-label", "Filter by " + c.label);
      var all = el("option", null, c.label + ": all");
      all.value = "";
      sel.appendChild(all);
      order.forEach(function (v) {
        var o = el("option", null, c.label + " = " + fmt(v) + " (" + counts[key(v)].toLocaleString("en-US") + ")");
        o.value = key(v);
        sel.appendChild(o);
      });
      sel.addEventListener("change", function () {
        if (sel.value === "") delete state.filters[ci]; else state.filters[ci] = sel.value;
        state.page = 0;
        draw();
      });
      controls.appendChild(sel);
    });
    var count = el("span", "count");
    controls.appendChild(count);
    var wrap = el("div", "tablewrap");
    var table = el("table", "grid");
    var thead = el("thead");
    var tr = el("tr");
    cols.forEach(function (c, ci) {
      var th = el("th", c.type === "num" ? "n" : null);
      th.setAttribute("data-col", c.name);
      th.setAttribute("aria-sort", "none");
      var b = el("button", "sort", c.label.replace(/_/g, "_\u200b"));  // long field names may wrap at "_"
      b.type = "button";
      b.title = "Sort by " + (c.title || c.label);
      b.addEventListener("click", function () {
        if (state.sort === ci) state.dir = -state.dir; else { state.sort = ci; state.dir = 1; }
        state.page = 0;
        draw();
      });
      th.appendChild(b);
      tr.appendChild(th);
    });
    thead.appendChild(tr);
    table.appendChild(thead);
    var tbody = el("tbody");
    table.appendChild(tbody);
    wrap.appendChild(table);
    var pager = el("div", "pager");
    var prev = el("button", "prev", "‹ Previous");
    var next = el("button", "next", "Next ›");
    var info = el("span", "pageinfo");
    prev.type = next.type = "button";
    pager.appendChild(prev);
    pager.appendChild(info);
    pager.appendChild(next);
    host.innerHTML = "";
    host.appendChild(controls);
    host.appendChild(wrap);
    host.appendChild(pager);
    var timer = null;
    search.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () { state.q = search.value; state.page = 0; draw(); }, 120);
    });
    prev.addEventListener("click", function () { state.page -= 1; draw(); });
    next.addEventListener("click", function () { state.page += 1; draw(); });

    function cmp(a, b, dir) {
      var na = a === null || a === undefined, nb = b === null || b === undefined;
      if (na || nb) return na === nb ? 0 : na ? 1 : -1;  // missing values last either way
      if (typeof a === "number" && typeof b === "number") return dir * (a - b);
      return dir * String(a).localeCompare(String(b), undefined, { numeric: true });
    }

    function haystack(i) {
      if (hay === null) hay = [];
      if (hay[i] === undefined) hay[i] = (rows[i].map(fmt).join("\n") + "\n" + (opts.text ? opts.text(i) : "")).toLowerCase();
      return hay[i];
    }

    function visible() {
      var terms = state.q.toLowerCase().split(/\s+/).filter(Boolean);
      var out = [];
      for (var i = 0; i < rows.length; i++) {
        var ok = true;
        for (var ci in state.filters) if (key(rows[i][ci]) !== state.filters[ci]) { ok = false; break; }
        for (var t = 0; ok && t < terms.length; t++) if (haystack(i).indexOf(terms[t]) < 0) ok = false;
        if (ok) out.push(i);
      }
      if (state.sort !== null) {
        var s = state.sort, d = state.dir;
        out.sort(function (a, b) { return cmp(rows[a][s], rows[b][s], d) || a - b; });
      }
      return out;
    }

    function draw() {
      var idx = visible();
      var pages = Math.max(1, Math.ceil(idx.length / opts.pageSize));
      state.page = Math.min(Math.max(state.page, 0), pages - 1);
      var start = state.page * opts.pageSize, shown = idx.slice(start, start + opts.pageSize);
      tbody.innerHTML = "";
      shown.forEach(function (i) {
        var r = el("tr", "item" + (i === state.active ? " active" : ""));
        r.tabIndex = 0;
        r.setAttribute("data-index", String(i));
        r.setAttribute("data-id", rows[i][0]);
        cols.forEach(function (c, ci) { r.appendChild(el(ci === 0 ? "th" : "td", c.type === "num" ? "n" : null, fmt(rows[i][ci]))); });
        function pick() {
          tbody.querySelectorAll("tr.active").forEach(function (x) { x.classList.remove("active"); });
          r.classList.add("active");
          state.active = i;
          opts.pick(i);
        }
        r.addEventListener("click", pick);
        r.addEventListener("keydown", function (ev) { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); pick(); } });
        tbody.appendChild(r);
      });
      if (!shown.length) {
        var none = el("tr", "none");
        var td = el("td", null, rows.length ? "No item matches." : opts.empty || "No items.");
        td.colSpan = cols.length;
        none.appendChild(td);
        tbody.appendChild(none);
      }
      thead.querySelectorAll("th").forEach(function (th, ci) {
        th.setAttribute("aria-sort", state.sort !== ci ? "none" : state.dir > 0 ? "ascending" : "descending");
      });
      var filtered = idx.length !== rows.length;
      count.textContent = (filtered ? idx.length.toLocaleString("en-US") + " of " : "") + plural(rows.length, opts.noun) + (filtered ? " match" : "");
      count.setAttribute("data-matching", String(idx.length));
      info.textContent = idx.length ? (start + 1).toLocaleString("en-US") + "–" + (start + shown.length).toLocaleString("en-US") +
        " · page " + (state.page + 1) + " of " + pages : "page 1 of 1";
      prev.disabled = state.page === 0;
      next.disabled = state.page >= pages - 1;
    }
    draw();
    return { search: search };
  }

  function detailText(run) {
    return function (i) {
      return run.details[i].sections.map(function (s) {
        return s.fields.map(function (kv) { return kv[0] + " " + kv[1]; }).join("\n");
      }).join("\n");
    };
  }

  function gridCols(run) {
    return [{ name: "id", label: "id", type: "text", cat: false }].concat(run.cols.map(function (c) {
      return { name: c.name, label: c.name + (c.role === "gold" ? " (gold)" : c.role === "answer" ? " (answer)" : ""),
               type: c.type, cat: c.cat };
    }));
  }

  // ---- the item table of each benchmark: one run at a time ----
  document.querySelectorAll(".items[data-bench]").forEach(function (box) {
    var head = box.querySelector(".items-head");
    var host = box.querySelector(".grid-host");
    var panel = box.querySelector(".panel");
    var slugs = box.getAttribute("data-runs").split(" ").filter(function (s) { return s && data[s]; });
    if (!slugs.length) { host.appendChild(el("p", "empty", "No items.")); return; }
    var pickRun = el("select", "run-pick");
    pickRun.setAttribute("aria-label", "Run");
    slugs.forEach(function (slug) {
      var o = el("option", null, data[slug].label + " — " + plural(data[slug].total, "item"));
      o.value = slug;
      pickRun.appendChild(o);
    });
    var lab = el("label", "runsel", "Run ");
    lab.appendChild(pickRun);
    head.appendChild(lab);
    var note = el("span", "sub");
    head.appendChild(note);
    var grid = null;
    function load() {
      var run = data[pickRun.value];
      var q = grid ? grid.search.value : "";
      panel.innerHTML = "";
      panel.appendChild(el("p", "empty", "Select an item."));
      note.textContent = run.cap < 8000 ? "Long fields are cut to " + run.cap.toLocaleString("en-US") +
        " characters in this page (its size limit); the run folder " + run.path + " has them whole." : "";
      grid = Grid(host, gridCols(run), run.rows, { pageSize: PAGE, noun: "item", q: q, text: detailText(run),
                                                   pick: function (i) { show(panel, run, i); } });
    }
    pickRun.addEventListener("change", load);
    load();
  });

  // ---- where two runs of one system answer differently ----
  function answerCol(run) {
    for (var c = 0; c < run.cols.length; c++) if (run.cols[c].role === "answer") return c + 1;
    return -1;
  }
  function goldCol(run) {
    for (var c = 0; c < run.cols.length; c++) if (run.cols[c].role === "gold") return c + 1;
    return -1;
  }

  function disagreements(a, b) {
    var ia = answerCol(a), ib = answerCol(b), ga = goldCol(a), gb = goldCol(b);
    var inB = {};
    b.rows.forEach(function (r, j) { inB[r[0]] = j; });
    var out = { rows: [], refs: [], common: 0, onlyA: 0, onlyB: 0, gold: ga >= 0 || gb >= 0 };
    var seen = {};
    a.rows.forEach(function (r, i) {
      var j = inB[r[0]];
      if (j === undefined) { out.onlyA += 1; return; }
      seen[r[0]] = true;
      out.common += 1;
      var va = r[ia], vb = b.rows[j][ib];
      if (key(va) === key(vb)) return;
      var gold = ga >= 0 ? r[ga] : gb >= 0 ? b.rows[j][gb] : null;
      out.rows.push(out.gold ? [r[0], gold, va, vb] : [r[0], va, vb]);
      out.refs.push([i, j]);
    });
    out.onlyB = b.rows.length - out.common;
    return out;
  }

  function showPair(panel, a, b, ref, answer) {
    panel.innerHTML = "";
    panel.appendChild(el("h4", null, a.rows[ref[0]][0]));
    var gold = fullSections(a, ref[0]).filter(function (s) { return s.kind === "gold"; });
    if (!gold.length) gold = fullSections(b, ref[1]).filter(function (s) { return s.kind === "gold"; });
    if (gold.length) sections(panel, gold);
    var sides = el("div", "sides");
    [[a, ref[0], "A"], [b, ref[1], "B"]].forEach(function (x) {
      var col = el("div", "side");
      col.setAttribute("data-side", x[2]);
      var h = el("h5", "side-h", x[2] + ": " + x[0].label);
      col.appendChild(h);
      col.appendChild(el("div", "ans", answer + " = " + fmt(x[0].rows[x[1]][answerCol(x[0])])));
      sections(col, fullSections(x[0], x[1]), ["gold"]);
      sides.appendChild(col);
    });
    panel.appendChild(sides);
  }

  document.querySelectorAll(".disagree[data-group]").forEach(function (box) {
    var group = JSON.parse(box.getAttribute("data-group"));
    var slugs = group.runs.filter(function (s) { return data[s]; });
    if (slugs.length < 2) return;
    var head = box.querySelector(".dis-head");
    var host = box.querySelector(".grid-host");
    var panel = box.querySelector(".panel");
    var picks = ["A", "B"].map(function (side, k) {
      var sel = el("select", "pick-" + side.toLowerCase());
      sel.setAttribute("aria-label", "Run " + side);
      slugs.forEach(function (slug) { var o = el("option", null, data[slug].label); o.value = slug; sel.appendChild(o); });
      sel.value = slugs[k];
      var lab = el("label", "runsel", "Run " + side + " ");
      lab.appendChild(sel);
      head.appendChild(lab);
      return sel;
    });
    if (group.title) head.insertBefore(el("b", "task", group.title + " "), head.firstChild);
    var summary = el("p", "dis-summary");
    head.appendChild(summary);
    function load() {
      var a = data[picks[0].value], b = data[picks[1].value];
      var d = disagreements(a, b);
      var share = d.common ? " (" + (100 * d.rows.length / d.common).toFixed(1) + "%)" : "";
      summary.textContent = d.rows.length.toLocaleString("en-US") + " of the " + plural(d.common, "item") +
        " both runs have are answered differently" + share + ": " + group.answer + ", " + group.how +
        "; a missing (unparseable) answer counts as an answer of its own." +
        (d.onlyA || d.onlyB ? " Only in A: " + d.onlyA.toLocaleString("en-US") + "; only in B: " + d.onlyB.toLocaleString("en-US") + "." : "");
      summary.setAttribute("data-differ", String(d.rows.length));
      summary.setAttribute("data-common", String(d.common));
      panel.innerHTML = "";
      panel.appendChild(el("p", "empty", picks[0].value === picks[1].value ? "Pick two different runs." : "Select an item to see both runs' answers."));
      var cols = [{ name: "id", label: "id", type: "text", cat: false }];
      var ga = goldCol(a) >= 0 ? a.cols[goldCol(a) - 1] : goldCol(b) >= 0 ? b.cols[goldCol(b) - 1] : null;
      if (d.gold) cols.push({ name: "gold", label: "gold", title: ga ? ga.name : "", type: ga ? ga.type : "text", cat: "auto" });
      var ta = a.cols[answerCol(a) - 1], tb = b.cols[answerCol(b) - 1];
      cols.push({ name: "A", label: "run A", title: ta.name + " of " + a.label, type: ta.type, cat: "auto" });
      cols.push({ name: "B", label: "run B", title: tb.name + " of " + b.label, type: tb.type, cat: "auto" });
      Grid(host, cols, d.rows, { pageSize: DIS_PAGE, noun: "differing item", empty: "The two runs answer every item they share alike.",
                                 text: function (i) { return detailText(a)(d.refs[i][0]) + "\n" + detailText(b)(d.refs[i][1]); },
                                 pick: function (i) { showPair(panel, a, b, d.refs[i], group.answer); } });
    }
    picks.forEach(function (s) { s.addEventListener("change", load); });
    load();
  });
})();
