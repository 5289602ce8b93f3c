"""Names inside a text: the job's own identifying values (a patient's name or record
number in a note) and names of persons who appear in no column (a doctor named in a
note), recognised by a title ("Dr. Hale", "Mrs O'Neill") or a common given name
(``resources/names/given_names.txt``) followed by a capitalised word ("Mary Jones"),
or alone within free text.

Whole tokens only; names case-insensitively, tokens of at least 3 characters and not
ordinary English words; numbers (a record number) as exact tokens.
"""
from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from engine.identifiers.patterns import (ID, NAME, NO_CODES, NO_GIVEN, NO_TITLE,
                                         NO_VALUE_NAMES, Span)

#: words never taken for a name token, whatever the data or the list say
#: words that are never a name, whatever the data say (function words, the notes'
#: own vocabulary, titles and kin)
FUNCTION_WORDS = frozenset("""
the and for with from that this than then there their they them was were would
might can could should shall must not but all any are has have had his her hers him
she who whom what when where which while why how very more most much many some such
new old one two three four five six seven eight nine ten first last next per via
patient patients visit visits doctor nurse clinic hospital ward room home note notes
left right pain daily twice week weeks month months year years day days today
street road lane avenue drive court place house city town north south east west
mr mrs ms miss dr prof sir dame mx sister brother mother father son daughter wife husband
""".split())
#: two-letter words a two-letter name (Li, Wu, Ng) is not taken for
TWO_LETTER_WORDS = frozenset("""
an as at be by do go he if in is it me my no of on or so to up us we am dr mr ms mx jr sr
st pm ok iv im
""".split())
#: ordinary words that are also names (Will, May, Grace, Brown, White): a name only when
#: written capitalised, and never a listed given name alone
COMMON_WORDS = FUNCTION_WORDS | frozenset("""
will may mark grace hope faith joy rose june april august bill frank jack ray don
art guy dawn amber ruby crystal holly pearl ivy iris daisy lily violet summer autumn
winter spring sunny rich young king queen prince major brown green white black gray grey
hill park
""".split())

_TITLE = re.compile(r"\b(?:Dr|Mr|Mrs|Ms|Mx|Miss|Prof|Sir|Dame|Sister|Nurse|Doctor|"
                    r"Professor|Herr|Frau|Mme|Mlle|M)\.?[ \t]+"
                    r"((?:[A-Z][a-z]*\.?[ \t]+)?(?:(?:[Oo]'|Mc|Mac|[Vv]an[ \t]+|[Dd]e[ \t]+)?"
                    r"[A-Z][\w'\-]+))")
_UPPER, _LOWER = "A-ZÀ-ÖØ-Þ", "a-zß-öø-ÿ"
_CAPITALISED_WORD = re.compile(rf"\b[{_UPPER}][{_LOWER}]{{2,}}\b")
_SURNAME_AFTER = re.compile(rf"[ \t]+([{_UPPER}][\w'\-]+)")
_SURNAME_BEFORE = re.compile(rf"\b([{_UPPER}][{_LOWER}][\w'\-]*),[ \t]+$")
_PLACES = ("Road|Rd|Street|St|Avenue|Ave|Lane|Drive|Way|Place|Square|Park|Gardens|Court|"
           "Close|Hospital|Clinic|Infirmary|Centre|Center|House|Ward|Unit|College|School|"
           "University|Church|Station|Hall|Bridge|Hill|Street|Strasse|Straße|Platz|Weg")
_PLACE_BEFORE = re.compile(r"\b(?:St|Saint|Sankt|San|Santa)\.?[ \t]+$")
_PLACE_AFTER = re.compile(rf"(?:'s)?[ \t]+(?:{_PLACES})\b|'s[ \t]+[A-Z]")
_WORD = re.compile(r"[^\W\d_]+(?:['’\-][^\W\d_]+)*")
_TOKEN = re.compile(r"\w[\w\-./]*\w|\w")
_NUMBER = re.compile(r"(?<![\w.])\d{3,}(?![\w]|\.\d)")
#: the detail of a row's own identifying number found in its own value
OWN_DETAIL = "the row's own identifier"
_WORDS = re.compile(r"[^\W\d_]{2,}")
#: free text: two letters in a row somewhere
_FREE_TEXT = re.compile(r"[^\W\d_]{2}")


@functools.lru_cache(maxsize=1)
def given_names() -> frozenset[str]:
    """The shipped list of common given names (lower case)."""
    import resources
    path = Path(resources.__file__).parent / "names" / "given_names.txt"
    return frozenset(w for w in path.read_text(encoding="utf-8").split()
                     if w not in COMMON_WORDS)


