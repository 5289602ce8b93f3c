"""Which values can hold an identifier at all, for many values at once (Arrow's RE2
functions, in C++): only those go through the Python checks (``find_spans``).

The conditions are a superset of what ``find_spans`` looks for (a value none of them
matches holds no identifier; ``tests/engine/test_identifiers.py`` checks it on notes,
hand-written sentences, the shared data and random text):

- a pattern's trigger: an @, ``://`` or ``www.``, two capitals and two digits (IBAN),
  four dotted numbers (IPv4), two colons (IPv6), ``ddd-dd-dddd`` (SSN), seven digits
  with separators between them once dates and times are masked as ``find_spans`` masks
  them;
- a title followed by a word;
- a word that is a listed given name, or one of the job's identifying name words;
- a token that is one of the job's identifying codes, or a run of digits that is one of
  its identifying numbers.
"""
from __future__ import annotations

import functools

import numpy as np

from engine.identifiers.names import IdentifyingValues, given_names
from engine.identifiers.patterns import (NO_CODES, NO_DIGIT_RUN, NO_GIVEN, NO_IBAN, NO_IPV4,
                                         NO_IPV6, NO_SSN, NO_TITLE, NO_VALUE_NAMES)

#: dates and times with the context ``find_spans`` requires around them (RE2 has no
#: look-around: the context characters are matched and put back)
#: (not after a colon: Python masks dates and times in one pass from the left, and a time
#: "1:12:33" taken first leaves "/4/21" of "1:12:33/4/21" unmasked, while RE2, dates first,
#: would mask "33/4/21": masking less than Python is safe, more is not)
_DATES = (r"(^|[^\p{Nd}\-/.:])([0-9]{4}[\-/.][0-9]{1,2}[\-/.][0-9]{1,2}|[0-9]{1,2}[\-/.]"
          r"[0-9]{1,2}[\-/.][0-9]{2,4})($|[^\p{Nd}\-/.])")
#: (Python's word boundary: between a character of \w, letters, numbers and _, and one
#: not; RE2's \b knows ASCII only)
_TIMES = (r"(^|[^\p{L}\p{N}_])([0-9]{1,2}:[0-9]{2}(?::[0-9]{2})?)($|[^\p{L}\p{N}_])")
_TITLES = (r"\b(?:Dr|Mr|Mrs|Ms|Mx|Miss|Prof|Sir|Dame|Sister|Nurse|Doctor|Professor|Herr|"
           r"Frau|Mme|Mlle|M)\.?[ \t]+\S")
#: words as ``names._WORD`` finds them: letter groups joined by one apostrophe or hyphen
#: (Python's letters of ``[^\W\d_]``: L, Nl and No; a combining mark breaks a word)
#: (two joiners or more in a row are a break too: replaced by a blank first, RE2 splits
#: on one character class many times faster than on an alternation)
_WORD_BREAKS = r"[^\p{L}\p{Nl}\p{No}'’\-]+"
_JOINER_RUNS = r"['’\-]{2,}"
_LETTER_BREAKS = r"[^\p{L}\p{Nl}\p{No}]+"
_TOKEN_BREAKS = r"[^\p{L}\p{N}_\-./]+"


