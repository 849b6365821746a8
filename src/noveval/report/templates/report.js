(function () {
  "use strict";
  var SHOW = 700;
  var data = JSON.parse(document.getElementById("noveval-items").textContent);

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

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
    pre.textContent = text.slice(0, SHOW) + " …";
    var a = el("a", "toggle", "show more (" + (text.length - SHOW).toLocaleString() + " more characters)");
    a.href = "#";
    a.addEventListener("click", function (ev) {
      ev.preventDefault();
      open = !open;
      pre.textContent = open ? text : text.slice(0, SHOW) + " …";
      a.textContent = open ? "show less" : "show more (" + (text.length - SHOW).toLocaleString() + " more characters)";
    });
    wrap.appendChild(pre);
    wrap.appendChild(a);
    return wrap;
  }

  function show(panel, runLabel, item) {
    panel.innerHTML = "";
    var h = el("h4", null, item.id);
    h.appendChild(el("span", "pill", runLabel));
    panel.appendChild(h);
    item.sections.forEach(function (sec) {
      var s = el("div", "sec " + sec.kind);
      s.setAttribute("data-kind", sec.kind);
      s.appendChild(el("h5", null, sec.title));
      sec.fields.forEach(function (kv) {
        var f = el("div", "fld");
        f.appendChild(el("div", "k", kv[0]));
        f.appendChild(valueNode(kv[1]));
        s.appendChild(f);
      });
      panel.appendChild(s);
    });
    if (!item.sections.length) panel.appendChild(el("p", "empty", "No rows for this item."));
  }

  document.querySelectorAll(".items[data-bench]").forEach(function (box) {
    var list = box.querySelector(".itemlist");
    var panel = box.querySelector(".panel");
    box.getAttribute("data-runs").split(" ").filter(Boolean).forEach(function (slug) {
      var run = data[slug];
      if (!run) return;
      list.appendChild(el("div", "run", run.label + " — " + run.total + " item" + (run.total === 1 ? "" : "s")));
      run.items.forEach(function (item, i) {
        var b = el("button", "item");
        b.type = "button";
        b.setAttribute("data-run", slug);
        b.setAttribute("data-index", String(i));
        b.appendChild(el("span", "id", item.id));
        if (item.summary.length) {
          b.appendChild(el("span", "sum", item.summary.map(function (kv) { return kv[0] + "=" + kv[1]; }).join("  ")));
        }
        b.addEventListener("click", function () {
          list.querySelectorAll("button.item.active").forEach(function (x) { x.classList.remove("active"); });
          b.classList.add("active");
          show(panel, run.label, item);
        });
        list.appendChild(b);
      });
      if (run.shown < run.total) {
        list.appendChild(el("div", "more", (run.total - run.shown) + " more items not included (see the run directory)."));
      }
    });
  });
})();
