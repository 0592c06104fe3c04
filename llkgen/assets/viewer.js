/* llkgen pack viewer: plays the levels of one pack in the browser.
 *
 * The page is self-contained: the pack and palette arrive as JSON in <script id="llk-data">,
 * and this file implements the game rules itself (path rule and gravity). The rules mirror
 * llkgen.path.find_path / removable_pairs and llkgen.gravity.apply_gravity exactly, including
 * which path is drawn (fewest turns, then shortest, then smallest corner list starting at the
 * first tile); tests/test_viewer_browser.py checks this against the Python referee after every
 * click, so change both or neither.
 *
 * window.llk exposes state() and the actions for tests and for the curious.
 */
(function () {
  "use strict";

  var WALL = -1;
  var DATA = JSON.parse(document.getElementById("llk-data").textContent);
  var LEVELS = DATA.pack.levels || [];
  var PALETTE = DATA.palette || {};
  var ARROWS = { none: "", down: " \u2193", up: " \u2191", left: " \u2190", right: " \u2192" };

  // ---------------------------------------------------------------------------------------
  // Rules. Grids are arrays of rows; cells are [row, col]; ring cells use -1 / rows / cols.
  // ---------------------------------------------------------------------------------------

  /** Value at (r, c): the ring outside the board is empty when border is on, else a wall;
   *  anything further out is a wall. */
  function at(g, border, r, c) {
    var rows = g.length, cols = g[0].length;
    if (r >= 0 && r < rows && c >= 0 && c < cols) return g[r][c];
    if (border && r >= -1 && r <= rows && c >= -1 && c <= cols) return 0;
    return WALL;
  }

  /** Every cell strictly between two cells on one row or column is empty. */
  function clearBetween(g, border, r1, c1, r2, c2) {
    var dr = Math.sign(r2 - r1), dc = Math.sign(c2 - c1);
    var r = r1 + dr, c = c1 + dc;
    while (r !== r2 || c !== c2) {
      if (at(g, border, r, c) !== 0) return false;
      r += dr; c += dc;
    }
    return true;
  }

  function lexLess(p, q) {
    for (var i = 0; i < p.length; i++) {
      if (p[i][0] !== q[i][0]) return p[i][0] < q[i][0];
      if (p[i][1] !== q[i][1]) return p[i][1] < q[i][1];
    }
    return false;
  }

  /** How far (r, c) sees through empty cells: [left col, right col, top row, bottom row],
   *  its own position included. */
  function reach(g, border, r, c) {
    var lo = c - 1, hi = c + 1, up = r - 1, down = r + 1;
    while (at(g, border, r, lo) === 0) lo--;
    while (at(g, border, r, hi) === 0) hi++;
    while (at(g, border, up, c) === 0) up--;
    while (at(g, border, down, c) === 0) down++;
    return [lo + 1, hi - 1, up + 1, down - 1];
  }

  /** Corner points (both ends included) of the path the referee draws between two cells,
   *  ignoring their types, or null. Exhaustive over corner positions: a path with at most
   *  two turns is a -> p -> q -> b with p, q on a shared column (H-V-H) or row (V-H-V), and
   *  p, q must lie within what a and b see along their own row or column. */
  function linkCells(g, border, a, b) {
    var ra = a[0], ca = a[1], rb = b[0], cb = b[1];
    if (ra === rb && ca === cb) return null;
    if ((ra === rb || ca === cb) && clearBetween(g, border, ra, ca, rb, cb)) return [a, b];
    var A = reach(g, border, ra, ca), B = reach(g, border, rb, cb);
    if (ra !== rb && ca !== cb) {
      // One turn: both corners give the same length, so the smaller corner wins; (ra, cb)
      // is smaller exactly when ra < rb.
      var c1 = A[0] <= cb && cb <= A[1] && B[2] <= ra && ra <= B[3];
      var c2 = A[2] <= rb && rb <= A[3] && B[0] <= ca && ca <= B[1];
      if (c1 && (!c2 || ra < rb)) return [a, [ra, cb], b];
      if (c2) return [a, [rb, ca], b];
    }
    var best = null, bestLen = Infinity, len, cand, i;
    if (ra !== rb) { // horizontal-vertical-horizontal through column i
      for (i = Math.max(A[0], B[0]); i <= Math.min(A[1], B[1]); i++) {
        if (i === ca || i === cb || !clearBetween(g, border, ra, i, rb, i)) continue;
        len = Math.abs(ca - i) + Math.abs(ra - rb) + Math.abs(i - cb);
        cand = [a, [ra, i], [rb, i], b];
        if (len < bestLen || (len === bestLen && lexLess(cand, best))) { best = cand; bestLen = len; }
      }
    }
    if (ca !== cb) { // vertical-horizontal-vertical through row i
      for (i = Math.max(A[2], B[2]); i <= Math.min(A[3], B[3]); i++) {
        if (i === ra || i === rb || !clearBetween(g, border, i, ca, i, cb)) continue;
        len = Math.abs(ra - i) + Math.abs(ca - cb) + Math.abs(i - rb);
        cand = [a, [i, ca], [i, cb], b];
        if (len < bestLen || (len === bestLen && lexLess(cand, best))) { best = cand; bestLen = len; }
      }
    }
    return best;
  }

  function inBoard(g, p) {
    return p[0] >= 0 && p[0] < g.length && p[1] >= 0 && p[1] < g[0].length;
  }

  /** Path between two tiles of the same type, or null (mirrors llkgen.path.find_path). */
  function findPath(g, rules, a, b) {
    if (!inBoard(g, a) || !inBoard(g, b)) return null;
    var va = g[a[0]][a[1]], vb = g[b[0]][b[1]];
    if (va <= 0 || va !== vb) return null;
    return linkCells(g, rules.border, a, b);
  }

  /** Every pair removable now, sorted by (a, b) row-major with a before b. */
  function removablePairs(g, rules) {
    var byType = {}, out = [];
    for (var r = 0; r < g.length; r++) {
      for (var c = 0; c < g[r].length; c++) {
        var v = g[r][c];
        if (v > 0) (byType[v] = byType[v] || []).push([r, c]);
      }
    }
    Object.keys(byType).forEach(function (k) {
      var cells = byType[k];
      for (var i = 0; i < cells.length; i++) {
        for (var j = i + 1; j < cells.length; j++) {
          var path = linkCells(g, rules.border, cells[i], cells[j]);
          if (path) out.push({ a: cells[i], b: cells[j], path: path });
        }
      }
    });
    out.sort(function (x, y) {
      return (x.a[0] - y.a[0]) || (x.a[1] - y.a[1]) || (x.b[0] - y.b[0]) || (x.b[1] - y.b[1]);
    });
    return out;
  }

  /** Tiles slide towards `gravity`; walls split each row/column into runs that compact on
   *  their own, keeping order (mirrors llkgen.gravity.apply_gravity). Returns a new grid. */
  function applyGravity(g, gravity) {
    var out = g.map(function (row) { return row.slice(); });
    if (gravity === "none") return out;
    var rows = g.length, cols = g[0].length, lines = [], i, k;
    if (gravity === "down" || gravity === "up") {
      for (var c = 0; c < cols; c++) {
        var col = [];
        for (i = 0; i < rows; i++) col.push([i, c]);
        lines.push(gravity === "down" ? col.reverse() : col);
      }
    } else {
      for (var r = 0; r < rows; r++) {
        var row = [];
        for (i = 0; i < cols; i++) row.push([r, i]);
        lines.push(gravity === "right" ? row.reverse() : row);
      }
    }
    lines.forEach(function (line) {
      var dest = 0; // next free slot of the current run, counted from the gravity side
      for (k = 0; k < line.length; k++) {
        var p = line[k], v = out[p[0]][p[1]];
        if (v === WALL) {
          dest = k + 1;
        } else if (v > 0) {
          if (k !== dest) {
            var q = line[dest];
            out[q[0]][q[1]] = v;
            out[p[0]][p[1]] = 0;
          }
          dest++;
        }
      }
    });
    return out;
  }

  /** {path} when the pair may be removed now, else {reason} in the player's words. */
  function checkMove(g, rules, a, b) {
    if (!inBoard(g, a) || !inBoard(g, b)) return { reason: "outside the board" };
    if (a[0] === b[0] && a[1] === b[1]) return { reason: "same tile" };
    var va = g[a[0]][a[1]], vb = g[b[0]][b[1]];
    if (va <= 0 || vb <= 0) return { reason: "not a tile" };
    if (va !== vb) return { reason: "different types" };
    var path = linkCells(g, rules.border, a, b);
    if (!path) return { reason: "no path with at most two turns" };
    return { path: path };
  }

  function play(g, rules, a, b) {
    var mid = g.map(function (row) { return row.slice(); });
    mid[a[0]][a[1]] = 0;
    mid[b[0]][b[1]] = 0;
    return { mid: mid, after: applyGravity(mid, rules.gravity) };
  }

  function tileCount(g) {
    var n = 0;
    g.forEach(function (row) { row.forEach(function (v) { if (v > 0) n++; }); });
    return n;
  }

  function key(g) { return JSON.stringify(g); }

  // ---------------------------------------------------------------------------------------
  // Formatting shared with the SVG header (llkgen.render.svg.format_metrics).
  // ---------------------------------------------------------------------------------------
  function isNum(v) { return typeof v === "number" && isFinite(v); }

  function pct(x) {
    return (x > 0 && x < 0.01) ? (x * 100).toFixed(1) + "%" : Math.round(x * 100) + "%";
  }

  function fmtInt(v) {
    return String(Math.trunc(v)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  }

  function metricsLine(m) {
    m = m || {};
    var dash = "\u2013";
    return [
      "initial moves " + (isNum(m.initial_moves) ? fmtInt(m.initial_moves) : dash),
      "random clear " + (isNum(m.random_clear_rate) ? pct(m.random_clear_rate) : dash),
      "verify nodes " + (isNum(m.verify_nodes) ? fmtInt(m.verify_nodes) : dash)
    ].join(" \u00b7 ");
  }

  function rulesOf(lv) {
    var r = lv.rules || {};
    return { border: r.border !== false, gravity: r.gravity || "none" };
  }

  function typeCount(g) {
    var seen = {};
    g.forEach(function (row) { row.forEach(function (v) { if (v > 0) seen[v] = 1; }); });
    return Object.keys(seen).length;
  }

  function rulesLine(lv) {
    var rules = rulesOf(lv);
    return lv.rows + "\u00d7" + lv.cols + " \u00b7 " + tileCount(lv.grid) + " tiles \u00b7 " +
      typeCount(lv.grid) + " types \u00b7 border " + (rules.border ? "on" : "off") +
      " \u00b7 gravity " + rules.gravity + ARROWS[rules.gravity];
  }

  function cellName(p) { return "(" + p[0] + "," + p[1] + ")"; }

  // ---------------------------------------------------------------------------------------
  // Game state and actions.
  // ---------------------------------------------------------------------------------------
  var $ = function (id) { return document.getElementById(id); };
  var animMs = 320;
  var S = null;         // state of the current level
  var timers = [];      // pending animation / autoplay callbacks
  var pendingView = null;

  function solutionOf(lv) {
    if (!Array.isArray(lv.solution)) return null;
    return lv.solution.map(function (m) { return [[m[0][0], m[0][1]], [m[1][0], m[1][1]]]; });
  }

  /** Replays the stored solution with the page's own rules; the boards before each step
   *  let Hint recognise a player who is still on the certified line. */
  function solutionStates(grid, rules, sol) {
    if (!sol) return { states: null, error: null };
    var states = [key(grid)], g = grid;
    for (var i = 0; i < sol.length; i++) {
      var chk = checkMove(g, rules, sol[i][0], sol[i][1]);
      if (!chk.path) return { states: states, error: "stored solution step " + (i + 1) + " refused: " + chk.reason };
      g = play(g, rules, sol[i][0], sol[i][1]).after;
      states.push(key(g));
    }
    if (tileCount(g) !== 0) return { states: states, error: "stored solution does not clear the board" };
    return { states: states, error: null };
  }

  function select(index) {
    stopAll();
    var lv = LEVELS[index];
    if (!lv) return;
    var rules = rulesOf(lv), sol = solutionOf(lv);
    var ss = solutionStates(lv.grid, rules, sol);
    S = {
      index: index, lv: lv, rules: rules, rows: lv.rows, cols: lv.cols,
      initial: lv.grid.map(function (r) { return r.slice(); }),
      grid: lv.grid.map(function (r) { return r.slice(); }),
      history: [], selected: null, lastPath: null, hint: null, message: "",
      solution: sol, solStates: ss.states, solError: ss.error, playing: false
    };
    var rows = document.querySelectorAll("#level-list tbody tr");
    for (var i = 0; i < rows.length; i++) {
      var on = Number(rows[i].getAttribute("data-index")) === index;
      rows[i].classList.toggle("current", on);
      rows[i].setAttribute("aria-selected", on ? "true" : "false");
    }
    $("level-title").textContent = lv.id || "level " + (index + 1);
    $("level-rules").textContent = rulesLine(lv);
    $("level-metrics").textContent = metricsLine(lv.metrics);
    var cert = lv.certificate;
    $("level-cert").textContent = cert && cert.verdict ?
      "certificate: " + cert.verdict + (cert.method ? " (" + cert.method + ")" : "") : "";
    $("game").setAttribute("data-level", String(index));
    var ring = rules.border ? 2 : 0;
    var cell = Math.floor(Math.min(560 / (lv.cols + ring), 440 / (lv.rows + ring)));
    cell = Math.max(22, Math.min(48, cell));
    $("board-wrap").style.setProperty("--cell", cell + "px");
    setMessage(S.solError ? "Warning: " + S.solError : "", S.solError ? "error" : "");
    render();
  }

  function setMessage(text, kind) {
    if (!S) return;
    S.message = text;
    var el = $("message");
    el.textContent = text;
    el.className = kind || "";
  }

  function stopAll() {
    timers.forEach(clearTimeout);
    timers = [];
    pendingView = null;
    if (S) S.playing = false;
    $("board").setAttribute("data-busy", "0");
    $("btn-play").textContent = "Play solution";
  }

  /** Finish any running animation at once (the logical state is already up to date). */
  function flush() {
    if (!pendingView) return;
    timers.forEach(clearTimeout);
    timers = [];
    pendingView = null;
    $("board").setAttribute("data-busy", "0");
    render();
    if (S.playing) schedulePlay();
  }

  function later(ms, fn) { timers.push(setTimeout(fn, ms)); }

  /** Remove a legal pair: update the state now, then show the path on the old board for a
   *  moment, then (with gravity) the board with the pair gone, then the settled board. */
  function applyMove(a, b, path) {
    var res = play(S.grid, S.rules, a, b);
    var before = S.grid;
    S.history.push({ a: a, b: b, path: path, before: before });
    S.grid = res.after;
    S.selected = null;
    S.hint = null;
    S.lastPath = path;
    if (animMs <= 0) { render(); return; }
    pendingView = true;
    $("board").setAttribute("data-busy", "1");
    render({ grid: before, path: path, pair: [a, b] });
    later(animMs, function () {
      if (S.rules.gravity !== "none") {
        render({ grid: res.mid });
        later(Math.round(animMs / 2), done);
      } else {
        done();
      }
    });
    function done() {
      pendingView = null;
      timers = [];
      $("board").setAttribute("data-busy", "0");
      render();
      if (S.playing) schedulePlay();
    }
  }

  function same(p, q) { return p && q && p[0] === q[0] && p[1] === q[1]; }

  function click(r, c) {
    if (!S) return;
    if (S.playing) { setMessage("Playing the solution \u2013 press Stop to take over."); return; }
    if (pendingView) {
      flush();
      // With gravity the board just moved under the pointer: the click aimed at a tile
      // that may no longer be there, so it is dropped rather than misapplied.
      if (S.rules.gravity !== "none") return;
    }
    if (!inBoard(S.grid, [r, c])) return;
    var v = S.grid[r][c];
    if (v <= 0) { S.selected = null; setMessage(v === WALL ? "That is a wall." : "Pick a tile."); render(); return; }
    var p = [r, c];
    if (!S.selected) { S.selected = p; S.hint = null; setMessage(""); render(); return; }
    if (same(S.selected, p)) { S.selected = null; setMessage(""); render(); return; }
    var chk = checkMove(S.grid, S.rules, S.selected, p);
    if (!chk.path) {
      setMessage("Refused: " + chk.reason + ".", "refused");
      S.selected = p;
      render();
      return;
    }
    setMessage("");
    applyMove(S.selected, p, chk.path);
  }

  function undo() {
    if (!S) return;
    stopAll();
    var last = S.history.pop();
    if (last) { S.grid = last.before; setMessage("Undid " + cellName(last.a) + "\u2013" + cellName(last.b) + "."); }
    else setMessage("Nothing to undo.");
    S.selected = null; S.hint = null; S.lastPath = null;
    render();
  }

  function restart() {
    if (!S) return;
    stopAll();
    S.grid = S.initial.map(function (r) { return r.slice(); });
    S.history = []; S.selected = null; S.hint = null; S.lastPath = null;
    setMessage(S.solError ? "Warning: " + S.solError : "", S.solError ? "error" : "");
    render();
  }

  /** The step of the certified solution that follows the current board, or -1 when the
   *  player's board is not one the solution passes through after as many moves. */
  function solutionStep() {
    if (!S.solStates || S.solError) return -1;
    var k = S.history.length;
    if (k >= S.solution.length || S.solStates[k] !== key(S.grid)) return -1;
    return k;
  }

  function hint() {
    if (!S) return;
    flush();
    if (S.playing) return;
    var k = solutionStep(), m;
    if (k >= 0) {
      m = S.solution[k];
      S.hint = m;
      setMessage("Hint: " + cellName(m[0]) + "\u2013" + cellName(m[1]) + " is step " + (k + 1) +
        " of " + S.solution.length + " of the certified solution.", "hint");
    } else {
      var moves = removablePairs(S.grid, S.rules);
      if (!moves.length) { S.hint = null; setMessage(tileCount(S.grid) ? "No legal move: Undo or Restart." : "Cleared!"); render(); return; }
      m = [moves[0].a, moves[0].b];
      S.hint = m;
      setMessage("Hint: " + cellName(m[0]) + "\u2013" + cellName(m[1]) + " is a legal move, but " +
        (!S.solution ? "this level has no stored solution, so it" :
          S.solError ? "the stored solution was rejected, so it" :
          "you have left the certified solution, so it") +
        " may not keep the board solvable.", "hint warn");
    }
    render();
  }

  function schedulePlay() {
    later(Math.max(120, animMs), stepPlay);
  }

  function stepPlay() {
    if (!S.playing) return;
    var k = solutionStep();
    if (k < 0) { stopAll(); render(); return; }
    var m = S.solution[k];
    var chk = checkMove(S.grid, S.rules, m[0], m[1]);
    if (!chk.path) { stopAll(); setMessage("Solution step " + (k + 1) + " refused: " + chk.reason, "error"); render(); return; }
    setMessage("Solution step " + (k + 1) + " of " + S.solution.length + ": " + cellName(m[0]) + "\u2013" + cellName(m[1]), "hint");
    applyMove(m[0], m[1], chk.path);
    if (!pendingView) {
      if (k + 1 >= S.solution.length) { S.playing = false; $("btn-play").textContent = "Play solution"; render(); }
      else schedulePlay();
    }
  }

  /** Step through the witness: from the current board when it is on the solution line,
   *  otherwise from the start. The Stop button (same element) hands control back. */
  function playSolution() {
    if (!S) return;
    if (S.playing) { stopAll(); setMessage("Stopped."); render(); return; }
    if (!S.solution) { setMessage("This level has no stored solution."); return; }
    if (S.solError) { setMessage("Warning: " + S.solError, "error"); return; }
    flush();
    if (solutionStep() < 0) restart();
    S.selected = null; S.hint = null;
    S.playing = true;
    $("btn-play").textContent = "Stop";
    render();
    if (animMs <= 0) {
      while (S.playing && solutionStep() >= 0) stepPlay();
      stopAll();
      render();
    } else {
      later(60, stepPlay);
    }
  }

  // ---------------------------------------------------------------------------------------
  // Drawing.
  // ---------------------------------------------------------------------------------------
  var statusCache = { key: null, value: null };

  function statusOf(g) {
    var k = S.index + ":" + key(g);
    if (statusCache.key === k) return statusCache.value;
    var tiles = tileCount(g);
    var moves = removablePairs(g, S.rules).length;
    statusCache = { key: k, value: null };
    statusCache.value = { tiles: tiles, moves: moves, state: tiles === 0 ? "cleared" : moves === 0 ? "stuck" : "playing" };
    return statusCache.value;
  }

  function render(view) {
    view = view || {};
    var g = view.grid || S.grid;
    var ring = S.rules.border ? 1 : 0;
    var rows = S.rows, cols = S.cols;
    var board = $("board");
    board.style.gridTemplateColumns = "repeat(" + (cols + 2 * ring) + ", var(--cell))";
    var frag = document.createDocumentFragment();
    var pair = view.pair || [];
    for (var r = -ring; r < rows + ring; r++) {
      for (var c = -ring; c < cols + ring; c++) {
        var d = document.createElement("div");
        d.setAttribute("data-r", r);
        d.setAttribute("data-c", c);
        if (r < 0 || c < 0 || r >= rows || c >= cols) {
          d.className = "cell ring";
        } else {
          var v = g[r][c];
          d.setAttribute("data-v", v);
          if (v === WALL) d.className = "cell wall";
          else if (v === 0) d.className = "cell empty";
          else {
            var pal = PALETTE[v] || { fill: "#999999", ink: "#111111", label: String(v) };
            d.className = "cell tile";
            d.style.background = pal.fill;
            d.style.color = pal.ink;
            d.textContent = pal.label;
            d.setAttribute("role", "button");
            d.setAttribute("aria-label", "tile type " + v + " at row " + r + " column " + c);
            if (same(S.selected, [r, c])) d.classList.add("sel");
            if (S.hint && (same(S.hint[0], [r, c]) || same(S.hint[1], [r, c]))) d.classList.add("hint");
            if (same(pair[0], [r, c]) || same(pair[1], [r, c])) d.classList.add("vanish");
          }
        }
        frag.appendChild(d);
      }
    }
    board.replaceChildren(frag);
    drawPath(view.path, ring);

    var st = statusOf(S.grid);
    var status = $("status");
    status.setAttribute("data-state", st.state);
    status.setAttribute("data-tiles", st.tiles);
    status.setAttribute("data-moves", st.moves);
    var text = "Tiles left: " + st.tiles + " \u00b7 Moves available now: " + st.moves +
      " \u00b7 Moves made: " + S.history.length;
    $("status-counts").textContent = text;
    var banner = $("status-banner");
    banner.textContent = st.state === "cleared" ? "Cleared!" :
      st.state === "stuck" ? "Stuck \u2013 no legal move left. Undo or Restart." : "";
    banner.className = st.state;
    $("btn-undo").disabled = S.history.length === 0;
    var onSol = solutionStep() >= 0;
    var sol = $("sol-indicator");
    sol.textContent = !S.solution ? "no stored solution" :
      S.solError ? "stored solution rejected" :
      onSol ? "on the certified solution (step " + (S.history.length + 1) + "/" + S.solution.length + ")" :
      st.state === "cleared" ? "" : "off the certified solution";
    sol.className = onSol ? "on" : "off";
  }

  function drawPath(path, ring) {
    var svg = $("overlay");
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    if (!path) return;
    var cell = $("board").firstChild.getBoundingClientRect().width || 36;
    var xy = path.map(function (p) { return [(p[1] + ring + 0.5) * cell, (p[0] + ring + 0.5) * cell]; });
    // Start and end at the tiles' edges rather than their centres, so the labels stay visible.
    [[0, 1], [xy.length - 1, xy.length - 2]].forEach(function (ij) {
      var p = xy[ij[0]], q = xy[ij[1]], d = 0.34 * cell;
      p[0] += Math.sign(q[0] - p[0]) * d;
      p[1] += Math.sign(q[1] - p[1]) * d;
    });
    var pts = xy.map(function (p) { return p[0].toFixed(1) + "," + p[1].toFixed(1); }).join(" ");
    var NS = "http://www.w3.org/2000/svg";
    [["casing", 9], ["line", 4]].forEach(function (spec) {
      var pl = document.createElementNS(NS, "polyline");
      pl.setAttribute("points", pts);
      pl.setAttribute("class", spec[0]);
      pl.setAttribute("stroke-width", String(spec[1]));
      svg.appendChild(pl);
    });
    svg.setAttribute("data-path", JSON.stringify(path));
  }

  // ---------------------------------------------------------------------------------------
  // Level list and wiring.
  // ---------------------------------------------------------------------------------------
  function buildList() {
    var tbody = $("level-list").tBodies[0];
    LEVELS.forEach(function (lv, i) {
      var m = lv.metrics || {}, rules = rulesOf(lv), dash = "\u2013";
      var tr = document.createElement("tr");
      tr.setAttribute("data-index", i);
      tr.setAttribute("tabindex", "0");
      tr.setAttribute("role", "button");
      var cells = [
        String(i + 1), lv.id || "level " + (i + 1), lv.rows + "\u00d7" + lv.cols,
        (rules.gravity === "none" ? "\u00b7" : ARROWS[rules.gravity].trim()) + (rules.border ? "" : " \u25a1"),
        String(tileCount(lv.grid)),
        isNum(m.initial_moves) ? fmtInt(m.initial_moves) : dash,
        isNum(m.random_clear_rate) ? pct(m.random_clear_rate) : dash,
        isNum(m.verify_nodes) ? fmtInt(m.verify_nodes) : dash
      ];
      cells.forEach(function (t, k) {
        var td = document.createElement("td");
        td.textContent = t;
        if (k === 1) td.title = t;
        if (k === 3) td.title = "gravity " + rules.gravity + ", border " + (rules.border ? "on" : "off");
        tr.appendChild(td);
      });
      tr.addEventListener("click", function () { select(i); });
      tr.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); select(i); }
      });
      tbody.appendChild(tr);
    });
  }

  function init() {
    buildList();
    $("board").addEventListener("click", function (e) {
      var t = e.target.closest("[data-r]");
      if (t) click(Number(t.getAttribute("data-r")), Number(t.getAttribute("data-c")));
    });
    $("btn-undo").addEventListener("click", undo);
    $("btn-restart").addEventListener("click", restart);
    $("btn-hint").addEventListener("click", hint);
    $("btn-play").addEventListener("click", playSolution);
    document.addEventListener("keydown", function (e) {
      if (e.target && e.target.tagName === "TR") return;
      if (e.key === "u" || (e.key === "z" && (e.ctrlKey || e.metaKey))) undo();
      else if (e.key === "h") hint();
    });
    var m = /level=(\d+)/.exec(location.hash);
    var start = m ? Math.min(LEVELS.length - 1, Math.max(0, Number(m[1]) - 1)) : 0;
    if (LEVELS.length) select(start);
    else $("level-title").textContent = "This pack has no levels.";
    document.documentElement.setAttribute("data-ready", "1");
  }

  window.llk = {
    state: function () {
      if (!S) return null;
      var st = statusOf(S.grid);
      return {
        index: S.index, id: S.lv.id || null, rows: S.rows, cols: S.cols, rules: S.rules,
        grid: S.grid.map(function (r) { return r.slice(); }),
        tiles: st.tiles, moves: st.moves, status: st.state,
        history: S.history.map(function (h) { return [h.a, h.b]; }),
        lastPath: S.lastPath, selected: S.selected, message: S.message,
        busy: !!pendingView, playing: S.playing, onSolution: solutionStep() >= 0,
        solutionError: S.solError
      };
    },
    levels: function () { return LEVELS.length; },
    select: select, click: click, undo: undo, restart: restart, hint: hint,
    playSolution: playSolution, flush: flush,
    setAnimation: function (ms) { animMs = Math.max(0, Number(ms) || 0); },
    rules: { findPath: findPath, removablePairs: removablePairs, applyGravity: applyGravity, checkMove: checkMove }
  };

  init();
})();
