(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("data").textContent);
  var ev = D.events, nodes = D.nodes, edges = D.edges;
  var SVG = "http://www.w3.org/2000/svg";
  var $ = function (id) { return document.getElementById(id); };

  // The state after events 0..i, kept whole every CHECK events so that a
  // seek applies at most CHECK of them.
  var CHECK = 256;
  function initial() {
    var s = { state: [], cls: [], badge: [], drive: [], dcls: [], rx: [] };
    nodes.forEach(function (n) { s.state.push(n.state); s.cls.push(n.class); s.badge.push(""); });
    edges.forEach(function () { s.drive.push("", ""); s.dcls.push("", ""); s.rx.push("", ""); });
    return s;
  }
  function copy(s) {
    return { state: s.state.slice(), cls: s.cls.slice(), badge: s.badge.slice(),
      drive: s.drive.slice(), dcls: s.dcls.slice(), rx: s.rx.slice() };
  }
  function apply(s, e) {
    switch (e.k) {
      case "state": s.state[e.n] = e.v; s.cls[e.n] = e.c || ""; break;
      case "badge": s.badge[e.n] = e.v; break;
      case "drive": s.drive[2 * e.e + e.s] = e.v; s.dcls[2 * e.e + e.s] = e.c || ""; break;
      case "receive": s.rx[2 * e.e + e.s] = e.v; break;
    }
  }
  var checkpoints = [initial()];
  (function () {
    var s = initial();
    for (var i = 0; i < ev.length; i++) {
      apply(s, ev[i]);
      if ((i + 1) % CHECK === 0) checkpoints.push(copy(s));
    }
  })();
  // stateAt is the state after events 0..i (i = -1: before any).
  function stateAt(i) {
    var k = Math.floor((i + 1) / CHECK), s = copy(checkpoints[k]);
    for (var j = k * CHECK; j <= i; j++) apply(s, ev[j]);
    return s;
  }
  // lastAt is the index of the last event at or before t, -1 for none.
  function lastAt(t) {
    var lo = 0, hi = ev.length;
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (ev[mid].t <= t) lo = mid + 1; else hi = mid;
    }
    return lo - 1;
  }

  // Times as the run counts them.
  function fmt(t) {
    var v = t / D.scale, digits = D.scale === 1 ? 0 : Math.round(Math.log10(D.scale));
    var text = v.toFixed(digits) + " " + D.unit;
    if (D.unit === "ns" && Math.abs(t) >= 1000) text += " (" + (t / 1000).toFixed(3) + " \u00b5s)";
    return text;
  }

  // The graph, drawn once; render only changes attributes and text.
  var svg = $("svg"), U = 150, V = 170, W = 84, H = 52, pad = 70;
  var minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  nodes.forEach(function (n) { minX = Math.min(minX, n.x); maxX = Math.max(maxX, n.x); minY = Math.min(minY, n.y); maxY = Math.max(maxY, n.y); });
  if (!nodes.length) { minX = minY = maxX = maxY = 0; }
  function px(n) { return pad + (n.x - minX) * U; }
  function py(n) { return pad + (n.y - minY) * V; }
  var width = 2 * pad + (maxX - minX) * U, height = 2 * pad + (maxY - minY) * V;
  svg.setAttribute("viewBox", "0 0 " + width + " " + height);
  // The graph fits its box; a large bus keeps its text readable and
  // scrolls.
  svg.style.minWidth = (0.6 * width) + "px";
  svg.style.minHeight = (0.6 * height) + "px";
  function el(tag, attrs, parent, text) {
    var e = document.createElementNS(SVG, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    (parent || svg).appendChild(e);
    return e;
  }
  var cables = el("g", {}), drives = [], dlabels = [], ports = [];
  edges.forEach(function (e, i) {
    var a = nodes[e.a], b = nodes[e.b], ax = px(a), ay = py(a), bx = px(b), by = py(b);
    el("line", { class: "cable", x1: ax, y1: ay, x2: bx, y2: by, "data-edge": i }, cables);
    [[ax, ay, bx, by, e.pa], [bx, by, ax, ay, e.pb]].forEach(function (end, s) {
      var dx = end[2] - end[0], dy = end[3] - end[1], len = Math.hypot(dx, dy) || 1, ux = dx / len, uy = dy / len;
      var r = Math.min(len / 2, Math.abs(ux) * W / 2 > Math.abs(uy) * H / 2 ? W / 2 / Math.abs(ux) : H / 2 / Math.abs(uy));
      var x0 = end[0] + ux * (r + 4), y0 = end[1] + uy * (r + 4), x1 = end[0] + ux * (len / 2 - 6), y1 = end[1] + uy * (len / 2 - 6);
      var nx = -uy, ny = ux, off = 7;
      drives.push(el("path", { id: "drive-" + i + "-" + s, class: "drive off",
        d: "M" + (x0 + nx * off) + "," + (y0 + ny * off) + "L" + (x1 + nx * off) + "," + (y1 + ny * off) + "M" + (x1 - ux * 8 + nx * (off + 5)) + "," + (y1 - uy * 8 + ny * (off + 5)) + "L" + (x1 + nx * off) + "," + (y1 + ny * off) + "L" + (x1 - ux * 8 + nx * (off - 5)) + "," + (y1 - uy * 8 + ny * (off - 5)) }, cables));
      var lx = (x0 + x1) / 2 + nx * (off + 9), ly = (y0 + y1) / 2 + ny * (off + 9) + 3;
      dlabels.push(el("text", { class: "drivelabel off", x: lx, y: ly }, cables, ""));
      var port = el("text", { id: "port-" + i + "-" + s, class: "port", x: x0 + ux * 6 - nx * 10, y: y0 + uy * 6 - ny * 10 + 3 }, cables, end[4]);
      ports.push({ text: port, title: el("title", {}, port, "") });
    });
  });
  var msgs = el("g", {});
  var nodeEls = nodes.map(function (n, i) {
    var g = el("g", { id: "node-" + i, class: "node", "data-id": n.id, transform: "translate(" + px(n) + "," + py(n) + ")" });
    el("rect", { x: -W / 2, y: -H / 2, width: W, height: H, rx: 6 }, g);
    el("text", { class: "id", y: -8 }, g, n.id);
    return { g: g, state: el("text", { class: "state", y: 8 }, g, ""), badge: el("text", { class: "badge", y: 21 }, g, "") };
  });

  D.legend.forEach(function (l) {
    var s = document.createElement("span"), i = document.createElement("i");
    i.className = l.class;
    s.appendChild(i);
    s.appendChild(document.createTextNode(l.text));
    $("legend").appendChild(s);
  });

  // The cursor: the events applied (cur, -1 for none) and the instant shown.
  var cur = -1, now = 0, lo = 0, hi = Math.max(D.end, 1), playing = false, last = null;
  var slider = $("slider");

  function render() {
    var s = stateAt(cur);
    nodes.forEach(function (n, i) {
      var e = nodeEls[i];
      e.g.setAttribute("class", "node " + s.cls[i] + (/root/.test(s.badge[i]) ? " root" : ""));
      e.g.setAttribute("data-state", s.state[i]);
      e.state.textContent = s.state[i];
      e.badge.textContent = s.badge[i];
    });
    for (var k = 0; k < drives.length; k++) {
      var v = s.drive[k], on = v !== "" && v !== "IDLE";
      drives[k].setAttribute("class", "drive " + s.dcls[k] + (on ? "" : " off"));
      drives[k].setAttribute("data-value", v);
      dlabels[k].setAttribute("class", "drivelabel " + s.dcls[k] + (on ? "" : " off"));
      dlabels[k].textContent = on ? v : "";
      ports[k].text.setAttribute("data-rx", s.rx[k]);
      ports[k].title.textContent = s.rx[k] ? "receives " + s.rx[k] : "";
    }
    while (msgs.firstChild) msgs.removeChild(msgs.firstChild);
    // Messages on their way, the first 40 labelled.
    var shown = 0;
    for (var j = 0; j <= cur; j++) {
      var m = ev[j];
      if (m.k !== "message" || m.u <= now) continue;
      var e = edges[m.e], a = nodes[m.s ? e.b : e.a], b = nodes[m.s ? e.a : e.b], f = m.u > m.t ? (now - m.t) / (m.u - m.t) : 1;
      var cx = px(a) + (px(b) - px(a)) * f, cy = py(a) + (py(b) - py(a)) * f;
      var c = el("circle", { class: "msg " + (m.c || "message"), r: 6, cx: cx, cy: cy }, msgs);
      el("title", {}, c, m.v);
      if (++shown <= 40) el("text", { class: "msglabel", x: cx + 9, y: cy - 6 }, msgs, m.v);
    }
    var nowEl = $("now");
    nowEl.textContent = "t = " + fmt(now) + (cur >= 0 ? "  \u00b7  event " + (cur + 1) + " of " + ev.length : "  \u00b7  " + ev.length + " events");
    nowEl.setAttribute("data-t", now);
    nowEl.setAttribute("data-event", cur);
    $("text").textContent = cur >= 0 ? ev[cur].x : "Before the first event.";
    $("detail").textContent = cur >= 0 && ev[cur].d ? ev[cur].d : "";
    var list = $("instant");
    while (list.firstChild) list.removeChild(list.firstChild);
    if (cur >= 0) {
      var first = cur, t = ev[cur].t;
      while (first > 0 && ev[first - 1].t === t) first--;
      for (var i = first; i < ev.length && ev[i].t === t && i < first + 200; i++) {
        var li = document.createElement("li");
        li.textContent = ev[i].x;
        if (i === cur) li.className = "current";
        if (i > cur) li.style.color = "#999";
        list.appendChild(li);
      }
    }
    slider.value = now;
  }

  function setHash() { history.replaceState(null, "", "#t=" + now); }
  // home is the start, before the first event.
  function home() {
    cur = -1;
    now = lo;
    render();
    setHash();
  }
  function seek(t) {
    now = Math.max(lo, Math.min(hi, t));
    cur = lastAt(now);
    render();
  }
  function step(d) {
    var i = Math.max(-1, Math.min(ev.length - 1, cur + d));
    if (i === cur) return;
    cur = i;
    now = i >= 0 ? ev[i].t : lo;
    if (now < lo || now > hi) setRange(0, Math.max(D.end, 1));
    render();
    setHash();
  }

  // The axis shows [lo, hi]: the whole run, or a phase clicked.
  function setRange(a, b) {
    lo = a; hi = Math.max(b, a + 1);
    slider.min = lo; slider.max = hi;
    $("range").textContent = "axis " + fmt(lo) + " \u2013 " + fmt(hi);
    drawAxis();
  }
  function drawAxis() {
    var box = $("phases");
    while (box.firstChild) box.removeChild(box.firstChild);
    D.phases.forEach(function (p) {
      if (p.end <= lo || p.start >= hi) return;
      var a = Math.max(p.start, lo), b = Math.min(p.end, hi), d = document.createElement("div");
      d.className = p.class;
      d.style.left = (100 * (a - lo) / (hi - lo)) + "%";
      d.style.width = (100 * (b - a) / (hi - lo)) + "%";
      d.textContent = (p.group ? p.group + " " : "") + p.name;
      d.title = d.textContent + ": " + fmt(p.start) + " \u2013 " + fmt(p.end) + " (click to zoom)";
      d.addEventListener("click", function () { setRange(p.start, p.end); seek(Math.max(now, p.start)); });
      box.appendChild(d);
    });
    var c = $("ticks"), w = c.clientWidth || 800, ctx = c.getContext("2d");
    c.width = w;
    ctx.clearRect(0, 0, w, c.height);
    ctx.fillStyle = "#555";
    var seen = {};
    for (var i = lastAt(lo - 1) + 1; i < ev.length && ev[i].t <= hi; i++) {
      var x = Math.round((ev[i].t - lo) / (hi - lo) * (w - 1));
      if (!seen[x]) { seen[x] = 1; ctx.fillRect(x, 0, 1, c.height); }
    }
  }

  function frame(ts) {
    if (!playing) return;
    if (last !== null) {
      var rate = (hi - lo) / 20000 * parseFloat($("speed").value);
      seek(now + (ts - last) * rate);
      if (now >= hi) { pause(); return; }
    }
    last = ts;
    requestAnimationFrame(frame);
  }
  function play() {
    if (now >= hi) seek(lo);
    playing = true; last = null;
    $("play").textContent = "pause";
    requestAnimationFrame(frame);
  }
  function pause() {
    playing = false;
    $("play").textContent = "play";
    setHash();
  }

  slider.addEventListener("input", function () { seek(parseFloat(slider.value)); });
  slider.addEventListener("change", setHash);
  $("play").addEventListener("click", function () { if (playing) pause(); else play(); });
  $("prev").addEventListener("click", function () { step(-1); });
  $("next").addEventListener("click", function () { step(1); });
  $("first").addEventListener("click", home);
  $("last").addEventListener("click", function () { seek(hi); setHash(); });
  $("whole").addEventListener("click", function () { setRange(0, Math.max(D.end, 1)); render(); });
  document.addEventListener("keydown", function (e) {
    if (e.target.tagName === "SELECT") return;
    switch (e.key) {
      case " ": if (playing) pause(); else play(); break;
      case "ArrowRight": step(1); break;
      case "ArrowLeft": step(-1); break;
      case "Home": home(); break;
      case "End": seek(hi); setHash(); break;
      default: return;
    }
    e.preventDefault();
  });
  window.addEventListener("resize", drawAxis);
  function fromHash() {
    var m = /(?:^#|&)t=(-?\d+(?:\.\d+)?)/.exec(location.hash);
    if (!m) return false;
    setRange(0, Math.max(D.end, 1));
    seek(parseFloat(m[1]));
    return true;
  }
  window.addEventListener("hashchange", fromHash);

  setRange(0, Math.max(D.end, 1));
  if (!fromHash()) home();
  document.documentElement.setAttribute("data-ready", "1");
})();
