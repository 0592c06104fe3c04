"""The code blocks of the README and the docs that the tests run or check.

A block is marked by an HTML comment on the line before its fence, which the rendered page does
not show::

    <!-- llkgen:NAME (what runs it) -->
    ```LANGUAGE
    ...
    ```

``marked_block(NAME)`` returns its code, wherever the block lives (README.md or any page under
docs/), so a page can be split or a block moved without touching the
test that runs it. A name is unique across the docs. ``tests/project/test_docs.py`` checks that every
marked block is read by some test.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
README = ROOT / "README.md"

_MARKED = re.compile(r"^([ \t]*)<!-- llkgen:([a-z0-9-]+)\b[^\n]*-->\n[ \t]*```(\w+)\n(.*?)^[ \t]*```[ \t]*$",
                     re.S | re.M)
_FENCE = r"^```{language}\n(.*?)^```"


@dataclass(frozen=True)
class Block:
    """One marked block: the page it is on, its fence's language and its code (dedented)."""

    page: Path
    language: str
    code: str


def doc_pages() -> list[Path]:
    """README.md and every Markdown page of the manual."""
    pages = sorted(DOCS.rglob("*.md"))
    return [README, *pages]


def marked_blocks() -> dict[str, Block]:
    """Every marked block of the docs, by name."""
    found: dict[str, Block] = {}
    for page in doc_pages():
        for m in _MARKED.finditer(page.read_text("utf-8")):
            name = m.group(2)
            assert name not in found, f"llkgen:{name} marks a block in {found[name].page} and in {page}"
            found[name] = Block(page, m.group(3), textwrap.dedent(m.group(4)))
    return found


def marked_block(name: str, language: str | None = None) -> str:
    """The code of the block marked ``<!-- llkgen:NAME -->``, checked to be in ``language``."""
    blocks = marked_blocks()
    assert name in blocks, f"no block marked <!-- llkgen:{name} --> in README.md or docs/"
    block = blocks[name]
    assert language is None or block.language == language, \
        f"{block.page}: llkgen:{name} marks a {block.language} block, expected {language}"
    return block.code


def fenced_blocks(page: Path, language: str) -> list[str]:
    """Every top-level ```LANGUAGE block of ``page``, in order."""
    return re.findall(_FENCE.format(language=re.escape(language)), page.read_text("utf-8"), re.S | re.M)
