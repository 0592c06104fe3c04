"""Strict YAML reading for specs: ``yaml.safe_load`` semantics plus what a spec needs.

Duplicate mapping keys are errors (PyYAML silently keeps the last one), nesting is capped,
and every key path is indexed with its source line, so that spec errors can say
``easy.yaml:10: unknown key "colls" at board.colls``. Every failure is a :class:`SpecError`.
"""

from __future__ import annotations

import json
import re
from typing import Any

import yaml

from llkgen.errors import SpecError

_MERGE_TAG = "tag:yaml.org,2002:merge"
#: A key path such as ("difficulty", "initial_moves", ListIndex(0)).
KeyPath = tuple


class ListIndex(int):
    """A list index inside a key path: formats as ``[i]``, while a mapping key ``3`` formats as
    ``.3``. Hashes and compares as the int."""


class KeyIndex:
    """Where each key path sits in the source, so messages can cite line numbers."""

    def __init__(self) -> None:
        self.key_nodes: dict[KeyPath, yaml.Node] = {}
        self.value_nodes: dict[KeyPath, yaml.Node] = {}
        self.path_of: dict[int, KeyPath] = {}

    def line(self, path: KeyPath) -> int | None:
        node = self.key_nodes.get(path) or self.value_nodes.get(path)
        return None if node is None else node.start_mark.line + 1


#: A spec nests at most four levels (tiles.distribution.<id>, difficulty.<metric>[i]). The cap
#: matters: PyYAML's scanner is quadratic in the depth of "[" / "{" nesting, and its composer is
#: recursive, so without it "[" * 100000 costs seconds before failing with RecursionError.
_MAX_DEPTH = 32


