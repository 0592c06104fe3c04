"""The long description PyPI shows: README.md, its relative links and images rewritten.

PyPI shows README.md as the project's page but resolves no relative path in it: a relative
image is a broken picture there and a relative link a 404. So the long description is README.md
with every relative target rewritten: to an absolute URL in the repository when [project.urls]
names one (Repository, Source or Homepage, in that order), at the tag of this version (v0.1.0,
the tags .github/workflows/wheels.yml builds from), so the page of a release links to the files
of that release; without such a URL a relative image is dropped and a relative link becomes its
plain text. Anchors (#section), absolute URLs and everything inside code (fenced blocks and
`spans`) are left as written.

setup.py runs this file (it is no module of the package, and needs only the standard library,
so the tests load it without setuptools). tests/test_long_description.py holds it to README.md
and to a sample of every form it handles; tests/test_package.py runs ``twine check --strict``
on the distributions it builds.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Callable, Iterator
from urllib.parse import urlsplit

#: [project.urls] keys naming the repository, most specific first (compared as PEP 753
#: normalises them: lower case, without punctuation or spaces).
HOME_KEYS = ("repository", "source", "sourcecode", "homepage", "home")

#: Stands in for a dropped image until the lines it leaves empty are removed; never in a README.
DROPPED = "\0"

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"(`+)(?:.|\n)*?(?<!`)\1(?!`)")
_LABEL = r"(?:[^\[\]\\]|\\.|\[(?:[^\[\]\\]|\\.)*\])*"  # link text, one level of brackets inside
_DEST = r"<[^<>\n]*>|(?:[^\s()\\]|\\.|\((?:[^\s()\\]|\\.)*\))+"
_INLINE = re.compile(rf"(!?)\[({_LABEL})\]\(\s*({_DEST})(\s+(?:\"[^\"]*\"|'[^']*'|\([^()]*\)))?\s*\)")
_REF_DEF = re.compile(r"^ {0,3}\[([^\]]+)\]:\s*(<[^>]*>|\S+)(.*)$")
_REF_USE = re.compile(rf"(!?)\[({_LABEL})\](?:\[([^\]]*)\])?")
_HTML_IMG = re.compile(r"<img\b[^>]*?\bsrc=([\"'])(.*?)\1[^>]*>", re.I)
_HTML_A = re.compile(r"<a\b[^>]*?\bhref=([\"'])(.*?)\1[^>]*>(.*?)</a>", re.I | re.S)


def is_relative(target: str) -> bool:
    """A path into the repository: no scheme (``https:``, ``mailto:``), no host (``//``) and
    not an anchor in the page itself (``#usage``)."""
    parts = urlsplit(target)
    return not (parts.scheme or parts.netloc or target.startswith("#") or not target.strip())


def repository_home(project: dict) -> str | None:
    """The repository's URL from ``[project.urls]`` (:data:`HOME_KEYS`), or ``None``."""
    urls = {re.sub(r"[^a-z0-9]", "", k.lower()): v for k, v in project.get("urls", {}).items()}
    return next((urls[k].rstrip("/") for k in HOME_KEYS if urls.get(k)), None)


def absolute(home: str, ref: str, target: str, image: bool) -> str:
    """``target`` (a relative path) as a URL in the repository at ``home``, at ``ref``. On
    GitHub an image is served raw (raw.githubusercontent.com), a link goes to the file's page."""
    path = target.lstrip("/")
    parts = urlsplit(home)
    if parts.netloc == "github.com" and parts.path.count("/") == 2:
        if image:
            return f"https://raw.githubusercontent.com{parts.path}/{ref}/{path}"
        return f"{home}/blob/{ref}/{path}"
    return f"{home}/{path}"


def long_description(markdown: str, home: str | None, ref: str) -> str:
    """``markdown`` with its relative images and links made absolute in the repository at
    ``home`` (at ``ref``), or, with ``home`` ``None``, relative images dropped and relative links
    turned into their text. Code is left alone; a line left empty by a dropped image goes."""
    lines = list(_lines(markdown))
    defs: dict[str, str] = {}  # reference definitions: label (case-folded) -> target
    for line, code in lines:
        if not code and (m := _REF_DEF.match(line)):
            defs[m.group(1).strip().casefold()] = m.group(2).strip("<>")

    def target(dest: str, image: bool) -> str | None:
        """The target to write for ``dest``: itself, an absolute URL, or ``None`` to drop it."""
        dest = dest.strip("<>")
        if not is_relative(dest):
            return dest
        return absolute(home, ref, dest, image) if home else None

    def inline(m: re.Match) -> str:
        bang, text, dest, title = m.group(1), m.group(2), m.group(3), m.group(4) or ""
        text = _INLINE.sub(inline, text)  # an image inside a link: [![alt](img.png)](page.md)
        new = target(dest, bool(bang))
        if new is None:
            return DROPPED if bang else text
        return f"{bang}[{text}]({new}{title})"

    def reference(m: re.Match) -> str:
        bang, text, label = m.group(1), m.group(2), m.group(3)
        key = (label or text).strip().casefold()
        if home or key not in defs or not is_relative(defs[key]):
            return m.group(0)  # not a reference, or one its definition's rewrite keeps working
        return DROPPED if bang else text

    def ref_def(m: re.Match) -> str:
        new = target(m.group(2), image=False)
        return "" if new is None else m.group(0).replace(m.group(2), new, 1)

    def img(m: re.Match) -> str:
        new = target(m.group(2), image=True)
        return DROPPED if new is None else m.group(0).replace(m.group(2), new, 1)

    def a(m: re.Match) -> str:
        new = target(m.group(2), image=False)
        return m.group(3) if new is None else m.group(0).replace(m.group(2), new, 1)

    def prose(text: str) -> str:
        """A run of lines outside code blocks: a link's text may wrap onto the next line."""
        text = _outside_code(text, lambda s: _HTML_A.sub(a, _HTML_IMG.sub(img, _REF_USE.sub(
            reference, _INLINE.sub(inline, s)))))
        # A line that held only dropped images goes; the blank lines around it stay.
        kept = [line for line in text.splitlines(keepends=True)
                if DROPPED not in line or line.replace(DROPPED, "").strip()]
        return "".join(kept).replace(DROPPED, "")

    out: list[str] = []
    run: list[str] = []  # prose lines not yet rewritten
    for line, code in lines:
        if code or _REF_DEF.match(line):
            out.append(prose("".join(run)))
            run = []
            if code:
                out.append(line)
            elif (line := _REF_DEF.sub(ref_def, line)).strip():  # a definition dropped goes whole
                out.append(line)
        else:
            run.append(line)
    out.append(prose("".join(run)))
    return "".join(out)


def _lines(markdown: str) -> Iterator[tuple[str, bool]]:
    """``(line, in_code)`` for each line of ``markdown``: ``in_code`` for a fenced code block's
    lines, its fences included."""
    fence = None
    for line in markdown.splitlines(keepends=True):
        if fence is None and (m := _FENCE.match(line)):
            fence = m.group(1)
        elif fence is not None and line.strip().startswith(fence) and not line.strip().strip(fence[0]):
            yield line, True
            fence = None
            continue
        yield line, fence is not None


def _outside_code(line: str, rewrite: Callable[[str], str]) -> str:
    """``rewrite`` applied to the parts of ``line`` outside its code spans."""
    out: list[str] = []
    at = 0
    for m in _CODE_SPAN.finditer(line):
        out += [rewrite(line[at:m.start()]), m.group(0)]
        at = m.end()
    return "".join([*out, rewrite(line[at:])])


def readme(root: Path) -> dict:
    """``setup()``'s long description arguments: README.md rewritten by :func:`long_description`."""
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    version = re.search(r'^__version__ = "([^"]+)"', (root / "llkgen" / "_version.py").read_text(encoding="utf-8"),
                        re.M)
    assert version, "llkgen/_version.py sets __version__"
    text = long_description((root / "README.md").read_text(encoding="utf-8"), repository_home(project),
                            f"v{version.group(1)}")
    return {"long_description": text, "long_description_content_type": "text/markdown"}
