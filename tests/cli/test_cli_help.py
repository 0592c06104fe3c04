"""Every command's ``--help`` as a user sees it: the help texts in the source come out whole
(no markup eats a bracketed example such as ``pip install 'llkgen[dask]'`` or
``[[r1, c1], [r2, c2]]``), and a boolean flag shows as a flag, never as ``--resume <bool>``."""

from __future__ import annotations

import re

import pytest
from typer.main import get_command

from llkgen.cli import app

from cli_runner import run_cli_in_process

#: The terminal width the help is rendered at: narrow, so texts wrap as on a small terminal.
WIDTH = 72

GROUP = get_command(app)
COMMANDS = sorted(GROUP.commands)  # type: ignore[attr-defined]


def bracketed(text: str) -> list[str]:
    """Each outermost ``[...]`` in ``text``, nested brackets and all."""
    found, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "[":
            start = i if depth == 0 else start
            depth += 1
        elif ch == "]" and depth:
            depth -= 1
            if depth == 0:
                found.append(text[start:i + 1])
    return found


def flat(text: str) -> str:
    """``text`` with every run of white space one space: wrapping breaks lines only at spaces."""
    return " ".join(text.split())


def rendered_help(argv: list[str], monkeypatch, capsys) -> str:
    monkeypatch.setenv("COLUMNS", str(WIDTH))
    code, out, err = run_cli_in_process([*argv, "--help"], monkeypatch, capsys)
    assert (code, err) == (0, ""), argv
    return out


def source_texts(command) -> list[str]:
    """The help a command's source gives: its docstring, and each parameter's help and metavar."""
    texts = [command.help or ""]
    for p in command.params:
        texts += [getattr(p, "help", None) or "", p.metavar or ""]
    return texts


@pytest.mark.parametrize("name", ["", *COMMANDS])
def test_help_keeps_every_bracketed_example_of_its_source(name, monkeypatch, capsys):
    command = GROUP.commands[name] if name else GROUP  # type: ignore[attr-defined]
    shown = flat(rendered_help([name] if name else [], monkeypatch, capsys))
    examples = [b for text in source_texts(command) for b in bracketed(flat(text))]
    for example in examples:
        assert example in shown, (name, example)
    # the examples this test exists for are among them
    if name in ("make", "verify"):
        assert "[dask]" in "".join(examples) and "pip install 'llkgen[dask]'" in shown
    if name == "replay":
        assert "A JSON list of [[r1, c1], [r2, c2]] moves" in shown


@pytest.mark.parametrize("name", ["", *COMMANDS])
def test_a_boolean_flag_shows_no_metavar(name, monkeypatch, capsys):
    command = GROUP.commands[name] if name else GROUP  # type: ignore[attr-defined]
    text = rendered_help([name] if name else [], monkeypatch, capsys)
    lines = text.split("\nOptions:\n", 1)[1].splitlines()  # not the description above
    flags = [max(p.opts, key=len) for p in command.params if getattr(p, "is_flag", False)]
    for long in [*flags, "--help"]:  # click adds --help to every command
        [line] = [ln for ln in lines if re.match(rf"\s*(-\w, )?{re.escape(long)}\b", ln)]
        rest = line.split(long, 1)[1]
        assert rest == "" or rest.startswith("  "), (name, line)
    assert not re.search(r"<bool>|BOOLEAN", text), name


@pytest.mark.parametrize("name", COMMANDS)
def test_the_example_is_one_line_at_any_width(name, monkeypatch, capsys):
    # Copied from a terminal, an example runs as printed: click wraps the rest, never it.
    [example] = re.findall(r"^\s*Example: (.+)$", GROUP.commands[name].help, re.M)  # type: ignore[attr-defined]
    lines = rendered_help([name], monkeypatch, capsys).splitlines()
    assert f"  Example: {example}" in lines, name
    assert "\b" not in "\n".join(lines)
