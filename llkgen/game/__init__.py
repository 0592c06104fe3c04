"""The game itself: the board and its rules (:mod:`~llkgen.game.board`), gravity, the path
rule, the referee that replays moves, and the working board that every search and playthrough
runs on. Nothing here knows about verdicts, files or generation."""
