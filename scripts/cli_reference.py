"""Write the generated part of docs/cli.md from the commands' own help, so it cannot drift.

The part between ``<!-- cli-reference:start -->`` and ``<!-- cli-reference:end -->`` is
replaced by a table of the commands (each one's short help) and, for each command, its
``--help`` as Click formats it without colour or boxes, at a fixed width of 100 columns. The
hand-written prose around the markers (shared flags, exit codes, budgets) is left as it is.

    python scripts/cli_reference.py            # rewrite docs/cli.md
    python scripts/cli_reference.py --check    # exit 1 if docs/cli.md is out of date

``tests/project/test_docs.py`` runs the same rendering in memory and compares it with the file.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import typer

PAGE = Path(__file__).resolve().parent.parent / "docs" / "cli.md"
START, END = "<!-- cli-reference:start -->", "<!-- cli-reference:end -->"
WIDTH = 100


def root_command() -> Any:
    """The Click group behind the Typer app (Typer's own copy of Click in recent releases)."""
    from llkgen.cli import app

    return typer.main.get_command(app)


def _plain_format_help(command: Any) -> Any:
    """Click's own ``Command.format_help``, which Typer overrides to draw rich boxes."""
    for cls in type(command).__mro__:
        if cls.__name__ == "Command" and cls.__module__.endswith("click.core"):
            return cls.format_help
    raise TypeError(f"{type(command)} is not a Click command")


def command_help(group: Any, name: str) -> str:
    """``llkgen NAME --help`` in Click's plain format, without colour or boxes."""
    command = group.commands[name]
    root = group.context_class(group, info_name="llkgen", terminal_width=WIDTH, max_content_width=WIDTH)
    ctx = command.context_class(command, info_name=name, parent=root, terminal_width=WIDTH,
                                max_content_width=WIDTH)
    formatter = ctx.make_formatter()
    _plain_format_help(command)(command, ctx, formatter)
    return "\n".join(line.rstrip() for line in formatter.getvalue().rstrip().splitlines())


def generated(group: Any = None) -> str:
    """The Markdown that goes between the markers."""
    group = group or root_command()
    names = list(group.commands)
    out = ["| command | what it does |", "|---|---|"]
    for name in names:
        short = group.commands[name].get_short_help_str(limit=300).replace("|", "\\|")
        out.append(f"| [`{name}`](#llkgen-{name}) | {short} |")
    for name in names:
        out += ["", f"### llkgen {name}", "", "```text", command_help(group, name), "```"]
    return "\n".join(out)


def render(page: str, group: Any = None) -> str:
    """``page`` with its generated part replaced."""
    head, sep, rest = page.partition(START)
    if not sep or END not in rest:
        raise SystemExit(f"{PAGE}: expected the markers {START} and {END}")
    tail = rest.split(END, 1)[1]
    return f"{head}{START}\n{generated(group)}\n{END}{tail}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if docs/cli.md is out of date")
    args = parser.parse_args()
    old = PAGE.read_text("utf-8")
    new = render(old)
    if args.check:
        if new != old:
            print(f"{PAGE} is out of date: run python scripts/cli_reference.py", file=sys.stderr)
            return 1
        return 0
    if new != old:
        PAGE.write_text(new, "utf-8")
        print(f"wrote {PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
