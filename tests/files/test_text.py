"""Making text from files safe to write (:mod:`llkgen.text`), over every code point, including
lone surrogates and control characters, which Hypothesis leaves out of text by default."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from html import escape

from hypothesis import given, settings
from hypothesis import strategies as st

from llkgen.text import json_dumps, printable, xml_text

ANY_TEXT = st.text(st.characters(exclude_categories=()), max_size=40)
SETTINGS = settings(max_examples=300, deadline=None)


@SETTINGS
@given(ANY_TEXT)
def test_printable_always_encodes_and_shows_no_control_character(s):
    out = printable(s)
    out.encode("utf-8")
    assert not any(ord(ch) < 0x20 and ch not in "\t\n" for ch in out)
    if s.isprintable():
        assert out == s  # ordinary text is left alone


@SETTINGS
@given(ANY_TEXT)
def test_xml_text_is_well_formed_as_text_and_as_attribute(s):
    safe = escape(xml_text(s), quote=True)
    root = ET.fromstring(f'<a b="{safe}">{safe}</a>'.encode("utf-8"))
    if all(ch in "\t\n\r" or 0x20 <= ord(ch) < 0xD800 for ch in s):
        assert (root.text or "") == s.replace("\r\n", "\n").replace("\r", "\n")


@SETTINGS
@given(st.dictionaries(ANY_TEXT, ANY_TEXT, max_size=4))
def test_json_dumps_encodes_and_round_trips_exactly(obj):
    text = json_dumps(obj)
    text.encode("utf-8")
    assert json.loads(text) == obj


def test_the_escapes_say_which_character_it_was():
    assert printable("a\udcffb") == "a\\xffb"  # an undecodable file-name byte
    assert printable("a\ud800b") == "a\\ud800b"  # a lone surrogate from JSON
    assert printable("a\x00\x1b[31mb\tc\n") == "a\\x00\\x1b[31mb\tc\n"
    assert xml_text("a\x00\x01\ufffe\ud800\t") == "a\\x00\\x01\\ufffe\\ud800\t"
    assert json_dumps({"id": "\ud800é"}) == '{"id": "\\ud800é"}'
