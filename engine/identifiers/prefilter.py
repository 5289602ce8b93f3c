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

import numpy as np

from engine.identifiers.names import IdentifyingValues, given_names

#: dates and times with the context ``find_spans`` requires around them (RE2 has no
#: look-around: the context characters are matched and put back)
_DATES = (r"(^|[^0-9\-/.])([0-9]{4}[\-/.][0-9]{1,2}[\-/.][0-9]{1,2}|[0-9]{1,2}[\-/.]"
          r"[0-9]{1,2}[\-/.][0-9]{2,4})($|[^0-9\-/.])")
_TIMES = r"\b[0-9]{1,2}:[0-9]{2}(?::[0-9]{2})?\b"
_PATTERNS = (r"@|://|(?i:www\.)|[A-Z]{2}[0-9]{2}|[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}"
             r"|:[0-9A-Fa-f]*:")
_NUMBERS = r"[0-9]{3}-[0-9]{2}-[0-9]{4}|[0-9](?:[ ().\-/]*[0-9]){6}"
_TITLES = (r"\b(?:Dr|Mr|Mrs|Ms|Mx|Miss|Prof|Sir|Dame|Sister|Nurse|Doctor|Professor|Herr|"
           r"Frau|Mme|Mlle|M)\.?[ \t]+\S")
#: words as ``names._WORD`` finds them: letter groups joined by one apostrophe or hyphen
_WORD_BREAKS = r"[^\p{L}\p{M}'’\-]+|['’\-]{2,}"
_LETTER_BREAKS = r"[^\p{L}\p{M}]+"
_TOKEN_BREAKS = r"[^\p{L}\p{M}\p{N}_\-./]+"


def _bools(array) -> np.ndarray:
    """An Arrow boolean array as numpy (nulls False), without pandas."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from engine.data.arrow_numpy import to_numpy
    return to_numpy(pc.cast(pc.fill_null(array, False), pa.uint8())).astype(bool)


def _any_word(texts, breaks: str, trim: str, wanted) -> np.ndarray:
    import pyarrow as pa
    import pyarrow.compute as pc

    from engine.data.arrow_numpy import to_numpy
    words = pc.split_pattern_regex(texts, pattern=breaks)
    flat = pc.list_flatten(words)
    if trim:
        flat = pc.utf8_trim(flat, characters=trim)
    hit = _bools(pc.is_in(pc.utf8_lower(flat), value_set=pa.array(sorted(wanted),
                                                                  type=pa.string())))
    out = np.zeros(len(texts), dtype=bool)
    if hit.any():
        parents = to_numpy(pc.list_parent_indices(words)).astype(np.int64)
        out[parents[hit]] = True
    return out


def candidates(texts, values: IdentifyingValues | None = None) -> np.ndarray:
    """Per value of ``texts`` (a list of str or an Arrow string array): whether it may
    hold an identifier (False: it holds none)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    if not isinstance(texts, (pa.Array, pa.ChunkedArray)):
        texts = pa.array([None if t is None else str(t) for t in texts], type=pa.string())
    if isinstance(texts, pa.ChunkedArray):
        texts = texts.combine_chunks()
    if texts.type != pa.string():  # large strings, dictionaries: plain strings
        texts = pc.cast(texts, pa.string())
    texts = pc.fill_null(texts, "")
    if not len(texts):
        return np.zeros(0, dtype=bool)

    def matches(array, pattern: str) -> np.ndarray:
        return _bools(pc.match_substring_regex(array, pattern=pattern))

    masked = pc.replace_substring_regex(texts, pattern=_DATES, replacement=r"\1x\3")
    masked = pc.replace_substring_regex(masked, pattern=_TIMES, replacement="x")
    out = matches(texts, _PATTERNS) | matches(masked, _NUMBERS) | matches(texts, _TITLES)
    names = set(given_names())
    if values is not None:
        names |= values.name_tokens | values.capitalised_tokens
    rest = ~out
    if rest.any():
        idx = np.flatnonzero(rest)
        part = texts.take(pa.array(idx))
        found = _any_word(part, _WORD_BREAKS, "'’-", names) | \
            _any_word(part, _LETTER_BREAKS, "", names)
        if values is not None and values.codes:
            found |= _any_word(part, _TOKEN_BREAKS, "-./", values.codes)
        if values is not None and values.numbers:  # a digit run that is one of them
            found |= _any_word(part, r"[^0-9]+", "", values.numbers)
        out[idx[found]] = True
    return out
