/* llkgen viewer: what the page can prove about a board, so that Hint never offers a move the
 * page can prove fatal and a dead board is flagged.
 *
 * Three verdicts, never confused (as in llkgen.verify): "solvable" comes with a witness (a
 * clearing order, replayable by llkgen.game.referee.replay), "dead" only with a complete proof
 * (the lock test, or a search that explored every line within its budget), and "undecided"
 * when the budget ran out first. tests/render/test_viewer_solver.py holds every verdict to the Python
 * verifier on random and generated boards.
 *
 * Exposes window.llkgenSolver: lockTest, search, Search, classifyMoves, adviseMove.
 */
(function () {
  "use strict";

  var R = window.llkgenRules;

  /** Default node budget of one search: a few thousand boards stay well under a second on a
   *  10x16 board (measured in tests/render/test_viewer_solver.py's timing report). */
  var DEFAULT_BUDGET = 3000;

  function copyGrid(g) { return g.map(function (row) { return row.slice(); }); }

  /** Tiles grouped by type: {type: [[r, c], ...]} in row-major order, and all tiles. */
  function groupTiles(g) {
    var byType = {}, tiles = [];
    for (var r = 0; r < g.length; r++) {
      for (var c = 0; c < g[r].length; c++) {
        var v = g[r][c];
        if (v > 0) {
          (byType[v] = byType[v] || []).push([r, c]);
          tiles.push([r, c]);
        }
      }
    }
    return { byType: byType, tiles: tiles };
  }

  /** The lock test (gravity "none" only): the tiles that can never be removed, in row-major
   *  order. A port of the idea of llkgen/verifier/lock.py, simpler and weaker but as sound.
   *
   *  Relaxation: delete any tile that has a legal path (at most two turns, through empty
   *  cells and cells of tiles already deleted) to the cell of another tile of its type,
   *  whether that tile is still there or already deleted; repeat until nothing changes.
   *  Why it is sound: without gravity tiles never move and emptying a cell never blocks a
   *  path. By induction over any real sequence of moves, every cell it has emptied is empty
   *  on the relaxed fixpoint too: the next real move joins a and b through cells empty in
   *  the real board, hence in the relaxed one, so a links to b's cell and b to a's there and
   *  both are deleted. So every tile real play can remove is deleted by the relaxation, and a
   *  tile it keeps can never be removed: the board cannot be cleared. Deleting only empties
   *  cells, so the fixpoint does not depend on the order of deletions.
   *
   *  Returns {applicable, dead, locked}; with gravity the test does not apply (tiles move)
   *  and says nothing: {applicable: false, dead: false, locked: []}. */
  function lockTest(g, rules) {
    if (rules.gravity !== "none") return { applicable: false, dead: false, locked: [] };
    var work = copyGrid(g), groups = groupTiles(g), left = groups.tiles, changed = true;
    while (changed && left.length) {
      changed = false;
      var keep = [];
      for (var i = 0; i < left.length; i++) {
        var p = left[i];
        if (work[p[0]][p[1]] === 0) continue; // deleted as some partner's partner
        var mates = groups.byType[g[p[0]][p[1]]], linked = false;
        for (var j = 0; j < mates.length && !linked; j++) {
          var q = mates[j];
          if ((q[0] !== p[0] || q[1] !== p[1]) && R.linkCells(work, rules.border, p, q)) {
            linked = true;
            // The path joins q's cell to p's too, so q (if still there) goes as well.
            work[q[0]][q[1]] = 0;
          }
        }
        if (linked) { work[p[0]][p[1]] = 0; changed = true; } else keep.push(p);
      }
      left = keep;
    }
    left = left.filter(function (p) { return work[p[0]][p[1]] !== 0; });
    return { applicable: true, dead: left.length > 0, locked: left };
  }

  function countByType(g) {
    var n = {};
    g.forEach(function (row) { row.forEach(function (v) { if (v > 0) n[v] = (n[v] || 0) + 1; }); });
    return n;
  }

  /** The moves to try at a node, best first, or null when the node is dead by the lock test.
   *
   *  Without gravity, a legal pair of a type with only those two tiles left is played alone:
   *  if any clearing order exists, one starts with that pair. (Moving its removal to the
   *  front of the order keeps every other move legal: without gravity removing tiles only
   *  empties cells, and no other tile can pair with these two.) So "dead" after it means
   *  dead before it. Otherwise types with fewer tiles left come first (stable): they have
   *  fewer ways to go wrong. */
  function movesToTry(g, rules, nodeInfo) {
    if (rules.gravity === "none") {
      var lock = lockTest(g, rules);
      if (lock.dead) { nodeInfo.locked = lock.locked; return null; }
    }
    var moves = R.removablePairs(g, rules);
    if (!moves.length) return moves;
    var count = countByType(g);
    var typeOf = function (m) { return g[m.a[0]][m.a[1]]; };
    if (rules.gravity === "none") {
      for (var i = 0; i < moves.length; i++) {
        if (count[typeOf(moves[i])] === 2) return [moves[i]];
      }
    }
    return moves.map(function (m, k) { return [count[typeOf(m)], k, m]; })
      .sort(function (x, y) { return (x[0] - y[0]) || (x[1] - y[1]); })
      .map(function (x) { return x[2]; });
  }

  function memoKey(rules, g) {
    return (rules.border ? "b" : "n") + rules.gravity + ":" + g.join(";");
  }

  /** A depth-first search for a clearing order, resumable in slices so the page stays
   *  responsive. ``opts.budget``: most boards expanded (default DEFAULT_BUDGET);
   *  ``opts.memo``: a Set of boards known dead (under these rules), shared between searches
   *  and added to only with complete proofs.
   *
   *  run(slice) expands at most ``slice`` more boards and returns null when it paused, else
   *  the result, which is one of
   *    {status: "solvable", witness: [[a, b], ...], nodes}  the witness clears the board
   *    {status: "dead", reason: "lock" | "no moves" | "search", locked: [[r, c], ...], nodes}
   *       only when every line was followed to its end (reason "search"), or the lock test
   *       proved the board dead (locked: the tiles it kept), or no move was legal
   *    {status: "undecided", nodes}  the budget ran out first. */
  function Search(grid, rules, opts) {
    opts = opts || {};
    this.rules = { border: rules.border !== false, gravity: rules.gravity || "none" };
    this.budget = opts.budget == null ? DEFAULT_BUDGET : opts.budget;
    this.dead = opts.memo || new Set();
    this.nodes = 0;
    this.result = null;
    this.stack = [];
    var g = copyGrid(grid), tiles = R.tileCount(g);
    if (tiles === 0) { this.result = { status: "solvable", witness: [], nodes: 0 }; return; }
    var k = memoKey(this.rules, g);
    if (this.dead.has(k)) { this.result = { status: "dead", reason: "search", locked: [], nodes: 0 }; return; }
    var info = {}, moves = this.expand(g, info);
    if (moves === null) {
      this.dead.add(k);
      this.result = { status: "dead", reason: "lock", locked: info.locked, nodes: this.nodes };
    } else if (!moves.length) {
      this.dead.add(k);
      this.result = { status: "dead", reason: "no moves", locked: [], nodes: this.nodes };
    } else {
      this.stack.push({ g: g, key: k, moves: moves, i: 0, via: null });
    }
  }

  Search.prototype.expand = function (g, info) {
    this.nodes++;
    return movesToTry(g, this.rules, info);
  };

  Search.prototype.run = function (slice) {
    if (this.result) return this.result;
    var steps = slice == null ? Infinity : slice, stack = this.stack, rules = this.rules;
    while (stack.length) {
      var top = stack[stack.length - 1];
      if (top.i >= top.moves.length) { // every move from here leads to dead boards
        this.dead.add(top.key);
        stack.pop();
        continue;
      }
      if (steps-- <= 0) return null;
      var m = top.moves[top.i++];
      var after = R.play(top.g, rules, m.a, m.b).after;
      if (R.tileCount(after) === 0) {
        var witness = stack.slice(1).map(function (f) { return f.via; });
        witness.push([m.a, m.b]);
        return (this.result = { status: "solvable", witness: witness, nodes: this.nodes });
      }
      var k = memoKey(rules, after);
      if (this.dead.has(k)) continue;
      if (this.nodes >= this.budget) return (this.result = { status: "undecided", nodes: this.nodes });
      var moves = this.expand(after, {});
      if (moves === null || !moves.length) { this.dead.add(k); continue; }
      stack.push({ g: after, key: k, moves: moves, i: 0, via: [m.a, m.b] });
    }
    return (this.result = { status: "dead", reason: "search", locked: [], nodes: this.nodes });
  };

  /** search(grid, rules, opts) = new Search(grid, rules, opts).run() in one go. */
  function search(grid, rules, opts) { return new Search(grid, rules, opts).run(); }

  /** Every legal move now, labelled by what the board after it is:
   *    "safe"      a clearing order follows it (witness: that order, after the move),
   *    "fatal"     the board after it is proven dead (reason says how),
   *    "undecided" the search ran out of budget.
   *  In removablePairs order: [{a, b, path, label, witness, reason, nodes}]. ``opts`` as for
   *  Search; the budget applies to each move's search, and one memo of dead boards is shared
   *  by all of them (a dead board is dead whichever move reached it). */
  function classifyMoves(grid, rules, opts) {
    opts = opts || {};
    var memo = opts.memo || new Set();
    return R.removablePairs(grid, rules).map(function (m) { return classifyMove(grid, rules, m, opts.budget, memo); });
  }

  function classifyMove(grid, rules, m, budget, memo) {
    var after = R.play(grid, rules, m.a, m.b).after;
    var res = search(after, rules, { budget: budget, memo: memo });
    var label = res.status === "solvable" ? "safe" : res.status === "dead" ? "fatal" : "undecided";
    var reason = label === "safe" ? "a clearing order follows" :
      label === "undecided" ? "search stopped after " + res.nodes + " boards" :
      res.reason === "lock" ? res.locked.length + " tiles can never be removed afterwards" :
      res.reason === "no moves" ? "no legal move afterwards" : "every line after it was searched";
    return {
      a: m.a, b: m.b, path: m.path, label: label,
      witness: label === "safe" ? res.witness : [], reason: reason, nodes: res.nodes
    };
  }

  /** The move Hint should offer on ``grid``, never one the page can prove fatal:
   *    {status: "move", move: [a, b], label: "safe", witness, reason}  a clearing order
   *       follows the move (witness: that order, after the move);
   *    {status: "move", move: [a, b], label: "undecided", reason}  no move could be proven
   *       safe, and this one could not be proven fatal either;
   *    {status: "dead", reason, locked}  no clearing order exists: every move is fatal (or
   *       there is none, or the lock test proves it);
   *    {status: "undecided", reason}  never returned while a legal move exists that is not
   *       proven fatal (kept for symmetry with llkgen.analysis.advice's Hint);
   *    {status: "cleared"}  no tile left.
   *  First one search from the board itself (``opts.budget``; or ``opts.result``, that
   *  search's result when the page already ran it): its witness's first move is safe. When
   *  that search cannot decide, moves are labelled in turn (``opts.moveBudget`` boards each)
   *  and the first safe move, else the first undecided one, is offered. */
  function adviseMove(grid, rules, opts) {
    opts = opts || {};
    var memo = opts.memo || new Set();
    if (R.tileCount(grid) === 0) return { status: "cleared", reason: "no tile left" };
    var res = opts.result || search(grid, rules, { budget: opts.budget, memo: memo });
    if (res.status === "solvable") {
      return { status: "move", move: res.witness[0], label: "safe", witness: res.witness.slice(1),
               reason: "a clearing order follows" };
    }
    if (res.status === "dead") return { status: "dead", reason: res.reason, locked: res.locked };
    // Moves are labelled one at a time, stopping at the first safe one.
    var moves = R.removablePairs(grid, rules), open = null;
    for (var i = 0; i < moves.length; i++) {
      var x = classifyMove(grid, rules, moves[i], opts.moveBudget, memo);
      if (x.label === "safe") {
        return { status: "move", move: [x.a, x.b], label: "safe", witness: x.witness, reason: x.reason };
      }
      if (x.label === "undecided" && !open) open = x;
    }
    if (open) {
      return { status: "move", move: [open.a, open.b], label: "undecided", witness: [],
               reason: "no move could be proven safe or fatal within the search budget" };
    }
    // Every legal move is proven fatal (and there is at least one: the search was not
    // stopped by "no moves"), so the board itself is dead.
    return { status: "dead", reason: "every move fatal", locked: [] };
  }

  window.llkgenSolver = {
    DEFAULT_BUDGET: DEFAULT_BUDGET, lockTest: lockTest, Search: Search, search: search,
    classifyMoves: classifyMoves, adviseMove: adviseMove
  };
})();
