"""mkdocs hooks for llkgen's manual (mkdocs.yml, ``hooks:``).

The docstrings use Sphinx roles (``:class:`~llkgen.game.board.Board```), which mkdocstrings
renders as the role's name followed by the code: ``:class:<code>~llkgen.game.board.Board</code>``.
This hook drops the role and, as Sphinx does, shows only the last component of a name written
with ``~``.
"""

from __future__ import annotations

import re
from typing import Any

_ROLE = re.compile(r":(?:class|func|data|meth|attr|mod|exc|obj):<code>(~?)([\w.]+)</code>")


def _name(m: re.Match[str]) -> str:
    tilde, name = m.groups()
    return f"<code>{name.rsplit('.', 1)[-1] if tilde else name}</code>"


def on_page_content(html: str, **kwargs: Any) -> str:
    return _ROLE.sub(_name, html)