def _bools(array) -> np.ndarray:
    """An Arrow boolean array as numpy (nulls False), without pandas."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from engine.data.arrow_numpy import to_numpy
    return to_numpy(pc.cast(pc.fill_null(array, False), pa.uint8())).astype(bool)


@functools.lru_cache(maxsize=16)
def _value_set(wanted: frozenset):
    """``wanted`` as an Arrow array, built once: the DuckDB scrub calls the screen once per
    vector of 2,048 rows, and a job's identifying numbers may be hundreds of thousands
    (a frozenset keeps its hash: the look-up is by identity)."""
    import pyarrow as pa
    return pa.array(sorted(wanted), type=pa.string())


def _word_hits(texts, breaks: str, trim: str, wanted: list) -> list[np.ndarray]:
    """Per set of ``wanted`` (lower case): whether each value of ``texts`` has a word (the
    pieces between ``breaks``, trimmed of ``trim``) in it."""
    import pyarrow.compute as pc

    from engine.data.arrow_numpy import to_numpy
    words = pc.split_pattern_regex(texts, pattern=breaks)
    flat = pc.list_flatten(words)
    if trim:
        flat = pc.utf8_trim(flat, characters=trim)
    flat = pc.utf8_lower(flat)
    parents = None
    out = []
    for w in wanted:
        hit = _bools(pc.is_in(flat, value_set=_value_set(w))) \
            if w else np.zeros(len(flat), dtype=bool)
        found = np.zeros(len(texts), dtype=bool)
        if hit.any():
            if parents is None:
                parents = to_numpy(pc.list_parent_indices(words)).astype(np.int64)
            found[parents[hit]] = True
        out.append(found)
    return out


#: per `pattern_spans` stage, an RE2 pattern every match of its Python pattern holds
#: (``\p{Nd}``: Python's ``\d`` takes every decimal digit, not only 0-9); the last two
#: on the text with dates and times masked
_STAGES = ((NO_IBAN, r"[A-Z]{2}\p{Nd}{2}"),
           (NO_IPV4, r"\p{Nd}{1,3}\.\p{Nd}{1,3}\.\p{Nd}{1,3}\.\p{Nd}{1,3}"),
           (NO_IPV6, r":[0-9A-Fa-f]{0,4}:"))
_MASKED_STAGES = ((NO_SSN, r"\p{Nd}{3}-\p{Nd}{2}-\p{Nd}{4}"),
                  (NO_DIGIT_RUN, r"\p{Nd}(?:[ ().\-/]*\p{Nd}){6}"))
_OTHERS = r"@|://|(?i:www\.)"


def strings(texts):
    """``texts`` (a list of str or an Arrow array) as an Arrow string array, nulls
    empty."""
    import pyarrow as pa
    import pyarrow.compute as pc
    if not isinstance(texts, (pa.Array, pa.ChunkedArray)):
        texts = pa.array([None if t is None else str(t) for t in texts], type=pa.string())
    if isinstance(texts, pa.ChunkedArray):
        texts = texts.combine_chunks()
    if texts.type != pa.string():  # large strings, dictionaries: plain strings
        texts = pc.cast(texts, pa.string())
    return pc.fill_null(texts, "")


def screen(texts, values: IdentifyingValues | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per value of ``texts`` (a list of str or an Arrow string array): whether it may
    hold an identifier (False: it holds none), and what it cannot hold (the ``absent``
    bits of ``find_spans``: patterns, titles, listed given names, the job's name words
    and codes), each found for all values at once in C++."""
    import pyarrow.compute as pc
    texts = strings(texts)
    absent = np.zeros(len(texts), dtype=np.uint16)
    if not len(texts):
        return np.zeros(0, dtype=bool), absent

    def matches(array, pattern: str) -> np.ndarray:
        return _bools(pc.match_substring_regex(array, pattern=pattern))

    masked = pc.replace_substring_regex(texts, pattern=_DATES, replacement=r"\1x\3")
    masked = pc.replace_substring_regex(masked, pattern=_TIMES, replacement=r"\1x\3")
    out = matches(texts, _OTHERS)
    for bit, array, pattern in ([(b, texts, p) for b, p in _STAGES]
                                + [(b, masked, p) for b, p in _MASKED_STAGES]
                                + [(NO_TITLE, texts, _TITLES)]):
        hit = matches(array, pattern)
        absent[~hit] |= bit
        out |= hit
    given = given_names()
    named = frozenset() if values is None else values.named_tokens
    lettered = np.flatnonzero(matches(texts, r"[\pL\p{Nl}\p{No}]"))  # names: letters
    words = texts.take(lettered)
    joined = pc.replace_substring_regex(words, pattern=_JOINER_RUNS, replacement=" ")
    hits = [a | b for a, b in zip(_word_hits(joined, _WORD_BREAKS, "'’-", [given, named]),
                                  _word_hits(words, _LETTER_BREAKS, "", [given, named]))]
    for bit, hit in zip((NO_GIVEN, NO_VALUE_NAMES), hits):
        found = np.zeros(len(texts), dtype=bool)
        found[lettered[hit]] = True
        absent[~found] |= bit
        out |= found
    codes = np.zeros(len(texts), dtype=bool)
    if values is not None and values.codes:
        codes = _word_hits(texts, _TOKEN_BREAKS, "-./", [values.codes])[0]
        out |= codes
    absent[~codes] |= NO_CODES
    if values is not None and values.numbers and not out.all():  # a digit run that is
        rest = np.flatnonzero(~out)                               # one of them
        out[rest] = _word_hits(texts.take(rest), r"[^\p{Nd}]+", "", [values.numbers])[0]
    return out, absent


def candidates(texts, values: IdentifyingValues | None = None) -> np.ndarray:
    """Per value of ``texts`` (a list of str or an Arrow string array): whether it may
    hold an identifier (False: it holds none)."""
    return screen(texts, values)[0]
