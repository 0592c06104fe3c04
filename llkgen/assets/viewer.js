/* llkgen pack viewer: lists the levels of one pack and plays them in the browser.
 *
 * The page is self-contained: the pack, the palette and the difficulty plot arrive inline
 * (<script id="llk-data">, <svg id="curve">). The game rules are in rules.js and what the page
 * can prove about a board (lock test, bounded search, move labels) in solver.js; this file is
 * the level list, the board and the controls, the level's details (difficulty, tier, the model
 * players' clear rates) and its address (#level=<id>).
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

  // The rules live in rules.js (window.llkgenRules), shared with the solver in solver.js.
  var R = window.llkgenRules;
  var inBoard = R.inBoard, findPath = R.findPath, removablePairs = R.removablePairs,
    applyGravity = R.applyGravity, checkMove = R.checkMove, play = R.play,
    tileCount = R.tileCount, key = R.key;
  var SOLVER = window.llkgenSolver;
  /** Boards one analysis of the current board may expand, run a slice at a time between
   *  frames; and boards per move when Hint has to label each move. */
  var SEARCH_BUDGET = 3000, MOVE_BUDGET = 400, SLICE = 120;

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
  // The level's details: its difficulty and tier above the controls; below the board, the
  // other metrics and the model players' clear rates (the level's top-level "players":
  // {tier, clear_rates: {model: {rate, se, runs}}}).
  // ---------------------------------------------------------------------------------------
  /** The tiers, weakest player first: the model players (llkgen.analysis.ladder), then
   *  "hint", the tier of a level none of them clears reliably. */
  var TIERS = Array.isArray(DATA.tiers) ? DATA.tiers : [];
  var HINT = "hint";
  var MODELS = TIERS.filter(function (t) { return t !== HINT; });
  var TIER_NOTE = "tier: the weakest model player (" + MODELS.join(", ") + ") that clears the level " +
    "reliably; " + HINT + ": none does";
  /** The models by measured strength, weak to strong (llkgen.analysis.ladder.STRENGTH), and the
   *  clear rate that counts as reliable: the order the clear rates are shown in. */
  var STRENGTH = Array.isArray(DATA.strength) ? DATA.strength : MODELS;
  var RELIABLY = isNum(DATA.reliably) ? DATA.reliably : 0.8;
  var DOT = " \u00b7 ", PM = " \u00b1 ";
  /** Metrics shown elsewhere: in #level-metrics (metricsLine) and #level-difficulty. */
  var SHOWN = ["initial_moves", "random_clear_rate", "verify_nodes", "difficulty", "difficulty_se"];

  function obj(v) { return v && typeof v === "object" && !Array.isArray(v) ? v : {}; }
  function own(o, k) { return Object.prototype.hasOwnProperty.call(o, k); }
  function clamp01(x) { return Math.max(0, Math.min(1, x)); }
  function fixed(d) { return function (v) { return v.toFixed(d); }; }
  function plain(v) {
    return Number.isInteger(v) || Math.abs(v) >= 1000 ? fmtInt(Math.round(v)) : String(Number(v.toPrecision(3)));
  }
  /** The other metrics with a name and a format, in this order; any further number follows
   *  under its key. */
  var KNOWN = [["pairs", "pairs", fmtInt], ["fatal_share", "fatal share", pct],
    ["trap_steps", "trap steps", fixed(1)], ["choices", "choices", fixed(1)],
    ["link_turns", "link turns", fixed(2)], ["unknown_share", "unknown share", pct]];

  function tierOf(lv) { var t = obj(lv.players).tier; return typeof t === "string" && t ? t : null; }

  /** Where a tier sorts: up the ladder, a tier the page does not know after "hint". */
  function tierRank(t) { var k = TIERS.indexOf(t); return k < 0 ? TIERS.length : k; }

  /** "difficulty 41.2 ± 1.3 · tier careful", or the parts of it the level has. */
  function difficultyLine(lv) {
    var m = obj(lv.metrics), t = tierOf(lv), parts = [];
    if (isNum(m.difficulty)) {
      parts.push("difficulty " + m.difficulty.toFixed(1) +
        (isNum(m.difficulty_se) ? PM + m.difficulty_se.toFixed(1) : ""));
    }
    if (t) parts.push("tier " + t);
    return parts.join(DOT);
  }

  function moreLine(m) {
    var parts = [], named = KNOWN.map(function (k) { return k[0]; });
    KNOWN.forEach(function (k) { if (isNum(m[k[0]])) parts.push(k[1] + " " + k[2](m[k[0]])); });
    Object.keys(m).forEach(function (k) {
      if (SHOWN.indexOf(k) < 0 && named.indexOf(k) < 0 && isNum(m[k])) {
        parts.push(k.replace(/_/g, " ") + " " + plain(m[k]));
      }
    });
    return parts.join(DOT);
  }

  /** "61 ± 3%": a clear rate and its standard error, in percent. */
  function rateText(e) {
    var se = isNum(e.se) ? Math.max(0, e.se) * 100 : null;
    var band = se === null ? "" : PM + (se > 0 && se < 1 ? se.toFixed(1) : Math.round(se));
    return Math.round(e.rate * 100) + band + "%";
  }

  function span(cls, text) {
    var s = document.createElement("span");
    s.className = cls;
    s.textContent = text;
    return s;
  }

  /** The level's profile, as llkgen.analysis.ladder.profile computes it for llkgen grade:
   *  {tier, breaks}, where tier is the weakest model, in strength order, from which every
   *  stronger one clears reliably (HINT when the strongest does not), and breaks are the pairs
   *  [weaker, stronger] where the weaker clears reliably and the stronger does not. null
   *  unless every model of STRENGTH has a clear rate. */
  function profileOf(rates) {
    if (!STRENGTH.length || !STRENGTH.every(function (k) { return isNum(obj(rates[k]).rate); })) return null;
    var r = STRENGTH.map(function (k) { return rates[k].rate; }), tier = HINT, breaks = [], i, j;
    for (i = r.length - 1; i >= 0 && r[i] >= RELIABLY; i--) tier = STRENGTH[i];
    for (i = 0; i < r.length; i++) {
      for (j = i + 1; j < r.length && r[i] >= RELIABLY; j++) {
        if (r[j] < RELIABLY) breaks.push([STRENGTH[i], STRENGTH[j]]);
      }
    }
    return { tier: tier, breaks: breaks };
  }

  /** "monotone", or which weaker models clear reliably where stronger ones do not, in the
   *  words llkgen grade uses (rates in percent, as the chips show them). */
  function profileText(p, rates) {
    if (!p.breaks.length) return "monotone \u00b7 tier in strength order " + p.tier;
    var strong = [];
    p.breaks.forEach(function (b) { if (strong.indexOf(b[1]) < 0) strong.push(b[1]); });
    return "not monotone: " + strong.map(function (s) {
      var weaker = p.breaks.filter(function (b) { return b[1] === s; }).map(function (b) { return b[0]; });
      return s + " " + Math.round(rates[s].rate * 100) + "% is not reliable where weaker " + weaker.join(", ") +
        (weaker.length === 1 ? " is" : " are");
    }).join("; ") + "; tier in strength order " + p.tier;
  }

  /** One chip per model player with a clear rate, weak to strong by measured strength: its
   *  name, rate ± se, and a bar whose darker band is rate ± se; the level's tier is outlined,
   *  and a model that is not reliable where a weaker one is is marked. Below, the profile. */
  function showPlayers(lv) {
    var box = $("level-players"), rates = obj(obj(lv.players).clear_rates), tier = tierOf(lv);
    var names = STRENGTH.filter(function (k) { return own(rates, k); }).concat(
      Object.keys(rates).filter(function (k) { return STRENGTH.indexOf(k) < 0; })
    ).filter(function (k) { return isNum(obj(rates[k]).rate); });
    var prof = profileOf(rates);
    box.replaceChildren();
    box.hidden = !names.length;
    if (!names.length) return;
    var ul = document.createElement("ul");
    names.forEach(function (k) {
      var e = obj(rates[k]), li = document.createElement("li"), bar = span("p-bar", "");
      var fill = span("p-fill", ""), band = span("p-se", ""), r = clamp01(e.rate);
      var s = isNum(e.se) ? Math.max(0, e.se) : 0, lo = clamp01(r - s), hi = clamp01(r + s);
      var weaker = prof ? prof.breaks.filter(function (b) { return b[1] === k; }).map(function (b) { return b[0]; }) : [];
      li.setAttribute("data-player", k);
      li.className = (k === tier ? "tier" : "") + (weaker.length ? (k === tier ? " " : "") + "break" : "");
      fill.style.width = (100 * r).toFixed(1) + "%";
      band.style.left = (100 * lo).toFixed(1) + "%";
      band.style.width = (100 * (hi - lo)).toFixed(1) + "%";
      bar.append(fill, band);
      li.append(span("p-name", k), span("p-rate", rateText(e)), bar);
      li.title = k + " player: clears " + rateText(e) +
        (isNum(e.runs) ? " of " + fmtInt(e.runs) + " playthroughs" : "") + (k === tier ? " (the level's tier)" : "") +
        (weaker.length ? "; not reliable where weaker " + weaker.join(", ") + " clear" +
          (weaker.length === 1 ? "s" : "") + " it reliably" : "");
      ul.appendChild(li);
    });
    var label = span("players-label", tier === HINT ? "clear rate, weak to strong (none is reliable):" :
      "clear rate, weak to strong:");
    label.title = "share of playthroughs each model player clears, \u00b1 its standard error (the darker " +
      "band), the models in order of measured strength; outlined: the level's tier, the weakest model " +
      "player (in the ladder's order, " + MODELS.join(", ") + ") that clears it reliably; marked: a model " +
      "that does not clear it reliably (" + Math.round(RELIABLY * 100) + "%) where a weaker one does";
    box.append(label, ul);
    if (prof) {
      var line = span("p-profile" + (prof.breaks.length ? " broken" : ""), profileText(prof, rates));
      line.id = "level-profile";
      line.title = "the profile: where a stronger model fails a level a weaker one clears reliably, the " +
        "tier does not say why; the tier in strength order is the weakest model from which every stronger " +
        "one clears reliably";
      box.appendChild(line);
    }
  }

  function showDetail(lv) {
    var d = $("level-difficulty");
    d.textContent = difficultyLine(lv);
    d.title = tierOf(lv) ? TIER_NOTE : "";
    $("level-more").textContent = moreLine(obj(lv.metrics));
    showPlayers(lv);
  }

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

  /** Show level ``index`` (0-based): its board, its details, and its row and curve marker.
   *  The address then names it (see remember), unless ``opening``: the page as first opened,
   *  which init settles itself. */
  function select(index, opening) {
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
      solution: sol, solStates: ss.states, solError: ss.error, playing: false,
      deadMemo: new Set(), analysis: null, hintAdvice: null
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
    showDetail(lv);
    $("game").setAttribute("data-level", String(index));
    var ring = rules.border ? 2 : 0;
    // As big as fits beside the list (or, on a phone, across the screen), within 14..48 px.
    var room = Math.max(200, $("game").clientWidth - 40);
    var cell = Math.floor(Math.min(560 / (lv.cols + ring), room / (lv.cols + ring), 440 / (lv.rows + ring)));
    cell = Math.max(14, Math.min(48, cell));
    $("board-wrap").style.setProperty("--cell", cell + "px");
    setMessage(S.solError ? "Warning: " + S.solError : "", S.solError ? "error" : "");
    render();
    if (!opening) {
      remember(index);
      reveal();
    }
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
    S.hintAdvice = null;
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

  /** Hint: the certified solution's next move while the player is on it; otherwise what the
   *  page can prove (solver.js adviseMove): a safe move, else an undecided one with a note,
   *  never one it can prove fatal. */
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
      render();
      return;
    }
    if (!removablePairs(S.grid, S.rules).length) {
      S.hint = null;
      setMessage(tileCount(S.grid) ? "No legal move: Undo or Restart." : "Cleared!");
      render();
      return;
    }
    var res = finishAnalysis();
    var advice = SOLVER.adviseMove(S.grid, S.rules, {
      result: res, budget: SEARCH_BUDGET, moveBudget: MOVE_BUDGET, memo: S.deadMemo });
    S.hintAdvice = advice;
    if (advice.status === "move") {
      m = advice.move;
      S.hint = m;
      var pair = cellName(m[0]) + "\u2013" + cellName(m[1]);
      if (advice.label === "safe") {
        setMessage("Hint: " + pair + " is safe: the page found a way to clear the board after it" +
          (S.solution && !S.solError ? " (you have left the certified solution)." : "."), "hint");
      } else {
        setMessage("Hint: " + pair + " is undecided: the page could not prove any move safe, " +
          "nor this one fatal, within its search budget.", "hint warn");
      }
    } else {
      S.hint = null;
      if (advice.status === "dead") showVerdict({ status: "dead", reason: advice.reason, locked: advice.locked || [] });
      setMessage("No hint: " + deadText(advice.reason, advice.locked || []) + " Undo or Restart.", "error");
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
  // What the page can prove about the board in play (solver.js), shown in #verdict.
  // ---------------------------------------------------------------------------------------
  var analysisTimer = null;

  function deadText(reason, locked) {
    if (reason === "lock") {
      return "this board can no longer be cleared: " + locked.length + " tile" + (locked.length === 1 ? "" : "s") +
        " can never be removed (outlined), e.g. " + cellName(locked[0]) + ".";
    }
    if (reason === "no moves") return "this board can no longer be cleared: no legal move is left.";
    if (reason === "every move fatal") return "this board can no longer be cleared: every legal move is fatal.";
    return "this board can no longer be cleared: every line of play from here was searched.";
  }

  /** Show a verdict for the current board: {status: "solvable" | "dead" | "undecided" |
   *  "cleared" | "pending", ...} (a Search result, or the certified solution's word). */
  function showVerdict(v) {
    var el = $("verdict"), text = "";
    if (v.status === "solvable") {
      text = v.certified ? "Solvable: you are on the certified solution." :
        "Solvable: the page found a way to clear this board.";
    } else if (v.status === "dead") {
      text = "Dead board \u2013 " + deadText(v.reason, v.locked || []) + " Undo or Restart.";
    } else if (v.status === "undecided") {
      text = "Undecided: the page searched " + v.nodes + " boards and could not tell whether this board can still be cleared.";
    } else if (v.status === "pending") {
      text = "Checking whether this board can still be cleared\u2026";
    }
    el.textContent = text;
    el.setAttribute("data-verdict", v.status);
    el.className = v.status;
    S.verdict = v;
    var locked = v.status === "dead" ? v.locked || [] : [];
    var cells = document.querySelectorAll("#board .cell.tile");
    for (var i = 0; i < cells.length; i++) {
      var r = +cells[i].getAttribute("data-r"), c = +cells[i].getAttribute("data-c");
      cells[i].classList.toggle("locked", locked.some(function (p) { return p[0] === r && p[1] === c; }));
    }
  }

  /** Start proving things about S.grid unless that is already done or under way: the lock
   *  test at once (it runs in the Search constructor), the search in slices between frames so
   *  clicks stay responsive. */
  function startAnalysis() {
    var k = key(S.grid);
    if (S.analysis && S.analysis.key === k) { if (S.analysis.result) showVerdict(S.analysis.verdict); return; }
    if (analysisTimer) { clearTimeout(analysisTimer); analysisTimer = null; }
    var a = { key: k, search: null, result: null, verdict: null };
    S.analysis = a;
    document.documentElement.setAttribute("data-analysis", "running");
    if (tileCount(S.grid) === 0) { finish(a, { status: "cleared" }); return; }
    if (solutionStep() >= 0) { finish(a, { status: "solvable", certified: true }); return; }
    a.search = new SOLVER.Search(S.grid, S.rules, { budget: SEARCH_BUDGET, memo: S.deadMemo });
    step();
    function step() {
      analysisTimer = null;
      if (S.analysis !== a) return;
      var res = a.search.run(SLICE);
      if (res) { a.result = res; finish(a, res); return; }
      if (!a.verdict) { a.verdict = { status: "pending" }; showVerdict(a.verdict); }
      analysisTimer = setTimeout(step, 0);
    }
  }

  function finish(a, v) {
    a.verdict = v;
    if (!a.result && v.status !== "pending") a.result = v;
    showVerdict(v);
    document.documentElement.setAttribute("data-analysis", "done");
  }

  /** The search result for S.grid, finishing a running analysis at once (Hint needs it now). */
  function finishAnalysis() {
    startAnalysis();
    var a = S.analysis;
    if (!a.search) return a.result;
    if (!a.result) {
      if (analysisTimer) { clearTimeout(analysisTimer); analysisTimer = null; }
      a.result = a.search.run();
      finish(a, a.result);
    }
    return a.result;
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
    if (!view.grid) startAnalysis();
    markCurrentOnCurve();
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
  /** The level list's columns. ``value`` gives what a column sorts by (null when the level
   *  lacks it: such levels sort last in either direction), ``text`` what it shows. An
   *  ``optional`` column is left out when no level of the pack has a value for it (newer packs
   *  lack the older metrics, older ones the tier). */
  var DASH = "\u2013";
  function metricCol(k, label, title, fmt) {
    return {
      key: k, label: label, title: title, num: true, optional: true,
      value: function (lv) { var v = (lv.metrics || {})[k]; return isNum(v) ? v : null; },
      text: function (lv) { var v = (lv.metrics || {})[k]; return isNum(v) ? fmt(v) : DASH; }
    };
  }
  var COLUMNS = [
    { key: "index", label: "#", num: true, value: function (lv, i) { return i; }, text: function (lv, i) { return String(i + 1); } },
    { key: "preview", label: "", title: "the board at the start", preview: true },
    { key: "id", label: "id", value: function (lv, i) { return lv.id || "level " + (i + 1); },
      text: function (lv, i) { return lv.id || "level " + (i + 1); } },
    { key: "size", label: "size", num: true, title: "rows \u00d7 columns (sorts by cell count)",
      value: function (lv) { return lv.rows * lv.cols; }, text: function (lv) { return lv.rows + "\u00d7" + lv.cols; } },
    { key: "rules", label: "rules", title: "gravity; \u25a1 = no border ring",
      value: function (lv) { var r = rulesOf(lv); return r.gravity + (r.border ? "" : " noborder"); },
      text: function (lv) {
        var r = rulesOf(lv);
        return (r.gravity === "none" ? "\u00b7" : ARROWS[r.gravity].trim()) + (r.border ? "" : " \u25a1");
      } },
    { key: "tiles", label: "tiles", num: true, value: function (lv) { return tileCount(lv.grid); },
      text: function (lv) { return String(tileCount(lv.grid)); } },
    // Always there: the difficulty filter works on it, and a pack without it should say so.
    Object.assign(metricCol("difficulty", "difficulty", "the single difficulty score, 0 to 100 (higher is harder)",
      fixed(1)), { optional: false }),
    { key: "tier", label: "tier", title: TIER_NOTE, optional: true,
      value: function (lv) { var t = tierOf(lv); return t ? tierRank(t) : null; },  // up the ladder
      text: function (lv) { return tierOf(lv) || DASH; } },
    metricCol("fatal_share", "fatal", "mean share of fatal moves among those available, along safe playthroughs", pct),
    metricCol("trap_steps", "traps", "mean steps per playthrough that offer at least one fatal move", fixed(1)),
    metricCol("choices", "choices", "mean number of moves available per step", fixed(1)),
    metricCol("link_turns", "turns", "mean number of turns in the links played (0 to 2)", fixed(2)),
    metricCol("unknown_share", "unknown", "share of move labels the generator left unknown", pct),
    metricCol("initial_moves", "moves", "legal moves at the start", fmtInt),
    metricCol("random_clear_rate", "random clear", "share of random playthroughs that clear the board", pct),
    metricCol("verify_nodes", "verify nodes", "search nodes the verifier needed", fmtInt)
  ];
  var ROWS = [];                               // {index, tr, values: {key: value}}
  var sortState = { key: "index", dir: 1 };

  /** A thumbnail of the starting board, one pixel per cell scaled up without smoothing; a
   *  pure function of the grid and the palette. */
  function thumbnail(lv) {
    var canvas = document.createElement("canvas");
    canvas.width = lv.cols;
    canvas.height = lv.rows;
    var scale = Math.max(1, Math.min(4, Math.floor(40 / Math.max(lv.rows, lv.cols))));
    canvas.style.width = lv.cols * scale + "px";
    canvas.style.height = lv.rows * scale + "px";
    canvas.className = "thumb";
    canvas.setAttribute("aria-hidden", "true");
    var ctx = canvas.getContext("2d");
    if (!ctx) return canvas;
    var img = ctx.createImageData(lv.cols, lv.rows), d = img.data;
    for (var r = 0; r < lv.rows; r++) {
      for (var c = 0; c < lv.cols; c++) {
        var v = lv.grid[r][c];
        var hex = v === WALL ? "#3A3F47" : v === 0 ? "#F4F1EA" : (PALETTE[v] || { fill: "#999999" }).fill;
        var o = 4 * (r * lv.cols + c);
        d[o] = parseInt(hex.slice(1, 3), 16);
        d[o + 1] = parseInt(hex.slice(3, 5), 16);
        d[o + 2] = parseInt(hex.slice(5, 7), 16);
        d[o + 3] = 255;
      }
    }
    ctx.putImageData(img, 0, 0);
    return canvas;
  }

  function buildList() {
    var head = $("level-list").tHead.rows[0], tbody = $("level-list").tBodies[0];
    var columns = COLUMNS.filter(function (col) {
      return !col.optional || LEVELS.some(function (lv, i) { return col.value(lv, i) !== null; });
    });
    var tiers = columns.some(function (col) { return col.key === "tier"; });
    if (tiers) $("filter-text").placeholder = "id, rules or tier";
    columns.forEach(function (col) {
      var th = document.createElement("th");
      th.setAttribute("data-col", col.key);
      if (col.num) th.className = "num";
      if (col.title) th.title = col.title;
      if (col.value) {
        var b = document.createElement("button");
        b.type = "button";
        b.textContent = col.label;
        b.setAttribute("data-sort", col.key);
        b.addEventListener("click", function () { sortBy(col.key); });
        th.appendChild(b);
        th.setAttribute("aria-sort", "none");
      } else {
        th.textContent = col.label;
      }
      head.appendChild(th);
    });
    LEVELS.forEach(function (lv, i) {
      var tr = document.createElement("tr"), values = {};
      tr.setAttribute("data-index", i);
      tr.setAttribute("tabindex", "0");
      tr.setAttribute("role", "button");
      columns.forEach(function (col) {
        var td = document.createElement("td");
        if (col.num) td.className = "num";
        if (col.preview) {
          td.className = "preview";
          td.appendChild(thumbnail(lv));
        } else {
          td.textContent = col.text(lv, i);
          values[col.key] = col.value(lv, i);
          if (col.key === "id") td.title = td.textContent;
          if (col.key === "rules") {
            var r = rulesOf(lv);
            td.title = "gravity " + r.gravity + ", border " + (r.border ? "on" : "off");
          }
        }
        tr.appendChild(td);
      });
      tr.addEventListener("click", function () { select(i); });
      tr.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); select(i); }
      });
      tbody.appendChild(tr);
      // The text filter looks at the id, the rules ("down", "noborder") and the tier.
      var words = [values.id, values.rules].concat(tiers && tierOf(lv) ? [tierOf(lv)] : []);
      ROWS.push({ index: i, tr: tr, values: values, search: words.join(" ").toLowerCase() });
    });
    updateSortHeaders();
    applyFilter();
  }

  /** Sort the list by a column: a second click on the same column reverses it. Levels lacking
   *  the value go last either way; ties keep pack order. */
  function sortBy(k, dir) {
    sortState = { key: k, dir: dir || (sortState.key === k ? -sortState.dir : 1) };
    var d = sortState.dir;
    var order = ROWS.slice().sort(function (x, y) {
      var a = x.values[k], b = y.values[k];
      if (a === null && b === null) return x.index - y.index;
      if (a === null) return 1;
      if (b === null) return -1;
      var c = typeof a === "string" ? (a < b ? -1 : a > b ? 1 : 0) : a - b;
      return c * d || x.index - y.index;
    });
    var tbody = $("level-list").tBodies[0];
    order.forEach(function (row) { tbody.appendChild(row.tr); });
    updateSortHeaders();
  }

  function updateSortHeaders() {
    var ths = $("level-list").tHead.rows[0].cells;
    for (var i = 0; i < ths.length; i++) {
      var k = ths[i].getAttribute("data-col");
      if (!ths[i].hasAttribute("aria-sort")) continue;
      ths[i].setAttribute("aria-sort", k === sortState.key ? (sortState.dir > 0 ? "ascending" : "descending") : "none");
    }
  }

  function numberInput(id) {
    var v = $(id).value.trim();
    return v === "" || !isFinite(Number(v)) ? null : Number(v);
  }

  /** Show the levels whose id, rules or tier contain the text and whose difficulty lies in
   *  the range; with a bound set, levels without a difficulty are hidden. */
  function applyFilter() {
    var text = $("filter-text").value.trim().toLowerCase();
    var lo = numberInput("filter-min"), hi = numberInput("filter-max"), shown = 0;
    ROWS.forEach(function (row) {
      var d = row.values.difficulty, ok = true;
      if (text && row.search.indexOf(text) < 0) ok = false;
      if ((lo !== null || hi !== null) && d === null) ok = false;
      if (lo !== null && d !== null && d < lo) ok = false;
      if (hi !== null && d !== null && d > hi) ok = false;
      row.tr.hidden = !ok;
      if (ok) shown++;
    });
    $("filter-count").textContent = shown === ROWS.length ? ROWS.length + " levels" :
      shown + " of " + ROWS.length + " levels";
    $("filter-count").setAttribute("data-shown", shown);
  }

  // The difficulty curve (drawn in Python): click to pick a level, a marker on the current one.
  function curveSvg() { return document.querySelector("#curve svg"); }

  function curveX(i) {
    var svg = curveSvg(), n = +svg.getAttribute("data-levels"), x0 = +svg.getAttribute("data-x0");
    var width = svg.viewBox.baseVal.width;
    return n > 1 ? x0 + i * +svg.getAttribute("data-step") : (x0 + width - 48) / 2;
  }

  function markCurrentOnCurve() {
    var svg = curveSvg();
    if (!svg || !S) return;
    var line = svg.querySelector("line.current");
    if (!line) {
      line = document.createElementNS("http://www.w3.org/2000/svg", "line");
      line.setAttribute("class", "current");
      svg.appendChild(line);
    }
    var x = curveX(S.index).toFixed(1), top = +svg.getAttribute("data-plot-top");
    line.setAttribute("x1", x); line.setAttribute("x2", x);
    line.setAttribute("y1", top); line.setAttribute("y2", top + +svg.getAttribute("data-plot-height"));
  }

  function wireCurve() {
    var svg = curveSvg();
    if (!svg) return;
    svg.addEventListener("click", function (e) {
      var n = +svg.getAttribute("data-levels");
      if (!n) return;
      var pt = svg.createSVGPoint();
      pt.x = e.clientX; pt.y = e.clientY;
      var local = pt.matrixTransform(svg.getScreenCTM().inverse());
      var step = +svg.getAttribute("data-step");
      var i = n > 1 && step > 0 ? Math.round((local.x - +svg.getAttribute("data-x0")) / step) : 0;
      select(Math.max(0, Math.min(n - 1, i)));
    });
    var menu = $("curve-overlay");
    if (menu) menu.addEventListener("change", function () { showOverlay(menu.value); });
  }

  /** Show one overlay metric on the curve (or none, for ""). */
  function showOverlay(k) {
    var groups = document.querySelectorAll("#curve g.overlay");
    for (var i = 0; i < groups.length; i++) {
      groups[i].setAttribute("visibility", groups[i].getAttribute("data-metric") === k ? "visible" : "hidden");
    }
    if ($("curve-overlay") && $("curve-overlay").value !== k) $("curve-overlay").value = k;
  }

  // ---------------------------------------------------------------------------------------
  // The address: #level=<id> names the level shown, so a link, a reload, back and forward
  // bring it back.
  // ---------------------------------------------------------------------------------------
  var BY_ID = Object.create(null);             // id -> index, or -1 when two levels share it
  LEVELS.forEach(function (lv, i) {
    if (typeof lv.id === "string" && lv.id) BY_ID[lv.id] = lv.id in BY_ID ? -1 : i;
  });
  var home = -1;                               // the level the page opened with

  /** The fragment naming level i: its id when no other level has it, else its 1-based number. */
  function address(i) {
    var id = LEVELS[i].id;
    return "#level=" + (typeof id === "string" && BY_ID[id] === i ? encodeURIComponent(id) : String(i + 1));
  }

  /** The level a fragment names (an id, or a 1-based number as older links have), or -1. */
  function fromAddress(hash) {
    var m = /^#(?:.*&)?level=([^&]*)/.exec(hash || "");
    if (!m) return -1;
    var s = m[1];
    try { s = decodeURIComponent(s); } catch (e) { /* a malformed escape: read as written */ }
    if (BY_ID[s] >= 0) return BY_ID[s];
    return /^\d+$/.test(s) && +s >= 1 && +s <= LEVELS.length ? +s - 1 : -1;
  }

  /** After a selection: a new history entry for level i unless the address names it already
   *  (back, forward, reload, the same level again); the level the page opened with replaces
   *  an address naming nothing rather than adding an entry. */
  function remember(i) {
    var named = fromAddress(location.hash);
    if (named < 0 && i === home) location.replace(address(i));
    else if (named !== i) location.hash = address(i);
  }

  /** On a narrow screen the board sits above the list: after a pick down there, scroll back
   *  up to the board (when its top has left the screen). */
  function reveal() {
    var game = $("game").getBoundingClientRect(), list = $("levels").getBoundingClientRect();
    if (game.top < list.top && $("board-wrap").getBoundingClientRect().top < 0) {
      $("game").scrollIntoView({ block: "start" });
    }
  }

  /** Back or forward: the level the address names; an address naming none (the page as
   *  first opened, say) gets the level the page opened with. */
  function follow() {
    var i = fromAddress(location.hash);
    if (i < 0) i = home;
    if (i >= 0 && (!S || i !== S.index)) select(i);
  }

  function init() {
    buildList();
    wireCurve();
    ["filter-text", "filter-min", "filter-max"].forEach(function (id) { $(id).addEventListener("input", applyFilter); });
    $("board").addEventListener("click", function (e) {
      var t = e.target.closest("[data-r]");
      if (t) click(Number(t.getAttribute("data-r")), Number(t.getAttribute("data-c")));
    });
    $("btn-undo").addEventListener("click", undo);
    $("btn-restart").addEventListener("click", restart);
    $("btn-hint").addEventListener("click", hint);
    $("btn-play").addEventListener("click", playSolution);
    document.addEventListener("keydown", function (e) {
      if (e.target && /^(TR|INPUT|SELECT|BUTTON)$/.test(e.target.tagName)) return;
      if (e.key === "u" || (e.key === "z" && (e.ctrlKey || e.metaKey))) undo();
      else if (e.key === "h") hint();
    });
    // The level the address names, if any, else the first; its id then replaces the number
    // an older link used. An address naming nothing is left as it is.
    var start = fromAddress(location.hash);
    if (LEVELS.length) {
      select(Math.max(0, start), true);
      home = S.index;
      if (start >= 0 && location.hash !== address(home)) location.replace(address(home));
    } else {
      $("level-title").textContent = "This pack has no levels.";
    }
    window.addEventListener("hashchange", follow);
    window.addEventListener("popstate", follow);
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
        solutionError: S.solError, verdict: S.verdict ? S.verdict.status : null,
        verdictDetail: S.verdict || null, hint: S.hint, hintAdvice: S.hintAdvice
      };
    },
    levels: function () { return LEVELS.length; },
    sortBy: sortBy, showOverlay: showOverlay,
    listOrder: function () {
      return ROWS.slice().sort(function (x, y) {
        return Array.prototype.indexOf.call(x.tr.parentNode.children, x.tr) -
          Array.prototype.indexOf.call(y.tr.parentNode.children, y.tr);
      }).filter(function (row) { return !row.tr.hidden; }).map(function (row) { return row.index; });
    },
    select: function (i) { select(i); }, click: click, undo: undo, restart: restart, hint: hint,
    playSolution: playSolution, flush: flush,
    setAnimation: function (ms) { animMs = Math.max(0, Number(ms) || 0); },
    /** Tests only: smaller budgets, to reach "undecided" on small boards. Forgets the analysis. */
    setBudgets: function (search, move) {
      SEARCH_BUDGET = search; MOVE_BUDGET = move;
      if (S) { S.analysis = null; S.deadMemo = new Set(); render(); }
    },
    rules: { findPath: findPath, removablePairs: removablePairs, applyGravity: applyGravity, checkMove: checkMove }
  };

  /** For tests: the solver's functions called on any board, with plain budgets. */
  window.llkgenTest = {
    lockTest: function (grid, rules) { return SOLVER.lockTest(grid, rules); },
    search: function (grid, rules, budget) { return SOLVER.search(grid, rules, { budget: budget }); },
    classifyMoves: function (grid, rules, budget) { return SOLVER.classifyMoves(grid, rules, { budget: budget }); },
    adviseMove: function (grid, rules, budget, moveBudget) {
      return SOLVER.adviseMove(grid, rules, { budget: budget, moveBudget: moveBudget });
    },
    budgets: { search: SEARCH_BUDGET, move: MOVE_BUDGET, slice: SLICE }
  };

  init();
})();