class _StrictLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that rejects a key repeated within one mapping and nesting deeper
    than :data:`_MAX_DEPTH`."""

    key_index: KeyIndex  # (PyYAML already uses "index" for the reader position)
    _depth = 0

    def fetch_flow_collection_start(self, TokenClass):
        if self.flow_level >= _MAX_DEPTH:
            raise yaml.scanner.ScannerError(
                None, None, f"nested more than {_MAX_DEPTH} levels deep", self.get_mark()
            )
        super().fetch_flow_collection_start(TokenClass)

    def compose_node(self, parent, index):
        if self._depth >= _MAX_DEPTH:
            raise yaml.composer.ComposerError(
                None,
                None,
                f"nested more than {_MAX_DEPTH} levels deep",
                self.peek_event().start_mark,
            )
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        if isinstance(node, yaml.MappingNode):
            seen: dict[Any, yaml.Node] = {}
            for key_node, _ in node.value:
                # Keys brought in by "<<" merges may legitimately be overridden, so only the
                # keys written in this mapping are compared.
                if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == _MERGE_TAG:
                    continue
                key = self.construct_object(key_node)
                if not _hashable(key):
                    continue  # the base class reports it
                first = seen.get(key)
                if first is not None:
                    path = self.key_index.path_of.get(id(node), ()) + (key,)
                    raise _DuplicateKey(path, key_node, first)
                seen[key] = key_node
        return super().construct_mapping(node, deep=deep)


def _guarded(tag: str):
    """Wrap PyYAML's constructor for a scalar ``tag``. Those constructors assume text their
    resolver matched, but an explicit tag skips the resolver: ``!!int ""`` raises IndexError,
    ``!!bool ""`` KeyError, ``!!timestamp x`` AttributeError. Each becomes a ConstructorError
    at the node, so it is reported like any other YAML error."""
    base = yaml.SafeLoader.yaml_constructors[tag]

    def construct(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
        try:
            return base(loader, node)
        except yaml.YAMLError:
            raise
        except Exception as e:
            detail = f": {e}" if isinstance(e, ValueError) else ""
            value = node.value if isinstance(node.value, str) else ""
            raise yaml.constructor.ConstructorError(
                None,
                None,
                f"cannot read {quote(value)} as {tag.rsplit(':', 1)[-1]}{detail}",
                node.start_mark,
            ) from None

    return construct


for _tag in ("null", "bool", "int", "float", "binary", "timestamp", "str"):
    _StrictLoader.add_constructor(
        f"tag:yaml.org,2002:{_tag}", _guarded(f"tag:yaml.org,2002:{_tag}")
    )


class _DuplicateKey(Exception):
    def __init__(self, path: KeyPath, node: yaml.Node, first: yaml.Node) -> None:
        super().__init__(path)
        self.path, self.node, self.first = path, node, first


def _index_nodes(loader: _StrictLoader, root: yaml.Node) -> KeyIndex:
    """Record the path of every node. Iterative and visits each node once, so deep nesting,
    aliases and recursive documents cost linear time."""
    index = KeyIndex()
    stack: list[tuple[yaml.Node, KeyPath]] = [(root, ())]
    while stack:
        node, path = stack.pop()
        if id(node) in index.path_of:
            continue
        index.path_of[id(node)] = path
        index.value_nodes.setdefault(path, node)
        if isinstance(node, yaml.SequenceNode):
            stack.extend((child, path + (ListIndex(i),)) for i, child in enumerate(node.value))
        elif isinstance(node, yaml.MappingNode):
            merged: list[yaml.Node] = []
            for key_node, value_node in node.value:
                if key_node.tag == _MERGE_TAG:
                    merged.append(value_node)
                elif isinstance(key_node, yaml.ScalarNode):
                    # A tagged scalar can still build an unhashable key ("!!seq x: 1"); the
                    # constructor reports it, the index just skips it.
                    key = loader.construct_object(key_node)
                    if _hashable(key):
                        index.key_nodes.setdefault(path + (key,), key_node)
                        stack.append((value_node, path + (key,)))
            # Keys brought in by "<<" cite the line where they are written (in the anchored
            # mapping); explicit keys, recorded above, win as they do in the data.
            for source in merged:
                for m in source.value if isinstance(source, yaml.SequenceNode) else [source]:
                    if isinstance(m, yaml.MappingNode):
                        for key_node, _ in m.value:
                            if isinstance(key_node, yaml.ScalarNode) and key_node.tag != _MERGE_TAG:
                                key = loader.construct_object(key_node)
                                if _hashable(key):
                                    index.key_nodes.setdefault(path + (key,), key_node)
    return index


def _hashable(v: Any) -> bool:
    try:
        hash(v)
    except TypeError:
        return False
    return True


def load_yaml(text: str, source: str) -> tuple[Any, KeyIndex]:
    try:
        # The reader rejects non-printable characters already in the constructor.
        loader = _StrictLoader(text)
    except yaml.reader.ReaderError as e:
        line = text.count("\n", 0, e.position) + 1
        raise SpecError(
            f"{source}:{line}: invalid YAML: {e.reason} (character U+{e.character:04X})"
        ) from None
    try:
        loader.key_index = KeyIndex()
        root = loader.get_single_node()
        if root is None:
            return None, loader.key_index
        loader.key_index = _index_nodes(loader, root)
        return loader.construct_document(root), loader.key_index
    except _DuplicateKey as e:
        raise SpecError(
            f"{source}:{e.node.start_mark.line + 1}: duplicate key {quote(e.path[-1])} at "
            f"{fmt_path(e.path)} (first written on line {e.first.start_mark.line + 1})"
        ) from None
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        where = f"{source}:{mark.line + 1}:{mark.column + 1}" if mark else source
        problem = e.problem or e.context or "unreadable document"
        if e.problem and e.context:
            problem += f" ({e.context})"
        raise SpecError(f"{where}: invalid YAML: {problem}") from None
    except yaml.YAMLError as e:
        raise SpecError(f"{source}: invalid YAML: {e}") from None
    except RecursionError:  # a safety net: _MAX_DEPTH should stop nesting long before
        raise SpecError(f"{source}: invalid YAML: nested too deeply") from None
    finally:
        loader.dispose()


def quote(v: Any) -> str:
    """Quote a key or string for a message: ``"cols"``; non-strings as found."""
    if isinstance(v, str):
        s = v if len(v) <= 40 else v[:40] + "..."
        return json.dumps(s, ensure_ascii=False)
    return describe(v)


def describe(v: Any) -> str:
    """A short, bounded description of a found value. Never reprs containers: an aliased YAML
    document can be exponentially large when printed."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v) if abs(v) < 10**30 else "a very large integer"
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, str):
        return quote(v)
    if isinstance(v, dict):
        return "a mapping"
    if isinstance(v, list):
        return "a list"
    return f"a {type(v).__name__}"


def fmt_path(path: KeyPath) -> str:
    """``board.layout``, ``difficulty.initial_moves[0]``, ``tiles.distribution.3``."""
    out = ""
    for part in path:
        if isinstance(part, ListIndex):
            out += f"[{int(part)}]"
            continue
        seg = part if isinstance(part, str) and re.fullmatch(r"[\w.-]+", part) else quote(part)
        out += f".{seg}" if out else seg
    return out or "top level"
