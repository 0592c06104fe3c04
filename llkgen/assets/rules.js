/* llkgen viewer: the game rules (path rule and gravity), shared by the page and its solver.
 *
 * They mirror llkgen.game.path.find_path / removable_pairs and llkgen.game.gravity.apply_gravity exactly,
 * including which path is drawn (fewest turns, then shortest, then smallest corner list
 * starting at the first tile); tests/render/test_viewer_browser.py checks this against the Python
 * referee after every click and on random boards, so change both or neither.
 *
 * Exposes window.llkgenRules. Everything here is a pure function of its arguments.
 */
(function () {
  "use strict";

  var WALL = -1;
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

  /** Path between two tiles of the same type, or null (mirrors llkgen.game.path.find_path). */
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
   *  their own, keeping order (mirrors llkgen.game.gravity.apply_gravity). Returns a new grid. */
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

  window.llkgenRules = {
    WALL: WALL, at: at, linkCells: linkCells, inBoard: inBoard, findPath: findPath,
    removablePairs: removablePairs, applyGravity: applyGravity, checkMove: checkMove,
    play: play, tileCount: tileCount, key: key
  };
})();
