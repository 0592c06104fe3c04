"""llkgen: generate Lianliankan (Onet / Shisen-Sho) level boards and certify that each can be
cleared.

The library is usable without the CLI::

    from llkgen.board import Board, Rules
    from llkgen.path import find_path, removable_pairs
    from llkgen.referee import replay
"""

__version__ = "0.1.0"
