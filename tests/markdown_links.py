"""Links in markdown, read independently of pypi_readme.py: what PyPI would show broken."""

from __future__ import annotations

import re


def _outside_fences(markdown: str) -> str:
    return re.sub(r"^```.*?^```[^\n]*$", "", markdown, flags=re.M | re.S)


def relative_targets(markdown: str) -> list[str]:
    """Every link or image target outside fenced code and code spans that is neither an absolute
    URL nor an anchor: what PyPI would show broken. A different reading from pypi_readme.py's:
    any ``](target)``, ``]: target``, ``src=`` or ``href=`` at all."""
    prose = re.sub(r"`[^`\n]*`", "", _outside_fences(markdown))
    found = re.findall(r"\]\(\s*<?([^)\s>]+)", prose) + re.findall(r"^ {0,3}\[[^\]]+\]:\s*<?([^\s>]+)", prose, re.M)
    found += re.findall(r"\b(?:src|href)=[\"']([^\"']+)", prose)
    return [t for t in found if not re.match(r"[a-z][a-z0-9+.-]*:|#|//", t)]
