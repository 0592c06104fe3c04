"""The viewer's own proofs (llkgen/assets/solver.js) held to the Python verifier, in Chromium.

The page claims three things about a board: "dead" (the lock test, or a search that followed
every line), "solvable" with a witness, or "undecided". Every claim is checked here:

* every board the page calls dead, by either route, is ``unsolvable`` for
  :func:`llkgen.verifier.verify`; so the lock test never calls a board dead that Python solves;
* every witness the page gives (for a board, or after a move it labels safe) clears the board
  under :func:`llkgen.game.referee.replay`;
* every move the page labels fatal leads to a board ``verify`` proves unsolvable, and the move
  lists are Python's :func:`llkgen.game.path.removable_pairs`, in order;
* Hint's choice (adviseMove) is never a move the page labelled fatal.

Boards: random small boards under every gravity and border rule (small enough that both sides
decide nearly all of them, so the checks bite both ways), and levels generated from the
shipped specs, taken at random points of random and of certified-then-random play. Counts of
each verdict are asserted too, so a page that said "undecided" to everything would fail.

Needs Playwright for Python and Debian's Chromium at /usr/bin/chromium; skipped with a reason
when Chromium is missing.
"""

from __future__ import annotations

import random

import pytest

from llkgen.formats.load import load_pack
from llkgen.game.board import Board, Rules
from llkgen.game.path import removable_pairs
from llkgen.game.referee import replay
from llkgen.generation.generator import generate_level
from llkgen.generation.spec import parse_spec
from llkgen.render.html import write_viewer
from llkgen.verifier import Budget, verify

from browser import BROWSER
from demo_pack import make_demo_pack
from paths import ROOT
from strategies import drop_odd_tiles

pytestmark = BROWSER

GRAVITIES = ["none", "down", "up", "left", "right"]
PY_BUDGET = Budget(nodes=400_000)


@pytest.fixture(scope="module")
def page(browser_context, tmp_path_factory: pytest.TempPathFactory):
    """A viewer page (of the demo pack) whose window.llkgenTest the tests call on any board."""
    tmp = tmp_path_factory.mktemp("solver")
    html = write_viewer(load_pack(make_demo_pack(tmp)), tmp / "viewer.html")
    pg = browser_context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.goto(html.as_uri())
    pg.wait_for_selector("html[data-ready='1']", state="attached")
    yield pg
    pg.close()
    assert not errors, errors


def random_board(rng: random.Random) -> Board:
    """A small board with even type counts, with walls and empty cells; about one in six is
    unsolvable (measured with verify on 300 of them)."""
    rows, cols = rng.randint(2, 5), rng.randint(2, 6)
    kinds = rng.randint(2, 6)
    cells = [rng.choice([0, -1] + list(range(1, kinds + 1))) for _ in range(rows * cols)]
    cells = drop_odd_tiles(cells)
    return Board.checked(rows, cols, cells)


def small_cases(seed: int) -> list[tuple[Board, Rules]]:
    """100 random boards per gravity, each followed by the board after one random legal move
    (a move can be fatal, so these are dead more often)."""
    rng = random.Random(seed)
    cases = []
    for gravity in GRAVITIES:
        for _ in range(100):
            board, rules = random_board(rng), Rules(border=rng.random() < 0.3, gravity=gravity)
            cases.append((board, rules))
            moves = removable_pairs(board, rules)
            if moves:
                m = rng.choice(moves)
                cases.append((replay(board, rules, [(m.a, m.b)]).final, rules))
    return cases


def js_rules(rules: Rules) -> dict:
    return {"border": rules.border, "gravity": rules.gravity}


def analyse(page, cases: list[tuple[Board, Rules]], budget: int, move_budget: int) -> list[dict]:
    """The page's lock test, search, move labels and advice for each case, in one round trip."""
    return page.evaluate(
        """([cases, budget, moveBudget]) => cases.map(([g, r]) => {
               const T = window.llkgenTest;
               return {lock: T.lockTest(g, r), search: T.search(g, r, budget),
                       labels: T.classifyMoves(g, r, moveBudget),
                       advice: T.adviseMove(g, r, budget, moveBudget)};
           })""",
        [[[b.grid(), js_rules(r)] for b, r in cases], budget, move_budget])


def as_moves(witness: list) -> list:
    return [(tuple(a), tuple(b)) for a, b in witness]


class Tally:
    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def add(self, key: str) -> None:
        self.counts[key] = self.counts.get(key, 0) + 1

    def __getitem__(self, key: str) -> int:
        return self.counts.get(key, 0)