def listed_name_spans(text: str, free_text: bool | None, absent: int = 0) -> list[Span]:
    """Names of persons by a title, or by a listed given name followed by a capitalised
    word; a listed given name alone only in free text (``free_text``; None: told by
    ``is_free_text`` when it matters). ``absent``: the bits ``NO_TITLE`` and
    ``NO_GIVEN`` of what the text is known not to hold."""
    spans = [] if absent & NO_TITLE else \
        [Span(m.start(1), m.end(1), NAME, "title") for m in _TITLE.finditer(text)]
    if absent & NO_GIVEN:
        return spans
    names = given_names()
    words = _CAPITALISED_WORD.findall(text)
    if names.isdisjoint(w.lower() for w in words):
        return spans  # no listed given name: nothing more to look at
    for m in _CAPITALISED_WORD.finditer(text):
        first = m.group()
        if first.lower() not in names or \
                _PLACE_BEFORE.search(text, max(0, m.start() - 8), m.start()) or \
                _PLACE_AFTER.match(text, m.end()):
            continue  # St Mary's Hospital, Victoria Road: places named after persons
        start, end = m.start(), m.end()
        after = _SURNAME_AFTER.match(text, end)
        before = _SURNAME_BEFORE.search(text, max(0, start - 40), start)  # "Smith, John"
        if after and after.group(1).lower() not in FUNCTION_WORDS and \
                not after.group(1).isupper():
            end = after.end()
        elif before and before.group(1).lower() not in FUNCTION_WORDS:
            start = before.start(1)
        else:
            if free_text is None:
                free_text = is_free_text(text)
            if not free_text:
                continue
        spans.append(Span(start, end, NAME, "given name"))
    return spans


def is_free_text(text: str) -> bool:
    """At least three words: a note, not a category or a code."""
    return len(_WORDS.findall(text)) >= 3


def _is_name_value(value: str) -> bool:
    words = _WORD.findall(value)
    return 0 < len(words) <= 5 and not any(c.isdigit() for c in value)


