"""Direct identifiers inside released columns: found, counted, scrubbed.

Every column released as it is (sensitive and insensitive attributes, quasi-identifiers
at level 0) is scanned before anything is written (``engine.output``), and ``anonymist
verify`` scans a released file the same way (``engine.verify``). What is looked for:

- patterns with their checks (``engine.identifiers.patterns``): e-mail addresses,
  telephone numbers (``phonenumbers``), IBANs (mod 97), payment card numbers (Luhn),
  IP addresses, URLs, US SSNs, UK NHS numbers, Dutch BSNs, German Steuer-IDs;
- the job's identifying values inside other columns (``names.IdentifyingValues``):
  a patient's name, or the row's own record number, in a note;
- names of persons in no column (``names.listed_name_spans``): a title ("Dr. Hale") or
  a common given name followed by a capitalised word, or alone within free text.

Scanning reads each distinct value once (``scan.scan_column``); scrubbing replaces
every span by its kind in brackets (``[PHONE]``) and counts the replacements.
"""
from __future__ import annotations

import re

from engine.identifiers.names import (COMMON_WORDS, IdentifyingValues, is_free_text,
                                      listed_name_spans)
from engine.identifiers.patterns import (CARD, EMAIL, ID, IBAN, IP, KIND_LABELS, KINDS, NAME,
                                         PHONE, URL, Span, Taken, pattern_spans)

__all__ = ["KINDS", "KIND_LABELS", "NAME", "EMAIL", "PHONE", "IBAN", "CARD", "IP", "URL", "ID",
           "Span", "IdentifyingValues", "find_spans", "with_own", "scrub_text", "is_free_text"]

_NEXT_CAPITALISED = re.compile(r"[ \t]([A-Z][a-z][\w'\-]*)\b")


def find_spans(text: str, values: IdentifyingValues | None = None,
               own=(), absent: int = 0) -> list[Span]:
    """Every identifier in ``text``, without overlaps, in text order: patterns first,
    then the job's identifying values (``own``: the row's own identifying numbers), then
    listed names. ``absent``: patterns known absent from ``text`` (`pattern_spans`)."""
    if not text:
        return []
    spans = pattern_spans(text, in_text=None, absent=absent)
    return combined(text, spans, (values.spans(text, own, absent) if values is not None
                                  else []) + listed_name_spans(text, None, absent))


def combined(text: str, spans: list[Span], more: list[Span]) -> list[Span]:
    """The pattern ``spans`` of ``text`` (sorted, without overlaps) with the name and
    value spans ``more`` that overlap none of them (names merged first), in text order."""
    if not more:
        return spans
    taken = Taken()
    for s in spans:
        taken.take(s.start, s.end)
    for s in sorted(_merged_names(text, more), key=lambda s: s.start):
        if taken.take(s.start, s.end):
            spans.append(s)
    spans.sort(key=lambda s: s.start)
    return spans


def with_own(text: str, spans: list[Span], values: IdentifyingValues,
             own, extra: list[Span] | None = None) -> list[Span]:
    """``find_spans(text, values, own)`` from ``spans = find_spans(text, values)``: the
    row's own numbers (``own``) added where they overlap none of ``spans``. The same
    spans: an own number is a whole run of digits with no letter, dot or digit on
    either side, so no name or value span can start inside it, and one starting at the
    same place (a code) comes first in ``find_spans`` too. ``extra``: the own numbers'
    spans when known (``values.own_spans(text, own)``)."""
    if extra is None:
        extra = values.own_spans(text, own)
    if not extra:
        return spans
    taken = Taken()
    for s in spans:
        taken.take(s.start, s.end)
    out = list(spans) + [s for s in extra if taken.take(s.start, s.end)]
    out.sort(key=lambda s: s.start)
    return out


def _merged_names(text: str, spans: list[Span]) -> list[Span]:
    """Name spans that overlap or touch (only blanks between) merged into one: "Kevin"
    (an identifying value) and "Kevin Marsh" (a listed name) are one [NAME]."""
    names = sorted((s for s in spans if s.kind == NAME), key=lambda s: (s.start, -s.end))
    out: list[Span] = [s for s in spans if s.kind != NAME]
    merged: list[Span] = []
    for s in names:
        if merged and s.start <= merged[-1].end + 1 and \
                not text[merged[-1].end:s.start].strip():
            last = merged[-1]
            merged[-1] = Span(last.start, max(last.end, s.end), NAME, last.detail)
        else:
            merged.append(s)
    for i, s in enumerate(merged):  # a surname after a known given name: "Hans Sutton"
        m = _NEXT_CAPITALISED.match(text, s.end)
        if m and m.group(1).lower() not in COMMON_WORDS:
            merged[i] = Span(s.start, m.end(), NAME, s.detail)
    return merged + out


def scrub_text(text: str, spans: list[Span]) -> str:
    """``text`` with each span replaced by its kind in brackets ("[PHONE]")."""
    out, at = [], 0
    for s in sorted(spans, key=lambda s: s.start):
        out.append(text[at:s.start])
        out.append(f"[{s.kind}]")
        at = s.end
    out.append(text[at:])
    return "".join(out)