def check(board: Board, rules: Rules, got: dict, tally: Tally, python_verdicts: dict) -> None:
    """Every claim in ``got`` (see :func:`analyse`) against Python; counts go to ``tally``."""
    def py_status(b: Board) -> str:
        if b.cells not in python_verdicts:
            python_verdicts[b.cells] = verify(b, rules, PY_BUDGET).status
        return python_verdicts[b.cells]

    where = f"{rules}\n{board.to_text()}"
    lock = got["lock"]
    assert lock["applicable"] == (rules.gravity == "none"), where
    if lock["dead"]:
        assert lock["locked"] and all(board[tuple(p)] > 0 for p in lock["locked"]), where
        assert py_status(board) == "unsolvable", f"lock test calls a board dead that Python does not: {where}"
        tally.add("lock dead")

    res = got["search"]
    tally.add("search " + res["status"])
    if res["status"] == "solvable":
        played = replay(board, rules, as_moves(res["witness"]))
        assert played.ok and played.cleared, f"witness rejected: {played.describe()}\n{where}"
    elif res["status"] == "dead":
        assert py_status(board) == "unsolvable", f"page calls a board dead that Python does not: {where}"
        if res["reason"] == "lock":
            assert lock["dead"], where
    else:
        assert res["status"] == "undecided" and res["nodes"] > 0, where

    pairs = removable_pairs(board, rules)
    labels = got["labels"]
    assert [(tuple(x["a"]), tuple(x["b"])) for x in labels] == [(m.a, m.b) for m in pairs], where
    for x, m in zip(labels, pairs):
        tally.add("move " + x["label"])
        if x["label"] == "safe":
            played = replay(board, rules, [(m.a, m.b)] + as_moves(x["witness"]))
            assert played.ok and played.cleared, f"safe move {m.a}-{m.b}: {played.describe()}\n{where}"
        elif x["label"] == "fatal":
            after = replay(board, rules, [(m.a, m.b)]).final
            assert py_status(after) == "unsolvable", f"page calls {m.a}-{m.b} fatal, Python does not: {where}"
    if res["status"] == "solvable":
        assert any(x["label"] == "safe" for x in labels) or board.is_cleared(), where

    advice = got["advice"]
    tally.add("advice " + advice["status"] + ("/" + advice["label"] if advice["status"] == "move" else ""))
    if advice["status"] == "move":
        move = as_moves([advice["move"]])[0]
        assert advice["label"] in ("safe", "undecided"), where
        fatal = {(tuple(x["a"]), tuple(x["b"])) for x in labels if x["label"] == "fatal"}
        assert move not in fatal, f"Hint offers {move}, which the page proved fatal: {where}"
        if advice["label"] == "safe":
            played = replay(board, rules, [move] + as_moves(advice["witness"]))
            assert played.ok and played.cleared, where
    elif advice["status"] == "dead":
        assert py_status(board) == "unsolvable", where
    else:
        assert advice["status"] == "cleared" and board.is_cleared(), where


def test_small_random_boards_under_every_rule_set(page) -> None:
    cases = small_cases(20261201)
    tally, verdicts = Tally(), {}
    # Budgets big enough to decide these small boards: the checks must bite in both directions.
    for (board, rules), got in zip(cases, analyse(page, cases, budget=20_000, move_budget=20_000)):
        check(board, rules, got, tally, verdicts)
    print(sorted(tally.counts.items()))
    assert tally["search undecided"] == 0
    assert tally["search dead"] >= 100 and tally["search solvable"] >= 300, tally.counts
    assert tally["lock dead"] >= 20 and tally["move fatal"] >= 100, tally.counts
    # And with tiny budgets the page must say "undecided", never guess.
    tally_small = Tally()
    for (board, rules), got in zip(cases, analyse(page, cases, budget=2, move_budget=1)):
        check(board, rules, got, tally_small, verdicts)
    print(sorted(tally_small.counts.items()))
    assert tally_small["search undecided"] >= 20 and tally_small["advice move/undecided"] >= 5, tally_small.counts


# Specs the generated boards come from: no gravity on 10x16 (the biggest shipped board),
# gravity down, walls with gravity, and walls with empty cells.
SPECS = ["hard", "gravity", "viewer-demo", "shapes"]


def played_positions(board: Board, rules: Rules, solution: list, rng: random.Random) -> list[Board]:
    """The start, boards after a few random moves, and boards that follow the certified
    solution for a while and then leave it with one random move: where Hint has to think."""
    out = [board]
    for steps in (3, 12, 30):
        b = board
        for _ in range(steps):
            moves = removable_pairs(b, rules)
            if not moves:
                break
            m = rng.choice(moves)
            b = replay(b, rules, [(m.a, m.b)]).final
        out.append(b)
    for k in (len(solution) // 4, len(solution) // 2):
        b = replay(board, rules, solution[:k]).final
        others = [m for m in removable_pairs(b, rules) if {m.a, m.b} != set(solution[k])]
        if others:
            m = rng.choice(others)
            out.append(replay(b, rules, [(m.a, m.b)]).final)
    return out


def test_generated_levels_after_random_and_off_solution_play(page) -> None:
    rng = random.Random(11)
    cases = []
    for name in SPECS:
        spec = parse_spec((ROOT / "configs" / f"{name}.yaml").read_text(encoding="utf-8"), f"{name}.yaml")
        for index in range(2):
            lv = generate_level(spec, index)
            solution = as_moves(lv.solution)
            cases += [(b, lv.rules) for b in played_positions(lv.board, lv.rules, solution, rng)]
    tally, verdicts = Tally(), {}
    # The page's own budgets, as a player gets them.
    budgets = page.evaluate("window.llkgenTest.budgets")
    for (board, rules), got in zip(cases, analyse(page, cases, budgets["search"], budgets["move"])):
        check(board, rules, got, tally, verdicts)
    print(len(cases), sorted(tally.counts.items()))
    assert tally["search solvable"] >= 10 and tally["search dead"] >= 5, tally.counts
    assert tally["move safe"] >= 50, tally.counts