@dataclass(frozen=True)
class IdentifyingValues:
    """The values of a job's identifying attributes (and its person column), as they
    are looked for inside released columns.

    ``name_tokens``: the words of name-like columns (lower case, >= 3 letters, not
    common words); ``codes``: other values with a letter (exact tokens, >= 3
    characters); ``numbers``: values that are digits only (>= 3 digits), matched as
    exact tokens within free text of the same row only (``own``), so that a record
    number 120 is not found in every blood pressure of 120."""

    name_tokens: frozenset[str] = frozenset()
    #: name words that are ordinary words too (Brown, Will) or two letters (Li): found
    #: only when written capitalised
    capitalised_tokens: frozenset[str] = frozenset()
    codes: frozenset[str] = frozenset()
    numbers: frozenset[str] = frozenset()
    #: the identifying columns whose values are numbers (for the same-row match)
    number_columns: tuple[str, ...] = ()
    sources: dict = field(default_factory=dict)  # token -> the column it came from
    #: the numbers are not held (``build(..., hold_numbers=False)``: out of core, where
    #: they grow with the persons): a row's own value of a number column counts as one
    #: of them by its form (digits only, at least 3), as it would be in ``numbers``
    own_by_form: bool = False

    @functools.cached_property
    def named_tokens(self) -> frozenset[str]:
        """``name_tokens`` and ``capitalised_tokens`` together."""
        return self.name_tokens | self.capitalised_tokens

    @property
    def empty(self) -> bool:
        return not (self.name_tokens or self.capitalised_tokens or self.codes
                    or self.numbers or self.own_by_form)

    @classmethod
    def build(cls, columns: dict[str, Iterable[str]],
              hold_numbers: bool = True) -> "IdentifyingValues":
        """From each identifying column's distinct values: a column is name-like when
        most of its values are a few words without digits. ``hold_numbers=False``: the
        numbers are not kept (``own_by_form``), only which columns hold them."""
        return cls.build_streamed({name: (lambda v=values: [v]) for name, values in
                                   ((n, list(v)) for n, v in columns.items())},
                                  hold_numbers)

    @classmethod
    def build_streamed(cls, columns: dict, hold_numbers: bool = True
                       ) -> "IdentifyingValues":
        """`build` from each column's distinct values given in chunks: per column a
        function returning the chunks anew (read twice: whether the column is name-like,
        then its words or codes), so that no more than a chunk of values is held."""
        tokens, capitalised = set(), set()
        codes, numbers, number_columns, sources = set(), set(), [], {}

        def stripped(chunk):
            return [v for v in (str(v).strip() for v in chunk) if v]

        for name, chunks in columns.items():
            n = names = 0
            for chunk in chunks():
                chunk = stripped(chunk)
                n += len(chunk)
                names += sum(map(_is_name_value, chunk))
            if not n:
                continue
            named = names >= 0.8 * n
            has_numbers = False
            for chunk in chunks():
                for v in stripped(chunk):
                    if named:
                        for w in _WORD.findall(v):
                            w = w.lower()
                            if w in FUNCTION_WORDS or len(w) < 2:
                                continue
                            if len(w) == 2:
                                if w not in TWO_LETTER_WORDS:
                                    capitalised.add(w)
                            elif w in COMMON_WORDS:
                                capitalised.add(w)
                            else:
                                tokens.add(w)
                            sources.setdefault(w, name)
                    elif v.isdigit():
                        if len(v) >= 3:
                            if hold_numbers:
                                numbers.add(v)
                            has_numbers = True
                    elif len(v) >= 3 and re.search(r"[^\W_]", v):
                        codes.add(v.lower())
                        sources.setdefault(v.lower(), name)
            if has_numbers:
                number_columns.append(name)
        return cls(frozenset(tokens), frozenset(capitalised), frozenset(codes),
                   frozenset(numbers), tuple(number_columns), sources,
                   own_by_form=not hold_numbers and bool(number_columns))

    def spans(self, text: str, own: Iterable[str] = (), absent: int = 0) -> list[Span]:
        """Identifying values inside ``text``: name words (merged when adjacent), codes,
        and the row's own numbers ``own`` (within free text). ``absent``: the bits
        ``NO_VALUE_NAMES`` and ``NO_CODES`` of what the text is known not to hold."""
        out: list[Span] = []
        lowered = text.lower()
        words = _WORD.findall(lowered) if (self.name_tokens or self.capitalised_tokens) \
            and not absent & NO_VALUE_NAMES else ()
        if not self.name_tokens.isdisjoint(words) or \
                not self.capitalised_tokens.isdisjoint(words):
            if text.isascii():  # the lower-cased words are the text's, one for one
                every = self.name_tokens | self.capitalised_tokens
                found = list(_WORD.finditer(text))
                pairs = [(found[i], w) for i, w in enumerate(words) if w in every]
            else:
                pairs = [(m, m.group().lower()) for m in _WORD.finditer(text)]
            for m, low in pairs:
                if low in self.name_tokens or (
                        m.group()[0].isupper() and low in self.capitalised_tokens):
                    if out and out[-1].kind == NAME and not text[out[-1].end:m.start()].strip(
                            " \t,"):
                        out[-1] = Span(out[-1].start, m.end(), NAME, out[-1].detail)
                    else:
                        out.append(Span(m.start(), m.end(), NAME,
                                        f"a value of '{self.sources[low]}'"))
        if self.codes and not absent & NO_CODES and \
                not self.codes.isdisjoint(_TOKEN.findall(lowered)):
            for m in _TOKEN.finditer(text):
                if m.group().lower() in self.codes:
                    out.append(Span(m.start(), m.end(), ID,
                                    f"a value of '{self.sources[m.group().lower()]}'"))
        out += self.own_spans(text, own)
        return out

    def own_spans(self, text: str, own: Iterable[str] = ()) -> list[Span]:
        """The row's own identifying numbers ``own`` inside ``text`` (free text only)."""
        own = {o for o in own if self.is_number(o)}
        if not (own and _FREE_TEXT.search(text)):
            return []
        return [Span(m.start(), m.end(), ID, OWN_DETAIL) for m in _NUMBER.finditer(text)
                if m.group() in own]

    def is_number(self, own: str) -> bool:
        """Whether ``own`` (a row's value of a number column, stripped) is one of the
        identifying numbers."""
        return own in self.numbers or (self.own_by_form and len(own) >= 3 and own.isdigit())

    def row_numbers(self, text: str, own: Iterable[str]) -> set[str]:
        """The row's own identifying numbers ``own`` that ``text`` holds as tokens:
        ``set(own) & candidate_numbers(text)`` without the other rows' numbers."""
        own = {o for o in own if o and o in text and self.is_number(o)}
        if not (own and _FREE_TEXT.search(text)):
            return set()
        return own & set(_NUMBER.findall(text))

    def candidate_numbers(self, text: str) -> frozenset[str]:
        """The identifying numbers ``text`` holds as tokens (any row's): the candidates
        of the same-row match."""
        if not self.numbers:
            return frozenset()
        if not _FREE_TEXT.search(text):
            return frozenset()
        return frozenset(t for t in _NUMBER.findall(text) if t in self.numbers)
