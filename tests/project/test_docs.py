"""The manual is held to the code: the API reference names every public name, the CLI reference
is the commands' own help, no page names a flag a command does not have, every marked block is
run by a test, every page is in the site's nav, and the README is a front page whose links
resolve. (``mkdocs build --strict`` in .ci/run checks the rendered site; these run without it.)"""

from __future__ import annotations

import importlib
import importlib.util
import re

import pytest
import yaml

import llkgen

from docs_blocks import DOCS, README, ROOT, doc_pages, marked_blocks
from paths import TESTS

REFERENCE = DOCS / "reference.md"


def _cli_reference():
    """scripts/cli_reference.py, imported from its path (scripts/ is not a package)."""
    spec = importlib.util.spec_from_file_location("cli_reference", ROOT / "scripts" / "cli_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# -- the API reference --------------------------------------------------------------------------
def _directives() -> list[str]:
    return re.findall(r"^::: ([\w.]+)\s*$", REFERENCE.read_text("utf-8"), re.M)


def test_the_api_reference_names_every_public_name():
    named = {path.rsplit(".", 1)[1] for path in _directives()}
    missing = [name for name in llkgen.__all__ if name not in named]
    assert not missing, f"docs/reference.md has no ::: entry for {missing}"


def test_every_api_reference_entry_is_the_object_llkgen_exports():
    for path in _directives():
        module, name = path.rsplit(".", 1)
        value = getattr(importlib.import_module(module), name)
        assert name in llkgen.__all__, f"docs/reference.md: {path} is not in llkgen.__all__"
        assert getattr(llkgen, name) is value, f"docs/reference.md: {path} is not llkgen.{name}"


# -- the CLI reference --------------------------------------------------------------------------
def test_the_cli_reference_is_the_commands_help():
    page = DOCS / "cli.md"
    text = page.read_text("utf-8")
    cli_reference = _cli_reference()
    assert text == cli_reference.render(text), "docs/cli.md is out of date: run python scripts/cli_reference.py"
    for name in cli_reference.root_command().commands:
        assert f"### llkgen {name}\n" in text, name


def _options() -> tuple[dict[str, set[str]], set[str]]:
    """Each command's option names, and the options every command takes."""
    root = _cli_reference().root_command()

    def names(command) -> set[str]:
        return {o for p in command.params for o in (*p.opts, *getattr(p, "secondary_opts", ()))}
    return ({name: names(c) | {"--help", "-h"} for name, c in root.commands.items()},
            names(root) | {"--help", "-h", "--install-completion", "--show-completion"})


_FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*)")
_CALL = re.compile(r"\bllkgen ([a-z][a-z-]*)(.*)")
_END = re.compile(r"&&|;|\||#|\$\(|\bllkgen\b")  # where one command's arguments end


def _named_flags(text: str):
    """``(command, flag, line)`` for every flag written after ``llkgen COMMAND`` in a code span or
    a code block's line, and for every flag in a table row whose first cell names the command."""
    in_fence = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
            continue
        chunks = [line] if in_fence else re.findall(r"`([^`]+)`", line)
        for chunk in chunks:
            for m in _CALL.finditer(chunk):
                rest = m.group(2)
                end = _END.search(rest)
                for flag in _FLAG.findall(rest[:end.start()] if end else rest):
                    yield (m.group(1),), flag, line
        if not in_fence and line.startswith("|"):
            first, *others = line.strip("|").split("|")
            commands = tuple(re.findall(r"\bllkgen ([a-z][a-z-]*)", first))
            commands += tuple(re.findall(r"`([a-z]+)`", first.split("`llkgen", 1)[-1])) if commands else ()
            for flag in (_FLAG.findall("|".join(others)) if commands else ()):
                yield commands, flag, line


def test_the_docs_name_only_flags_the_commands_have():
    options, common = _options()
    wrong = []
    for page in doc_pages():
        for commands, flag, line in _named_flags(page.read_text("utf-8")):
            known = [c for c in commands if c in options]
            if known and not any(flag in options[c] or flag in common for c in known):
                wrong.append(f"{page.relative_to(ROOT)}: llkgen {'/'.join(known)} has no {flag}: {line.strip()}")
    assert not wrong, "\n".join(wrong)


def test_the_flag_check_can_fail():
    options, _ = _options()
    assert "--precision" in options["grade"] and "--se" not in options["grade"]
    found = list(_named_flags("| `llkgen grade LEVEL [--se X]` | measures |\n\n```bash\nllkgen make --colour x\n```\n"))
    assert (("grade",), "--se") in [(c, f) for c, f, _ in found]
    assert (("make",), "--colour") in [(c, f) for c, f, _ in found]


# -- marked blocks and the site's pages ---------------------------------------------------------
def test_every_marked_block_is_read_by_a_test():
    """A block's name, quoted, in a test module: what ``marked_block(name)`` is called with."""
    sources = "\n".join(p.read_text("utf-8") for p in TESTS.rglob("test_*.py") if p.name != "test_docs.py")
    blocks = marked_blocks()
    assert blocks, "no marked block found"
    unread = sorted(name for name in blocks if f'"{name}"' not in sources)
    assert not unread, f"marked blocks no test reads: {unread}"


def _nav_pages(nav) -> list[str]:
    pages = []
    for item in nav:
        if isinstance(item, str):
            pages.append(item)
        else:
            for value in item.values():
                pages += _nav_pages(value) if isinstance(value, list) else [value]
    return pages


def test_every_page_is_in_the_site_nav():
    config = yaml.load((ROOT / "mkdocs.yml").read_text("utf-8"), Loader=yaml.BaseLoader)
    nav = _nav_pages(config["nav"])
    pages = {p.relative_to(DOCS).as_posix() for p in doc_pages() if p != README}
    assert len(nav) == len(set(nav))
    assert set(nav) == pages, (set(nav) ^ pages)


# -- the README ---------------------------------------------------------------------------------
def test_the_readme_is_a_front_page():
    text = README.read_text("utf-8")
    lines = text.splitlines()
    assert len(lines) <= 250
    assert lines[0] == "# llkgen"
    first = re.search(r"^```bash\n(.*?)^```", text, re.S | re.M)
    assert first is not None
    assert first.group(1) == ("pip install . && llkgen make --config configs/easy.yaml\n"
                              "pip install -e '.[test]' && python -m pytest\n")


@pytest.mark.parametrize("page", doc_pages(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_relative_links_resolve(page):
    text = re.sub(r"^```.*?^```", "", page.read_text("utf-8"), flags=re.S | re.M)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = (page.parent / target.split("#", 1)[0]).resolve()
        assert path.exists(), f"{page.relative_to(ROOT)}: broken link {target}"
