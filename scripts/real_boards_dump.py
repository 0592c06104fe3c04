"""Print the verifier's verdict on each of the real boards, one JSON line a board.

A refactor of the verifier must leave every line unchanged: the same verdict, stage, node
count, proof and witness. Budgets are nodes only (the default), so the output does not depend
on the machine; timings are left out.

    python scripts/real_boards_dump.py [BOARDS.jsonl] > dump.jsonl

``BOARDS.jsonl`` defaults to ``../shared/real-boards/all.jsonl`` beside the project.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from llkgen.game.board import Board, Rules
from llkgen.verifier import Budget, verify

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "real-boards" / "all.jsonl"


def dump(path: Path) -> None:
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        d = json.loads(line)
        board = Board.from_grid(d["grid"])
        rules = Rules(border=d.get("border", True), gravity=d.get("gravity", "none"))
        v = verify(board, rules, Budget())
        stats = {k: val for k, val in v.stats.items()
                 if "time" not in k and "seconds" not in k and not k.endswith("_s")}
        print(json.dumps({"id": d["id"], "verdict": str(v.status), "reason": v.reason, "proof": v.to_json()["proof"],
                          "stats": stats, "solution": v.solution}, sort_keys=True, default=str))


if __name__ == "__main__":
    dump(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT)
