"""``find_spans`` for many ASCII values at once, compiled (numba): the same spans, found
in machine code instead of a dozen Python regular expressions per value.

``find_spans`` (``engine.identifiers``) stays the reference: every rule here is a
hand-written scanner reproducing one of its patterns on ASCII text as Python's ``re``
matches it (its backtracking, look-arounds and ``finditer`` order), and
``tests/engine/test_identifiers_fast.py`` checks that the scrubbed values, the
replacement counts and the findings equal the reference row by row on generated
notes, hand-written sentences and random strings. A value the scanners do not cover
goes to ``find_spans`` itself (screened in C++ first, ``prefilter.screen``): one with a
character outside ASCII, or one that may hold a URL, an IP address, an SSN or one of the
job's codes (`scan_kernel`).

What stays in Python: ``phonenumbers``' judgement of the runs of digits the kernels
could not rule out or take for a number by ``patterns.digit_run_kind``'s and
``patterns._phone``'s own tests (`_run_code`; ``patterns.asks_phone``), the runs that
may end in an extension (``digit_run_kind`` itself), and the values handed over.

The kernels are compiled on first use and cached on disk (numba's cache, as the
engine's other kernels; ``python -m engine.warmup`` compiles them). A process that has not
loaded numba (``anonymist verify``) screens the values in C++ first and loads it only for
many values left to look at (`use_fast`, `find_values`).
"""
from __future__ import annotations

import functools
import os
import threading

import numpy as np

from engine.identifiers.names import COMMON_WORDS, FUNCTION_WORDS, IdentifyingValues, given_names
from engine.identifiers.patterns import (_IBAN_LENGTHS, KINDS, asks_phone, digit_run_kind,
                                         is_phone)

#: values from which the compiled scanner pays (below: ``find_spans`` each), when numba is
#: loaded already, and values left by the screen when it is not (`use_fast`)
FAST_FROM, FAST_COLD_FROM = 256, 20_000
#: kind codes of the kernels (index into ``KINDS``)
_K = {k: i for i, k in enumerate(KINDS)}
_NAME, _EMAIL, _IBAN, _PHONE, _CARD, _ID = (_K[k] for k in ("NAME", "EMAIL", "IBAN", "PHONE",
                                                             "CARD", "ID"))


# --- characters (ASCII; -1 is outside the text) ------------------------------------------
def _isd(c):
    return 48 <= c <= 57


def _isup(c):
    return 65 <= c <= 90


def _islo(c):
    return 97 <= c <= 122


def _isal(c):
    return 65 <= c <= 90 or 97 <= c <= 122


def _isw(c):
    return 48 <= c <= 57 or 65 <= c <= 90 or 97 <= c <= 122 or c == 95


def _isblank(c):
    return c == 32 or c == 9


def _lower(c):
    return c + 32 if 65 <= c <= 90 else c


def _at(b, i, lo, hi):
    if lo <= i < hi:
        return np.int64(b[i])
    return np.int64(-1)


# --- sets of words (exact, lower case): open addressing over FNV-1a ------------------------
def _hash(b, s, e, low):
    h = np.uint64(14695981039346656037)
    for i in range(s, e):
        c = b[i]
        if low and 65 <= c <= 90:
            c += 32
        h = (h ^ np.uint64(c)) * np.uint64(1099511628211)
    return h


def _build_table(data, offs):
    """The hash slots (word numbers, -1 empty), then per first character whether a word
    starts with it, then the word lengths as bits (63: longer): most words looked up
    are rejected by these two without hashing."""
    n = len(offs) - 1
    size = 16
    while size < 2 * n + 2:
        size *= 2
    table = np.full(size + 257, -1, dtype=np.int64)
    table[size:] = 0
    mask = np.uint64(size - 1)
    for k in range(n):
        j = _hash(data, offs[k], offs[k + 1], False) & mask
        while table[j] >= 0:
            j = (j + np.uint64(1)) & mask
        table[j] = k
        length = offs[k + 1] - offs[k]
        if length:
            table[size + data[offs[k]]] = 1
        table[size + 256] |= np.int64(1) << min(length, 63)
    return table


def _in_set(b, s, e, data, offs, table):
    """Whether ``b[s:e]`` lower-cased is one of the set's words."""
    size = len(table) - 257
    n = e - s
    if not (table[size + 256] >> min(n, 63)) & 1:
        return False
    if n and not table[size + _lower(b[s])]:
        return False
    mask = np.uint64(size - 1)
    j = _hash(b, s, e, True) & mask
    while True:
        k = table[j]
        if k < 0:
            return False
        a = offs[k]
        if offs[k + 1] - a == n:
            same = True
            for t in range(n):
                c = b[s + t]
                if 65 <= c <= 90:
                    c += 32
                if data[a + t] != c:
                    same = False
                    break
            if same:
                return True
        j = (j + np.uint64(1)) & mask


# --- patterns (``patterns.pattern_spans``) -------------------------------------------------
def _triple(b, i, lo, hi):
    """``patterns.PREFILTER``'s three digits (one separator between each at most) from
    the digit at ``i``."""
    for j in (i + 1, i + 2):
        if j == i + 2 and not _sep3(_at(b, i + 1, lo, hi)):
            continue
        if not _isd(_at(b, j, lo, hi)):
            continue
        if _isd(_at(b, j + 1, lo, hi)):
            return True
        if _sep3(_at(b, j + 1, lo, hi)) and _isd(_at(b, j + 2, lo, hi)):
            return True
    return False


def _sep3(c):
    return c == 32 or c == 46 or c == 45 or c == 47 or c == 40 or c == 41


def _ishex(c):
    return 48 <= c <= 57 or 65 <= c <= 70 or 97 <= c <= 102


def _local(c):  # [\w.+\-]
    return _isw(c) or c == 46 or c == 43 or c == 45


def _dom(c):  # [\w\-]
    return _isw(c) or c == 45


def _email_end(b, d, hi):
    """The end of ``_EMAIL``'s domain part starting at ``d`` (after the @), or -1: the
    last label that is letters only (two or more) after one or more labels."""
    p = d
    while p < hi and _dom(b[p]):
        p += 1
    if p == d:
        return -1
    best = -1
    while p + 1 < hi and b[p] == 46 and _dom(b[p + 1]):
        s = p + 1
        q = s
        letters = True
        while q < hi and _dom(b[q]):
            if not _isal(b[q]):
                letters = False
            q += 1
        if letters and q - s >= 2:
            best = q
        p = q
    return best


def _u0(c):  # [A-Z0-9]
    return 48 <= c <= 57 or 65 <= c <= 90


def _iban_end(b, i, lo, hi):
    """The end of ``_IBAN`` matched at ``i``, or -1."""
    if _isw(_at(b, i - 1, lo, hi)):
        return -1
    if not (_isup(_at(b, i, lo, hi)) and _isup(_at(b, i + 1, lo, hi))
            and _isd(_at(b, i + 2, lo, hi)) and _isd(_at(b, i + 3, lo, hi))):
        return -1
    k = 0
    p = i + 4
    best = -1
    while k < 30:  # (?: ?[A-Z0-9]){11,30}: the longest followed by a word's end
        if p + 1 < hi and b[p] == 32 and _u0(b[p + 1]):
            p += 2
        elif p < hi and _u0(b[p]):
            p += 1
        else:
            break
        k += 1
        if k >= 11 and not _isw(_at(b, p, lo, hi)):
            best = p
    return best


def _iban_ok(b, s, e, lengths):
    n = 0
    for i in range(s, e):
        if b[i] != 32:
            n += 1
    if n < 15 or n > 34:
        return False
    want = lengths[b[s] - 65, b[s + 1] - 65]
    if want > 0 and want != n:
        return False
    r = 0
    for rnd in range(2):  # the number from its fifth character, then its first four
        seen = 0
        for i in range(s, e):
            c = b[i]
            if c == 32:
                continue
            seen += 1
            if (rnd == 0 and seen <= 4) or (rnd == 1 and seen > 4):
                continue
            if _isd(c):
                r = (r * 10 + (c - 48)) % 97
            else:
                r = (r * 100 + (c - 55)) % 97
    return r == 1


def _dsep(c):  # [\-/.]
    return c == 45 or c == 47 or c == 46


def _digits(b, p, n, lo, hi):
    for t in range(n):
        if not _isd(_at(b, p + t, lo, hi)):
            return False
    return True


def _date_end(b, i, lo, hi):
    """The end of ``_DATE_TIME`` matched at ``i``, or -1."""
    prev = _at(b, i - 1, lo, hi)
    if not (_isd(prev) or _dsep(prev)):
        # \d{4}[\-/.]\d{1,2}[\-/.]\d{1,2}
        if _digits(b, i, 4, lo, hi) and _dsep(_at(b, i + 4, lo, hi)):
            for a in (2, 1):
                if not _digits(b, i + 5, a, lo, hi):
                    continue
                p = i + 5 + a
                if not _dsep(_at(b, p, lo, hi)):
                    continue
                for c in (2, 1):
                    if _digits(b, p + 1, c, lo, hi):
                        e = p + 1 + c
                        nxt = _at(b, e, lo, hi)
                        if not (_isd(nxt) or _dsep(nxt)):
                            return e
        # \d{1,2}[\-/.]\d{1,2}[\-/.]\d{2,4}
        for a in (2, 1):
            if not _digits(b, i, a, lo, hi) or not _dsep(_at(b, i + a, lo, hi)):
                continue
            for c in (2, 1):
                p = i + a + 1
                if not _digits(b, p, c, lo, hi) or not _dsep(_at(b, p + c, lo, hi)):
                    continue
                for d in (4, 3, 2):
                    if _digits(b, p + c + 1, d, lo, hi):
                        e = p + c + 1 + d
                        nxt = _at(b, e, lo, hi)
                        if not (_isd(nxt) or _dsep(nxt)):
                            return e
    # \b\d{1,2}:\d{2}(?::\d{2})?\b
    if _isw(prev):
        return -1
    for a in (2, 1):
        if not _digits(b, i, a, lo, hi) or _at(b, i + a, lo, hi) != 58 or \
                not _digits(b, i + a + 1, 2, lo, hi):
            continue
        e = i + a + 3
        if _at(b, e, lo, hi) == 58 and _digits(b, e + 1, 2, lo, hi) and \
                not _isw(_at(b, e + 3, lo, hi)):
            return e + 3
        if not _isw(_at(b, e, lo, hi)):
            return e
    return -1


def _runc(c):  # [\d ().\-/]
    return _isd(c) or c == 32 or c == 40 or c == 41 or c == 46 or c == 45 or c == 47


def _ext_end(m, q, lo, hi):
    """``[ ]?(?:x|ext\\.?|#)[ ]?\\d{1,6}(?!\\w)`` matched at ``q``: its end, or -1."""
    for sp in (1, 0):
        if sp and _at(m, q, lo, hi) != 32:
            continue
        r = q + sp
        for alt in range(4):  # x, ext., ext, #
            if alt == 0:
                if _at(m, r, lo, hi) != 120:
                    continue
                t = r + 1
            elif alt == 1 or alt == 2:
                if not (_at(m, r, lo, hi) == 101 and _at(m, r + 1, lo, hi) == 120
                        and _at(m, r + 2, lo, hi) == 116):
                    continue
                t = r + 3
                if alt == 1:
                    if _at(m, t, lo, hi) != 46:
                        continue
                    t += 1
            else:
                if _at(m, r, lo, hi) != 35:
                    continue
                t = r + 1
            for sp2 in (1, 0):
                if sp2 and _at(m, t, lo, hi) != 32:
                    continue
                u = t + sp2
                n = 0
                while _isd(_at(m, u + n, lo, hi)):
                    n += 1
                if 1 <= n <= 6 and not _isw(_at(m, u + n, lo, hi)):
                    return u + n
    return -1


def _digit_run_end(m, i, lo, hi):
    """The end of ``_DIGIT_RUN`` matched at ``i`` of the masked text, or -1."""
    prev = _at(m, i - 1, lo, hi)
    if _isw(prev) or prev == 43:
        return -1
    if (prev == 45 or prev == 47) and _isal(_at(m, i - 2, lo, hi)):
        return -1
    p = i
    if _at(m, p, lo, hi) == 43:
        p += 1
        if _at(m, p, lo, hi) == 32:
            p += 1
    if _at(m, p, lo, hi) == 40:
        p += 1
    if not _isd(_at(m, p, lo, hi)):
        return -1
    b0 = p + 1
    r = 0
    while _runc(_at(m, b0 + r, lo, hi)):
        r += 1
    n = min(22, r - 1)
    while n >= 5:
        if _isd(_at(m, b0 + n, lo, hi)):
            e = b0 + n + 1
            x = _ext_end(m, e, lo, hi)
            if x >= 0:
                return x
            if not _isw(_at(m, e, lo, hi)):
                return e
        n -= 1
    return -1


def _is_date(b, s, e):
    """``patterns._DATE.fullmatch(b[s:e])``."""
    if _digits(b, s, 4, s, e) and _dsep(_at(b, s + 4, s, e)):
        for a in (2, 1):
            p = s + 5 + a
            if _digits(b, s + 5, a, s, e) and _dsep(_at(b, p, s, e)):
                for c in (2, 1):
                    if p + 1 + c == e and _digits(b, p + 1, c, s, e):
                        return True
    for a in (2, 1):
        if not _digits(b, s, a, s, e) or not _dsep(_at(b, s + a, s, e)):
            continue
        for c in (2, 1):
            p = s + a + 1
            if not _digits(b, p, c, s, e) or not _dsep(_at(b, p + c, s, e)):
                continue
            for d in (4, 3, 2):
                if p + c + 1 + d == e and _digits(b, p + c + 1, d, s, e):
                    return True
    return False


def _overlaps(ts, te, nt, s, e):
    for k in range(nt):
        if ts[k] < e and s < te[k]:
            return True
    return False


# --- names (``names.IdentifyingValues.spans``, ``names.listed_name_spans``) --------------
_TITLES = ("Dr", "Mr", "Mrs", "Ms", "Mx", "Miss", "Prof", "Sir", "Dame", "Sister", "Nurse",
           "Doctor", "Professor", "Herr", "Frau", "Mme", "Mlle", "M")
_PLACE_WORDS = ("Road Rd Street St Avenue Ave Lane Drive Way Place Square Park Gardens Court "
                "Close Hospital Clinic Infirmary Centre Center House Ward Unit College School "
                "University Church Station Hall Bridge Hill Street Strasse Platz Weg").split()
_SAINTS = ("St", "Saint", "Sankt", "San", "Santa")


def _word_list(words) -> tuple[np.ndarray, np.ndarray]:
    data = "".join(words).encode("ascii")
    offs = np.zeros(len(words) + 1, dtype=np.int64)
    offs[1:] = np.cumsum([len(w) for w in words])
    return np.frombuffer(data, dtype=np.uint8).copy(), offs


def _starts_with(b, p, hi, data, offs, k):
    a, z = offs[k], offs[k + 1]
    if p + (z - a) > hi:
        return False
    for t in range(z - a):
        if b[p + t] != data[a + t]:
            return False
    return True


def _title_end(b, i, lo, hi, tdata, toffs):
    """``_TITLE`` matched at ``i``: (start, end) of its group 1, or (-1, -1)."""
    c = b[i]  # the titles' first letters: D, F, H, M, N, P, S
    if not (c == 68 or c == 70 or c == 72 or c == 77 or c == 78 or c == 80 or c == 83) or \
            _isw(_at(b, i - 1, lo, hi)):
        return -1, -1
    p = -1
    for k in range(len(toffs) - 1):
        if _starts_with(b, i, hi, tdata, toffs, k):
            q = i + toffs[k + 1] - toffs[k]
            if _at(b, q, lo, hi) == 46:
                q += 1
            if _isblank(_at(b, q, lo, hi)):
                p = q
                break
    if p < 0:
        return -1, -1
    while _isblank(_at(b, p, lo, hi)):
        p += 1
    # (?:[A-Z][a-z]*\.?[ \t]+)? then the surname
    if _isup(_at(b, p, lo, hi)):
        q = p + 1
        while _islo(_at(b, q, lo, hi)):
            q += 1
        if _at(b, q, lo, hi) == 46:
            q += 1
        if _isblank(_at(b, q, lo, hi)):
            while _isblank(_at(b, q, lo, hi)):
                q += 1
            e = _surname_end(b, q, lo, hi)
            if e >= 0:
                return p, e
    e = _surname_end(b, p, lo, hi)
    if e >= 0:
        return p, e
    return -1, -1


def _namec(c):  # [\w'\-]
    return _isw(c) or c == 39 or c == 45


def _capital_run(b, p, lo, hi):
    """``[A-Z][\\w'\\-]+`` at ``p``: its end, or -1."""
    if not _isup(_at(b, p, lo, hi)) or not _namec(_at(b, p + 1, lo, hi)):
        return -1
    q = p + 2
    while _namec(_at(b, q, lo, hi)):
        q += 1
    return q


def _surname_end(b, p, lo, hi):
    """``(?:[Oo]'|Mc|Mac|[Vv]an[ \\t]+|[Dd]e[ \\t]+)?[A-Z][\\w'\\-]+`` at ``p``."""
    c0, c1, c2 = _at(b, p, lo, hi), _at(b, p + 1, lo, hi), _at(b, p + 2, lo, hi)
    for alt in range(5):
        q = -1
        if alt == 0 and (c0 == 79 or c0 == 111) and c1 == 39:
            q = p + 2
        elif alt == 1 and c0 == 77 and c1 == 99:
            q = p + 2
        elif alt == 2 and c0 == 77 and c1 == 97 and c2 == 99:
            q = p + 3
        elif alt == 3 and (c0 == 86 or c0 == 118) and c1 == 97 and c2 == 110 and \
                _isblank(_at(b, p + 3, lo, hi)):
            q = p + 3
        elif alt == 4 and (c0 == 68 or c0 == 100) and c1 == 101 and _isblank(c2):
            q = p + 2
        if q < 0:
            continue
        while alt >= 3 and _isblank(_at(b, q, lo, hi)):
            q += 1
        e = _capital_run(b, q, lo, hi)
        if e >= 0:
            return e
    return _capital_run(b, p, lo, hi)


def _at_end(b, q, lo, end):
    """Python's ``$`` at ``q`` when the text ends at ``end`` (or before a last newline)."""
    return q == end or (q == end - 1 and b[q] == 10)


def _place_before(b, lo, start, sdata, soffs):
    """``_PLACE_BEFORE.search(text, max(0, start - 8), start)``."""
    for p in range(max(lo, start - 8), start):
        if _isw(_at(b, p - 1, lo, start)) or not _isup(b[p]):
            continue
        for k in range(len(soffs) - 1):
            if not _starts_with(b, p, start, sdata, soffs, k):
                continue
            q = p + soffs[k + 1] - soffs[k]
            if q < start and b[q] == 46:
                q += 1
            if q < start and _isblank(b[q]):
                while q < start and _isblank(b[q]):
                    q += 1
                if _at_end(b, q, lo, start):
                    return True
    return False


def _place_after(b, p, lo, hi, pdata, poffs):
    """``_PLACE_AFTER.match(text, p)``."""
    q = p
    if _at(b, q, lo, hi) == 39 and _at(b, q + 1, lo, hi) == 115:
        q += 2
    if _isblank(_at(b, q, lo, hi)):
        while _isblank(_at(b, q, lo, hi)):
            q += 1
        for k in range(len(poffs) - 1):
            if _starts_with(b, q, hi, pdata, poffs, k) and \
                    not _isw(_at(b, q + poffs[k + 1] - poffs[k], lo, hi)):
                return True
    if _at(b, p, lo, hi) == 39 and _at(b, p + 1, lo, hi) == 115 and \
            _isblank(_at(b, p + 2, lo, hi)):
        q = p + 2
        while _isblank(_at(b, q, lo, hi)):
            q += 1
        if _isup(_at(b, q, lo, hi)):
            return True
    return False


def _surname_before(b, lo, start):
    """``_SURNAME_BEFORE.search(text, max(0, start - 40), start)``: the start of its
    group (its end is the comma), or -1."""
    for p in range(max(lo, start - 40), start):
        if _isw(_at(b, p - 1, lo, start)) or not _isup(b[p]) or \
                not _islo(_at(b, p + 1, lo, start)):
            continue
        q = p + 2
        while q < start and _namec(b[q]):
            q += 1
        if q < start and b[q] == 44 and q + 1 < start and _isblank(b[q + 1]):
            r = q + 1
            while r < start and _isblank(b[r]):
                r += 1
            if _at_end(b, r, lo, start):
                return p
    return -1


def _has_lower(b, s, e):
    for i in range(s, e):
        if _islo(b[i]):
            return True
    return False


def _free_text(b, lo, hi):
    """``names.is_free_text``: three runs of two letters or more."""
    n = 0
    i = lo
    while i < hi:
        if _isal(b[i]):
            j = i
            while j < hi and _isal(b[j]):
                j += 1
            if j - i >= 2:
                n += 1
                if n >= 3:
                    return True
            i = j
        else:
            i += 1
    return False


def _space(c):  # str.isspace on ASCII
    return c == 32 or 9 <= c <= 13 or 28 <= c <= 31


def _comma(b, p, end):
    """The end of ``[A-Z][a-z][\\w'\\-]*`` at ``p`` (before its comma)."""
    q = p + 2
    while q < end and _namec(b[q]):
        q += 1
    return q


# --- the runs of digits decided (``patterns.digit_run_kind`` and ``patterns._phone``) -----
#: what a run of digits is, as the kernels tell it: nothing, a card, an identifier, a
#: telephone number taken without asking (a North American shape), a number to ask
#: ``phonenumbers`` about (else nothing; else an NHS number), or a run with a possible
#: extension, decided by ``digit_run_kind`` itself
RUN_NONE, RUN_CARD, RUN_ID, RUN_PHONE, RUN_ASK, RUN_ASK_NHS, RUN_PYTHON = range(7)


def _digit(b, i):
    return np.int64(b[i]) - 48


def _card_ok(b, s, e, nd):
    """``card_ok`` of the run's digits (``nd`` of them)."""
    if not 13 <= nd <= 19:
        return False
    first = -1
    same = True
    total = 0
    k = 0
    for i in range(e - 1, s - 1, -1):  # Luhn, from the last digit
        if not _isd(b[i]):
            continue
        d = _digit(b, i)
        if k % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
        k += 1
    for i in range(s, e):
        if _isd(b[i]):
            if first < 0:
                first = b[i]
            elif b[i] != first:
                same = False
    return 50 <= first <= 54 and not same and total % 10 == 0


def _ten_ok(b, s, e):
    """``nhs_ok`` of the run's ten digits."""
    first = -1
    same = True
    total = 0
    k = 0
    last = 0
    for i in range(s, e):
        if not _isd(b[i]):
            continue
        if first < 0:
            first = b[i]
        elif b[i] != first:
            same = False
        if k < 9:
            total += _digit(b, i) * (10 - k)
        else:
            last = _digit(b, i)
        k += 1
    if same:
        return False
    check = 11 - total % 11
    if check == 11:
        check = 0
    return check != 10 and check == last


def _nhs_shape(b, s, e):
    """``_NHS_SHAPE.fullmatch``: \\d{3}[ \\-]?\\d{3}[ \\-]?\\d{4}."""
    for g1 in range(2):
        for g2 in range(2):
            p = s
            if not _digits(b, p, 3, s, e):
                continue
            p += 3
            if g1:
                if not (_at(b, p, s, e) == 32 or _at(b, p, s, e) == 45):
                    continue
                p += 1
            if not _digits(b, p, 3, s, e):
                continue
            p += 3
            if g2:
                if not (_at(b, p, s, e) == 32 or _at(b, p, s, e) == 45):
                    continue
                p += 1
            if _digits(b, p, 4, s, e) and p + 4 == e:
                return True
    return False


def _nhs_near(b, lo, hi, s):
    """``_NHS_NEAR.search(text, max(0, start - 24), start)``: "NHS" in any case as a
    word (the text ending at the run's start)."""
    for p in range(max(lo, s - 24), s - 2):
        if _lower(b[p]) == 110 and _lower(b[p + 1]) == 104 and _lower(b[p + 2]) == 115 \
                and not _isw(_at(b, p - 1, lo, hi)) and not _isw(_at(b, p + 3, lo, s)):
            return True
    return False


def _bsn_ok(b, s, e):
    """``bsn_ok`` of the run's nine digits."""
    if b[s] == 48 and b[s + 1] == 48:
        return False
    same = True
    for i in range(s + 1, e):
        if b[i] != b[s]:
            same = False
    if same:
        return False
    total = 0
    for k in range(8):
        total += _digit(b, s + k) * (9 - k)
    total -= _digit(b, s + 8)
    return total % 11 == 0 and total != 0


def _steuer_ok(b, s, e):
    """``steuer_id_ok`` of the run's eleven digits."""
    if b[s] == 48:
        return False
    twice = 0  # digits seen two or three times in the first ten (more: no)
    for d in range(48, 58):
        n = 0
        for k in range(10):
            if b[s + k] == d:
                n += 1
        if n > 3:
            return False
        if n >= 2:
            twice += 1
    if twice != 1:
        return False
    product = 10
    for k in range(10):
        total = (_digit(b, s + k) + product) % 10
        product = ((total if total else 10) * 2) % 11
    check = 11 - product
    return (0 if check == 10 else check) == _digit(b, s + 10)


def _decimal(b, s, e):
    """``_DECIMAL.fullmatch``: \\d+\\.\\d+ or \\d{1,3}(?:\\.\\d{3})+."""
    dots = 0
    for i in range(s, e):
        if b[i] == 46:
            dots += 1
        elif not _isd(b[i]):
            return False
    if dots == 0:
        return False
    if dots == 1 and b[s] != 46 and b[e - 1] != 46:
        return True
    n = 0  # the digits of the group read so far
    group = 0
    for i in range(s, e):
        if b[i] == 46:
            if (group == 0 and not 1 <= n <= 3) or (group > 0 and n != 3):
                return False
            group += 1
            n = 0
        else:
            n += 1
    return n == 3


def _number_range(b, s, e):
    """``_RANGE.fullmatch`` with both numbers of one length, the first the smaller:
    (\\d+) ?[-–] ?(\\d+)."""
    p = s
    while p < e and _isd(b[p]):
        p += 1
    a_end = p
    if a_end == s:
        return False
    if _at(b, p, s, e) == 32:
        p += 1
    if _at(b, p, s, e) != 45:
        return False
    p += 1
    if _at(b, p, s, e) == 32:
        p += 1
    q = p
    while q < e and _isd(b[q]):
        q += 1
    if q != e or q == p or q - p != a_end - s:
        return False
    for k in range(a_end - s):
        if b[s + k] != b[p + k]:
            return b[s + k] < b[p + k]
    return True


def _sep1(c):  # [ .\-]
    return c == 32 or c == 46 or c == 45


def _us_shape(b, s, e):
    """``_US_PHONE_SHAPE.fullmatch``:
    (?:\\+?1[ .\\-]?)?(?:\\(\\d{3}\\) ?|\\d{3}[ .\\-])\\d{3}[ .\\-]\\d{4}."""
    for pre in range(5):  # nothing, 1, 1 and a separator, +1, +1 and a separator
        p = s
        if pre == 1 or pre == 2:
            if _at(b, p, s, e) != 49:
                continue
            p += 1
        elif pre == 3 or pre == 4:
            if _at(b, p, s, e) != 43 or _at(b, p + 1, s, e) != 49:
                continue
            p += 2
        if pre == 2 or pre == 4:
            if not _sep1(_at(b, p, s, e)):
                continue
            p += 1
        for area in range(3):  # (ddd) and a blank, (ddd), ddd and a separator
            q = p
            if area < 2:
                if _at(b, q, s, e) != 40 or not _digits(b, q + 1, 3, s, e) or \
                        _at(b, q + 4, s, e) != 41:
                    continue
                q += 5
                if area == 0:
                    if _at(b, q, s, e) != 32:
                        continue
                    q += 1
            else:
                if not _digits(b, q, 3, s, e) or not _sep1(_at(b, q + 3, s, e)):
                    continue
                q += 4
            if _digits(b, q, 3, s, e) and _sep1(_at(b, q + 3, s, e)) and \
                    _digits(b, q + 4, 4, s, e) and q + 8 == e:
                return True
    return False


def _run_code(b, s, e, lo, hi, in_text):
    """What ``patterns.digit_run_kind(text, run, start, in_text, is_phone)`` says of the
    run ``b[s:e]`` of a value ``b[lo:hi]``, as a ``RUN_*`` code: the same steps in the
    same order, where the run holds no x, e or # (an extension: ``RUN_PYTHON``)."""
    nd = 0
    plain = True
    for i in range(s, e):
        c = b[i]
        if c == 120 or c == 101 or c == 35:
            return RUN_PYTHON
        if _isd(c):
            nd += 1
        elif not (c == 32 or c == 45):
            plain = False
    if nd < 7:
        return RUN_NONE
    nhs = in_text and nd == 10 and _ten_ok(b, s, e) and _nhs_shape(b, s, e)
    if plain and _card_ok(b, s, e, nd):
        return RUN_CARD
    if nhs and _nhs_near(b, lo, hi, s):
        return RUN_ID
    bare = nd == e - s  # digits only
    if in_text and bare and nd == 9 and _bsn_ok(b, s, e):
        return RUN_ID
    if in_text and bare and nd == 11 and _steuer_ok(b, s, e):
        return RUN_ID
    # ``patterns._phone`` (the run is the candidate: no extension, no blank around)
    phone = RUN_NONE
    if 7 <= nd <= 15 and not _is_date(b, s, e):
        international = b[s] == 43 or (b[s] == 48 and _at(b, s + 1, s, e) == 48)
        grouped = b[s] == 40
        seen = 0
        for i in range(s, e):  # a separator between two digits
            if _isd(b[i]):
                seen += 1
            elif seen and seen < nd:
                grouped = True
        if (international or grouped or (in_text and nd >= 10)) and \
                not _decimal(b, s, e) and not \
                (e - s == 10 and _digits(b, s, 5, s, e) and b[s + 5] == 45 and
                 _digits(b, s + 6, 4, s, e)) and not _number_range(b, s, e):
            # a North American shape is a number, asked or not (``_phone``)
            phone = RUN_PHONE if _us_shape(b, s, e) else RUN_ASK
    if phone == RUN_PHONE:
        return RUN_PHONE
    if phone == RUN_ASK:
        return RUN_ASK_NHS if nhs else RUN_ASK
    return RUN_ID if nhs else RUN_NONE


# --- the kernels: one pass over the bytes, the runs of digits decided in Python, then
# --- the names merged and the values scrubbed ---------------------------------------
def scan_kernel(b, offs, lengths, codes, given, named, capitalised, function,
                tdata, toffs, sdata, soffs, pdata, poffs, numbers, want_numbers):
    """One pass over each value's bytes for what needs no decision in Python: whether
    the value is left to ``find_spans`` (a character outside ASCII, a URL's ``://`` or
    ``www.``, four dotted numbers (IPv4), two colons with at most four hex digits between
    (IPv6), ``ddd-dd-dddd`` once masked (SSN), or a token that is one of the job's codes),
    its dates and times masked,
    the tokens looked up (the job's codes, name words and numbers, listed given names),
    the titles; a second over the masked bytes of a value holding digits (an SSN hands
    it over; the runs of digits); e-mail addresses and IBANs where an ``@`` or an IBAN's
    start is. Each rule is the loop it was alone (``find_spans``' ``finditer``: a match
    resumes the rule after its end), run as a cursor of the one pass: the rule's step
    at a position where its loop would stand, reading the bytes only (the masked bytes
    are read in the second pass, once every date is masked).

    Per value: 1 when handed over; the e-mail and IBAN spans and the runs of digits
    decided (value, start, end, kind); the runs of digits left to Python (value, start,
    end, ``RUN_*`` code: `_run_code`) and whether the value has two letters in a row
    (``in_text``); the name candidates in the order they were
    found (the job's name words merged, titles, listed given names: value, start,
    end); the tokens of ``names._NUMBER`` that are one of ``numbers`` (value, start,
    end) when ``want_numbers``. A value handed over has nothing else."""
    cdata, coffs, ctable = codes
    gd, go, gt = given
    nd_, no_, nt_ = named
    cd, co, ct = capitalised
    fd, fo, ft = function
    ud, uo, ut = numbers
    nv = len(offs) - 1
    handed = np.zeros(nv, dtype=np.uint8)
    in_text = np.zeros(nv, dtype=np.uint8)
    m = b.copy()  # dates and times masked, as ``find_spans`` masks them
    # (arrays of their largest sizes: an e-mail address has 6 characters or more, an
    # IBAN 15, a run of digits 7, a name candidate 1 and a number token 3 with one more
    # character between two; numba keeps arrays rebound in a loop much slower)
    cap = len(b) // 5 + nv + 1
    sv = np.empty(cap, dtype=np.int64)
    ss = np.empty(cap, dtype=np.int64)
    se = np.empty(cap, dtype=np.int64)
    sk = np.empty(cap, dtype=np.int64)
    ns = 0
    dv = np.empty(cap, dtype=np.int64)
    ds = np.empty(cap, dtype=np.int64)
    de = np.empty(cap, dtype=np.int64)
    dk = np.empty(cap, dtype=np.int64)
    nd = 0
    ncap = len(b) + nv + 1
    cv = np.empty(ncap, dtype=np.int64)
    cs = np.empty(ncap, dtype=np.int64)
    ce = np.empty(ncap, dtype=np.int64)
    nc = 0
    ucap = len(b) // 4 + nv + 1
    uv = np.empty(ucap, dtype=np.int64)
    us = np.empty(ucap, dtype=np.int64)
    ue = np.empty(ucap, dtype=np.int64)
    nu = 0
    longest = 0
    for v in range(nv):
        longest = max(longest, offs[v + 1] - offs[v])
    ts = np.empty(longest // 5 + 2, dtype=np.int64)
    te = np.empty(longest // 5 + 2, dtype=np.int64)
    ws = np.empty(longest + 2, dtype=np.int64)  # the job's name words (merged)
    we = np.empty(longest + 2, dtype=np.int64)
    hs = np.empty(longest + 2, dtype=np.int64)  # titles
    he = np.empty(longest + 2, dtype=np.int64)
    gs = np.empty(longest + 2, dtype=np.int64)  # listed given names
    ge = np.empty(longest + 2, dtype=np.int64)
    starts = np.empty(longest + 2, dtype=np.int64)  # of runs of digits, and + and (
    look_codes = len(coffs) > 1
    look_words = len(no_) > 1 or len(co) > 1
    for v in range(nv):
        lo, hi = offs[v], offs[v + 1]
        nu0 = nu
        # each rule's loop stands at its cursor: the next position it looks at
        at_date = at_code = at_word = at_title = at_given = at_number = lo
        nw = nh = ng = 0
        free = -1
        has_at = False
        iban = False  # [A-Z]{2}\d{2} somewhere: _IBAN's start
        digit = False
        n_starts = 0
        pf = False  # ``patterns.PREFILTER`` found: @, ://, www., three digits, IPv6
        out = False
        # inside a word or a run of digits no rule starts (each needs a word's or a
        # run's start, a letter pair is seen at the word's start), but for the www. of
        # a URL at a word's end: passed over from its start (``skip``)
        skip = lo
        for i in range(lo, hi):
            if i < skip:
                continue
            c = b[i]
            if c >= 128:
                out = True
                break
            if not (_isw(c) or c == 58 or c == 64):  # (no rule starts at a blank...)
                if c == 43 or c == 40:  # where a run of digits may start
                    starts[n_starts] = i
                    n_starts += 1
                continue
            prev = np.int64(b[i - 1]) if i > lo else np.int64(-1)
            r = i + 1  # the end of the run of digits or letters starting here
            if 48 <= c <= 57:
                if 48 <= prev <= 57:
                    continue
                while r < hi and _isd(b[r]):
                    r += 1
                skip = r
            elif _isal(c):
                if _isal(prev) and c != 119 and c != 87:
                    continue
                if not _isal(prev):
                    while r < hi and _isal(b[r]):
                        r += 1
                    skip = r - 3 if r < hi and b[r] == 46 and r - 3 > i else r  # (www.)
            if 48 <= c <= 57:
                digit = True
                starts[n_starts] = i
                n_starts += 1
                # the start of a run of digits (PREFILTER's three digits start at one)
                if not pf and _triple(b, i, lo, hi):
                    pf = True
                # _DATE_TIME masked (find_spans masks them before the SSN and runs): a
                # separator in the first five characters, or none
                c1, c2 = _at(b, i + 1, lo, hi), _at(b, i + 2, lo, hi)
                if i >= at_date and (_dsep(c1) or c1 == 58 or (_isd(c1) and (
                        _dsep(c2) or c2 == 58 or (_isd(c2) and _isd(_at(b, i + 3, lo, hi))
                                                  and _dsep(_at(b, i + 4, lo, hi)))))):
                    e = _date_end(b, i, lo, hi)
                    if e >= 0:
                        for t in range(i, e):
                            m[t] = 120
                        at_date = e
                p = i  # handed over: \d{1,3}(\.\d{1,3}){3}
                dots = 0
                while True:
                    n = 0
                    while n < 3 and _isd(_at(b, p + n, lo, hi)):
                        n += 1
                    if n == 0:
                        break
                    p += n
                    if dots == 3:
                        out = True
                        break
                    if _at(b, p, lo, hi) != 46:
                        break
                    p += 1
                    dots += 1
                if out:
                    break
                if want_numbers and i >= at_number:  # names._NUMBER in ``numbers``
                    j = r
                    nxt = _at(b, j, lo, hi)
                    if j - i >= 3 and not _isw(prev) and prev != 46 and \
                            not _isw(nxt) and \
                            not (nxt == 46 and _isd(_at(b, j + 1, lo, hi))) and \
                            _in_set(b, i, j, ud, uo, ut):
                        uv[nu], us[nu], ue[nu] = v, i, j
                        nu += 1
                    at_number = j
            elif c == 58:  # handed over: ://, two colons with hex digits between
                if i + 2 < hi and b[i + 1] == 47 and b[i + 2] == 47:
                    out = True
                    break
                j = i + 1
                while j < hi and j - i <= 5 and _ishex(b[j]):
                    j += 1
                if j < hi and j - i <= 5 and b[j] == 58:
                    out = True
                    break
                if not pf and _ishex(prev):  # PREFILTER: [0-9A-Fa-f]:[0-9A-Fa-f]*:
                    j = i + 1
                    while j < hi and _ishex(b[j]):
                        j += 1
                    if j < hi and b[j] == 58:
                        pf = True
            elif c == 64:
                has_at = True
                pf = True
            if c == 119 or c == 87:
                if i + 3 < hi and b[i + 1] == c and b[i + 2] == c and b[i + 3] == 46:
                    out = True  # www.
                    break
                if i + 3 < hi and _lower(b[i + 1]) == 119 and _lower(b[i + 2]) == 119 and \
                        b[i + 3] == 46:
                    pf = True
            if _isal(c):
                if i + 1 < hi and _isal(b[i + 1]):
                    in_text[v] = 1
                    if not iban and _isup(c) and _isup(b[i + 1]) and \
                            _isd(_at(b, i + 2, lo, hi)) and _isd(_at(b, i + 3, lo, hi)):
                        iban = True
                if look_words and i >= at_word:
                    # the job's name words, merged when only blanks and commas are
                    # between them
                    j = r
                    while j + 1 < hi and (b[j] == 39 or b[j] == 45) and _isal(b[j + 1]):
                        j += 1
                        while j < hi and _isal(b[j]):
                            j += 1
                    if _in_set(b, i, j, nd_, no_, nt_) or \
                            (_isup(c) and _in_set(b, i, j, cd, co, ct)):
                        merge = nw > 0
                        if merge:
                            for t in range(we[nw - 1], i):
                                d = b[t]
                                if not (d == 32 or d == 9 or d == 44):
                                    merge = False
                                    break
                        if merge:
                            we[nw - 1] = j
                        else:
                            ws[nw], we[nw] = i, j
                            nw += 1
                    at_word = j
                if _isup(c):
                    if i >= at_title:  # titles
                        s, e = _title_end(b, i, lo, hi, tdata, toffs)
                        if s >= 0:
                            hs[nh], he[nh] = s, e
                            nh += 1
                            at_title = e
                    if i >= at_given and not _isw(prev):  # listed given names
                        j = i + 1
                        while j < hi and _islo(b[j]):
                            j += 1
                        if j - i >= 3 and not _isw(_at(b, j, lo, hi)):
                            at_given = j
                            if _in_set(b, i, j, gd, go, gt) and \
                                    not _place_before(b, lo, i, sdata, soffs) and \
                                    not _place_after(b, j, lo, hi, pdata, poffs):
                                start, end = i, j
                                q = j
                                a_end = -1
                                if _isblank(_at(b, q, lo, hi)):
                                    while _isblank(_at(b, q, lo, hi)):
                                        q += 1
                                    a_end = _capital_run(b, q, lo, hi)
                                bs = _surname_before(b, lo, i)
                                keep = True
                                if a_end >= 0 and not _in_set(b, q, a_end, fd, fo, ft) and \
                                        _has_lower(b, q, a_end):
                                    end = a_end
                                elif bs >= 0 and \
                                        not _in_set(b, bs, _comma(b, bs, i), fd, fo, ft):
                                    start = bs
                                else:
                                    if free < 0:
                                        free = 1 if _free_text(b, lo, hi) else 0
                                    keep = free == 1
                                if keep:
                                    gs[ng], ge[ng] = start, end
                                    ng += 1
            if look_codes and i >= at_code and _isw(c):  # names._TOKEN among the codes
                j = r
                last = r - 1
                while j < hi and (_isw(b[j]) or b[j] == 45 or b[j] == 46 or b[j] == 47):
                    if _isw(b[j]):
                        last = j
                    j += 1
                if _in_set(b, i, last + 1, cdata, coffs, ctable):
                    out = True
                    break
                at_code = last + 1
        if out:
            handed[v] = 1
            nu = nu0
            continue
        ns0, nd0 = ns, nd
        nt = 0
        if pf:
            if has_at:  # _EMAIL
                i = lo
                while i < hi:
                    if _local(b[i]) and not _local(_at(b, i - 1, lo, hi)):
                        j = i
                        while j < hi and _local(b[j]):
                            j += 1
                        if j < hi and b[j] == 64:
                            e = _email_end(b, j + 1, hi)
                            if e >= 0:
                                if not _overlaps(ts, te, nt, i, e):
                                    ts[nt], te[nt] = i, e
                                    nt += 1
                                    sv[ns], ss[ns], se[ns], sk[ns] = v, i, e, 1
                                    ns += 1
                                i = e
                                continue
                        i = j
                    else:
                        i += 1
            if iban:
                i = lo
                while i < hi:
                    e = _iban_end(b, i, lo, hi) if _isup(b[i]) else -1
                    if e < 0:
                        i += 1
                        continue
                    if not _overlaps(ts, te, nt, i, e) and _iban_ok(b, i, e, lengths):
                        ts[nt], te[nt] = i, e
                        nt += 1
                        sv[ns], ss[ns], se[ns], sk[ns] = v, i, e, 3
                        ns += 1
                    i = e
        if digit:  # on the masked bytes: an SSN hands the value over; the runs of digits
            # (at the starts of runs of digits, + and ( only: a digit after a digit starts
            # neither, nor does one after a masked date, which ends before a digit)
            at_run = lo
            for k in range(n_starts):
                i = starts[k]
                c = m[i]
                if not (48 <= c <= 57 or c == 43 or c == 40):
                    continue
                if 48 <= c <= 57 and not _isd(_at(m, i - 1, lo, hi)) and \
                        _digits(m, i, 3, lo, hi) and _at(m, i + 3, lo, hi) == 45 and \
                        _digits(m, i + 4, 2, lo, hi) and _at(m, i + 6, lo, hi) == 45 and \
                        _digits(m, i + 7, 4, lo, hi):
                    out = True
                    break
                if not pf or i < at_run:
                    continue
                e = _digit_run_end(m, i, lo, hi)
                if e < 0:
                    continue
                for t in range(i, e):
                    if m[t] != b[t]:  # a masked character in a run: never seen; left to
                        out = True    # find_spans
                if out:
                    break
                s = i
                if b[i] == 40:
                    closed = False
                    for t in range(i, e):
                        if b[t] == 41:
                            closed = True
                    if not closed:
                        s = i + 1
                if not _overlaps(ts, te, nt, s, e):
                    code = _run_code(b, s, e, lo, hi, in_text[v] == 1)
                    if code == RUN_CARD or code == RUN_ID or code == RUN_PHONE:
                        sv[ns], ss[ns], se[ns] = v, s, e
                        sk[ns] = _CARD if code == RUN_CARD else _ID if code == RUN_ID else _PHONE
                        ns += 1
                    elif code != RUN_NONE:
                        dv[nd], ds[nd], de[nd], dk[nd] = v, s, e, code
                        nd += 1
                at_run = e
        if out:
            handed[v] = 1
            ns, nd, nu = ns0, nd0, nu0
            continue
        if not in_text[v]:
            nu = nu0  # the numbers are looked for within free text only
        for k in range(nw):
            cv[nc], cs[nc], ce[nc] = v, ws[k], we[k]
            nc += 1
        for k in range(nh):
            cv[nc], cs[nc], ce[nc] = v, hs[k], he[k]
            nc += 1
        for k in range(ng):
            cv[nc], cs[nc], ce[nc] = v, gs[k], ge[k]
            nc += 1
    return (handed, in_text, sv[:ns], ss[:ns], se[:ns], sk[:ns], dv[:nd], ds[:nd], de[:nd], dk[:nd],
            cv[:nc], cs[:nc], ce[:nc], uv[:nu], us[:nu], ue[:nu])


def finish_kernel(b, offs, handed, ps_v, ps_s, ps_e, ps_k, cv, cs, ce, common, ldata, loffs):
    """Per value not handed over: the pattern spans (sorted by value, then start; the
    runs of digits decided) with the name candidates (`scan_kernel`) merged, each
    overlapping none of them, in text order (value, start, end, kind); and the values
    holding any (``sel``) with every span replaced by its kind in brackets (labels
    ``ldata``): UTF-8 bytes and offsets."""
    nv = len(offs) - 1
    md, mo, mt = common
    # (arrays of their largest sizes: spans do not overlap and hold one character or
    # more, a name found one or more)
    cap = len(b) + nv + 1
    out_v = np.empty(cap, dtype=np.int64)
    out_s = np.empty(cap, dtype=np.int64)
    out_e = np.empty(cap, dtype=np.int64)
    out_k = np.empty(cap, dtype=np.int64)
    n_out = 0
    longest = 0
    for v in range(nv):
        longest = max(longest, offs[v + 1] - offs[v])
    ns = np.empty(longest + 2, dtype=np.int64)  # name spans of one value
    ne = np.empty(longest + 2, dtype=np.int64)
    order = np.empty(longest + 2, dtype=np.int64)
    ms = np.empty(longest + 2, dtype=np.int64)  # merged
    me = np.empty(longest + 2, dtype=np.int64)
    ts = np.empty(longest + 2, dtype=np.int64)  # taken
    te = np.empty(longest + 2, dtype=np.int64)
    at = 0  # into the pattern spans
    ac = 0  # into the name candidates
    for v in range(nv):
        lo, hi = offs[v], offs[v + 1]
        p0 = at
        while at < len(ps_v) and ps_v[at] == v:
            at += 1
        nn = 0
        while ac < len(cv) and cv[ac] == v:
            ns[nn], ne[nn] = cs[ac], ce[ac]
            nn += 1
            ac += 1
        if handed[v]:
            continue
        # merged (sorted by start, then longest first), a capitalised word after each
        nm = 0
        if nn:
            for k in range(nn):  # a stable insertion sort (few names per value)
                t = k
                while t > 0 and (ns[order[t - 1]] > ns[k] or (
                        ns[order[t - 1]] == ns[k] and ne[order[t - 1]] < ne[k])):
                    order[t] = order[t - 1]
                    t -= 1
                order[t] = k
            for r in range(nn):
                k = order[r]
                s, e = ns[k], ne[k]
                if nm and s <= me[nm - 1] + 1 and \
                        (s <= me[nm - 1] or _space(b[me[nm - 1]])):
                    me[nm - 1] = max(me[nm - 1], e)
                else:
                    ms[nm], me[nm] = s, e
                    nm += 1
            for k in range(nm):
                e = me[k]
                if _isblank(_at(b, e, lo, hi)) and _isup(_at(b, e + 1, lo, hi)) and \
                        _islo(_at(b, e + 2, lo, hi)):
                    q = e + 3
                    while _namec(_at(b, q, lo, hi)):
                        q += 1
                    while q > e + 3 and _isw(b[q - 1]) == _isw(_at(b, q, lo, hi)):
                        q -= 1
                    if _isw(b[q - 1]) != _isw(_at(b, q, lo, hi)) and \
                            not _in_set(b, e + 1, q, md, mo, mt):
                        me[k] = q
        # taken: the pattern spans, then each name overlapping none
        nt = 0
        for k in range(p0, at):
            ts[nt], te[nt] = ps_s[k], ps_e[k]
            nt += 1
        base = n_out
        for k in range(p0, at):
            out_v[n_out], out_s[n_out], out_e[n_out], out_k[n_out] = v, ps_s[k], ps_e[k], ps_k[k]
            n_out += 1
        for k in range(nm):
            if not _overlaps(ts, te, nt, ms[k], me[k]):
                ts[nt], te[nt] = ms[k], me[k]
                nt += 1
                out_v[n_out], out_s[n_out], out_e[n_out], out_k[n_out] = v, ms[k], me[k], 0
                n_out += 1
        for k in range(base + 1, n_out):  # in text order (an insertion sort)
            s, e, kk = out_s[k], out_e[k], out_k[k]
            t = k
            while t > base and out_s[t - 1] > s:
                out_s[t], out_e[t], out_k[t] = out_s[t - 1], out_e[t - 1], out_k[t - 1]
                t -= 1
            out_s[t], out_e[t], out_k[t] = s, e, kk
    # the values holding a span, scrubbed
    fv, fs, fe, fk = out_v[:n_out], out_s[:n_out], out_e[:n_out], out_k[:n_out]
    sel = np.empty(n_out, dtype=np.int64)
    n_sel = 0
    total = 0
    for k in range(n_out):
        if k == 0 or fv[k] != fv[k - 1]:
            sel[n_sel] = fv[k]
            n_sel += 1
            total += offs[fv[k] + 1] - offs[fv[k]]
        total += loffs[fk[k] + 1] - loffs[fk[k]] - (fe[k] - fs[k])
    data = np.empty(max(total, 0), dtype=np.uint8)
    data_offs = np.zeros(n_sel + 1, dtype=np.int64)
    w = 0
    at = 0
    for k in range(n_sel):
        v = sel[k]
        i, hi = offs[v], offs[v + 1]
        while at < n_out and fv[at] == v:
            for t in range(i, fs[at]):
                data[w] = b[t]
                w += 1
            for t in range(loffs[fk[at]], loffs[fk[at] + 1]):
                data[w] = ldata[t]
                w += 1
            i = fe[at]
            at += 1
        for t in range(i, hi):
            data[w] = b[t]
            w += 1
        data_offs[k + 1] = w
    return fv, fs, fe, fk, sel[:n_sel], data[:w], data_offs


_HELPERS = ("_isd", "_isup", "_islo", "_isal", "_isw", "_isblank", "_lower", "_at", "_hash",
            "_in_set", "_triple", "_sep3", "_ishex", "_local", "_dom", "_email_end", "_u0",
            "_iban_end", "_iban_ok", "_dsep", "_digits", "_date_end", "_runc", "_ext_end",
            "_digit_run_end", "_is_date", "_overlaps", "_starts_with", "_title_end", "_namec",
            "_capital_run", "_surname_end", "_at_end", "_place_before", "_place_after",
            "_surname_before", "_has_lower", "_free_text", "_space", "_comma", "_digit",
            "_card_ok", "_ten_ok", "_nhs_shape", "_nhs_near", "_bsn_ok", "_steuer_ok",
            "_decimal", "_number_range", "_sep1", "_us_shape", "_run_code")
_KERNELS = ("_build_table", "scan_kernel", "finish_kernel")
_LOCK = threading.Lock()
_COMPILED = False


def _compile() -> None:
    """Replace this module's scanners by numba kernels (helpers first, so that the kernels
    calling them compile against them); cached on disk like the engine's kernels.

    The helpers are compiled without numba's reference counting (``_nrt=False``): they
    only read the arrays they are given (none allocates, returns or keeps one), and a
    call counting its array arguments in and out costs some 10 ns, twenty times the
    work of a small helper (``_digits`` on each byte of the notes: 0.041 s counted,
    0.002 s not)."""
    global _COMPILED
    with _LOCK:
        if _COMPILED:
            return
        from numba import njit
        from numba.core.options import DefaultOptions
        # (numba's own option, in the pinned 0.68; without it the helpers count, slower)
        uncounted = {"_nrt": False} if hasattr(DefaultOptions, "_nrt") else {}
        g = globals()
        for name in _HELPERS:
            g[name] = njit(cache=True, nogil=True, **uncounted)(g[name])
        for name in _KERNELS:
            g[name] = njit(cache=True, nogil=True)(g[name])
        _COMPILED = True


# --- Python side ------------------------------------------------------------------------------
def use_fast(n: int) -> bool:
    """Whether ``n`` values go straight to the compiled scanner: from ``FAST_FROM`` when
    numba is loaded (a release has run its kernels). Otherwise (``anonymist verify``
    loads no numba for its recount) they are screened in C++ first and only the values
    that may hold something go to the compiled scanner, from ``FAST_COLD_FROM`` of
    them (`find_values`): loading numba and the kernels costs about a second of a
    fresh process and ``find_spans`` takes some 20,000 values a second; the count is
    of the values let through in this process so far (``_COLD_PASSED``), as a large
    file is scanned in batches."""
    import sys
    return "numba" in sys.modules and n >= FAST_FROM


def find_values(texts: list[str], values: IdentifyingValues | None,
                need_numbers: bool = False) -> Found:
    """``find_spans`` of each of ``texts`` as a `Found`, the fastest way: the compiled
    scanner (`use_fast`), or the C++ screen then the compiled scanner or ``find_spans``
    on the values it lets through."""
    if use_fast(len(texts)):
        return find_all(texts, values, need_numbers)
    return _reference(texts, values, need_numbers,
                      compiled_from=max(0, FAST_COLD_FROM - _COLD_PASSED[0]))


#: values the C++ screen has let through to ``find_spans`` in this process so far: a
#: large file is scanned in batches, each under ``FAST_COLD_FROM``, whose sum is not
#: (a 300,000-row release: 115,000 values through ``find_spans``, 2.7 s, where loading
#: the compiled scanner costs about a second); once the sum reaches it, the batches go
#: to the compiled scanner
_COLD_PASSED = [0]


@functools.lru_cache(maxsize=32)
def _table(words: frozenset):
    """A word set as the kernels read it: lower-case ASCII bytes, offsets, hash table."""
    _compile()
    kept = sorted(w for w in words if w.isascii())
    data, offs = _word_list(kept)
    return data, offs, _build_table(data, offs)


@functools.lru_cache(maxsize=1)
def _constants():
    lengths = np.zeros((26, 26), dtype=np.int64)
    for country, n in _IBAN_LENGTHS.items():
        lengths[ord(country[0]) - 65, ord(country[1]) - 65] = n
    labels = [f"[{k}]" for k in KINDS]
    return (lengths, _word_list(list(_TITLES)), _word_list(list(_SAINTS)),
            _word_list(_PLACE_WORDS), _word_list(labels))


class Found:
    """What ``find_spans`` finds in each of many values (numbered 0..n-1, or by the codes
    of `renumbered`): every span as arrays sorted by value then start (``value``,
    ``kind`` index into ``KINDS``), the values holding any scrubbed (``scrubbed``:
    value -> text), and the job's identifying numbers each holds as tokens
    (``numbers``)."""

    def __init__(self, value=None, start=None, end=None, kind=None):
        empty = np.zeros(0, dtype=np.int64)
        self.value = empty if value is None else value
        self.start = empty if start is None else start
        self.end = empty if end is None else end
        self.kind = empty if kind is None else kind
        self.scrubbed: dict[int, str] = {}
        self.numbers: dict[int, frozenset[str]] = {}
        #: where the kernels found each value's numbers: value -> [(start, end, number)]
        self.tokens: dict[int, list[tuple[int, int, str]]] = {}
        self._spans: dict[int, list] = {}   # as find_spans gave them (details and all)
        self.handed = 0  # values left to find_spans

    @classmethod
    def of_spans(cls, spans: dict[int, list]) -> "Found":
        """From ``find_spans``'s spans per value."""
        keys = sorted(spans)
        rows = [(v, s.start, s.end, _K[s.kind]) for v in keys for s in spans[v]]
        arrays = np.asarray(rows, dtype=np.int64).reshape(-1, 4).T
        out = cls(*(np.ascontiguousarray(a) for a in arrays))
        out._spans = dict(spans)
        return out

    def merged(self, other: "Found") -> "Found":
        """Both (values of one numbering, each in one of them)."""
        order = np.lexsort((np.concatenate([self.start, other.start]),
                            np.concatenate([self.value, other.value])))
        out = Found(*(np.concatenate([getattr(self, n), getattr(other, n)])[order]
                      for n in ("value", "start", "end", "kind")))
        for name in ("scrubbed", "numbers", "tokens", "_spans"):
            setattr(out, name, {**getattr(self, name), **getattr(other, name)})
        out.handed = self.handed + other.handed
        return out

    def renumbered(self, codes: np.ndarray) -> "Found":
        """The same with value ``i`` numbered ``codes[i]`` (increasing)."""
        codes = np.asarray(codes, dtype=np.int64)
        out = Found(codes[self.value], self.start, self.end, self.kind)
        for name in ("scrubbed", "numbers", "tokens", "_spans"):
            setattr(out, name, {int(codes[i]): x for i, x in getattr(self, name).items()})
        out.handed = self.handed
        return out

    @property
    def any(self) -> bool:
        return len(self.value) > 0

    def holding(self) -> np.ndarray:
        """The values holding a span (sorted)."""
        v = self.value  # (sorted)
        return v[np.concatenate(([True], v[1:] != v[:-1]))] if len(v) else v

    def per_kind(self) -> dict[str, np.ndarray]:
        """Per kind found: the values holding one (sorted)."""
        return {KINDS[k]: np.unique(self.value[self.kind == k])
                for k in np.unique(self.kind).tolist()}

    def replaced(self, counts: np.ndarray) -> dict[str, int]:
        """Spans per kind, each counted ``counts[value]`` times."""
        return {KINDS[k]: int(counts[self.value[self.kind == k]].sum())
                for k in np.unique(self.kind).tolist()}

    def _range(self, i: int) -> tuple[int, int]:
        """Where value ``i``'s spans are in the arrays."""
        if getattr(self, "_bounds", None) is None:
            values, first, counts = np.unique(self.value, return_index=True,
                                              return_counts=True)
            self._bounds = dict(zip(values.tolist(), zip(first.tolist(),
                                                         (first + counts).tolist())))
        return self._bounds.get(i, (0, 0))

    def triples(self, values: list[int]) -> list[list[tuple[int, int, str]]]:
        """Each of ``values``' spans as (start, end, kind)."""
        values = np.asarray(values, dtype=np.int64)
        first = np.searchsorted(self.value, values, "left")
        n = np.searchsorted(self.value, values, "right") - first
        at = np.repeat(first - np.cumsum(n) + n, n) + np.arange(int(n.sum()))
        spans = list(zip(self.start[at].tolist(), self.end[at].tolist(),
                         [KINDS[k] for k in self.kind[at].tolist()]))
        bounds = np.zeros(len(values) + 1, dtype=np.int64)
        np.cumsum(n, out=bounds[1:])
        bounds = bounds.tolist()
        return [spans[a:z] for a, z in zip(bounds[:-1], bounds[1:])]

    def spans(self, i: int) -> list:
        """Value ``i``'s spans (``Span``; the kernels' have no detail)."""
        if i not in self._spans:
            from engine.identifiers.patterns import Span
            a, z = self._range(i)
            self._spans[i] = [Span(s, e, KINDS[k]) for s, e, k in
                              zip(self.start[a:z].tolist(), self.end[a:z].tolist(),
                                  self.kind[a:z].tolist())]
        return self._spans[i]

    def scrub(self, i: int, text: str) -> str:
        """Value ``i`` (``text``) scrubbed."""
        if i not in self.scrubbed:
            from engine.identifiers import scrub_text
            self.scrubbed[i] = scrub_text(text, self.spans(i))
        return self.scrubbed[i]


#: characters of values scanned in one call of the kernels (their arrays are sized by it)
CHUNK_CHARS = 1 << 19


def find_all(texts: list[str], values: IdentifyingValues | None,
             need_numbers: bool = False) -> Found:
    """``find_spans(texts[i], values)`` for every ``i``, as a `Found` (every value
    holding a span scrubbed); with ``need_numbers``, ``numbers`` holds
    ``values.candidate_numbers(texts[i])`` where not empty. The values are cut into
    chunks of about ``CHUNK_CHARS`` characters, each chunk's kernels run in a thread
    (they release the GIL), the decisions in Python between them."""
    _compile()
    out = Found()
    if not texts:
        return out
    sizes = np.cumsum(np.fromiter(map(len, texts), dtype=np.int64, count=len(texts)))
    cuts = np.searchsorted(sizes, np.arange(CHUNK_CHARS, int(sizes[-1]), CHUNK_CHARS))
    bounds = [0] + sorted(set(cuts.tolist()) - {0, len(texts)}) + [len(texts)]
    chunks = [_Chunk(texts, a, z, values, need_numbers)
              for a, z in zip(bounds[:-1], bounds[1:])]
    if len(chunks) > 1 and (os.cpu_count() or 1) > 1:
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(2) as pool:
            list(pool.map(_Chunk.patterns, chunks))
            for c in chunks:
                c.decide()
            list(pool.map(_Chunk.names, chunks))
    else:
        for c in chunks:
            c.patterns()
            c.decide()
            c.names()
    for c in chunks:
        c.collect(out)
    out.value, out.start, out.end, out.kind = (
        np.concatenate([c.part[i] for c in chunks]) for i in range(4))
    rest = np.concatenate([c.handed_over() for c in chunks])
    if len(rest):  # the values left to find_spans
        out = out.merged(_reference([texts[v] for v in rest], values, need_numbers)
                         .renumbered(rest))
        out.handed = len(rest)
    return out


class _Chunk:
    """The values ``texts[a:z]`` through the kernels: `patterns` (a kernel), `decide`
    (the runs of digits, in Python), `names` (kernels), `collect` (into a `Found`,
    numbered from ``a``)."""

    def __init__(self, texts: list[str], a: int, z: int, values, need_numbers: bool):
        self.texts, self.a = texts[a:z], a
        self.values, self.need_numbers = values, need_numbers
        # the values' UTF-8 bytes end to end and where each starts (Arrow's large_string
        # layout), built here: ``pa.array`` of a Python list imports pandas (0.3-0.4 s
        # of CPU in a fresh process) to ask whether the list is one of its arrays
        # (ASCII text, most often, encoded at once: a character is a byte)
        joined = "".join(self.texts)
        encoded = self.texts if joined.isascii() else [t.encode("utf-8") for t in self.texts]
        self.offs = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)),
                  out=self.offs[1:])
        self.offs.flags.writeable = False  # as Arrow's: the kernels' cached signatures
        data = joined.encode("ascii") if encoded is self.texts else b"".join(encoded)
        self.b = np.frombuffer(data or b"\0", dtype=np.uint8)  # read-only: one type for numba
        empty = frozenset()
        self.constants = _constants()
        self.tables = {"codes": _table(values.codes if values is not None else empty),
                       "given": _table(given_names()),
                       "named": _table(values.name_tokens if values is not None else empty),
                       "capital": _table(values.capitalised_tokens if values is not None
                                         else empty),
                       "function": _table(FUNCTION_WORDS), "common": _table(COMMON_WORDS),
                       "numbers": _table(values.numbers if values is not None and need_numbers
                                         else empty)}

    def patterns(self) -> None:
        t = self.tables
        _, titles, saints, places, _ = self.constants
        self.found = scan_kernel(
            self.b, self.offs, self.constants[0], t["codes"], t["given"], t["named"],
            t["capital"], t["function"], *titles, *saints, *places, t["numbers"],
            self.need_numbers and self.values is not None and bool(self.values.numbers))

    def decide(self) -> None:
        """The runs of digits the kernel left: a telephone number where ``phonenumbers``
        says so (``patterns.asks_phone``, the kernel having made `_phone`'s other tests),
        and a run that may end in an extension by ``patterns.digit_run_kind`` itself."""
        handed, in_text, sv, ss, se, sk, dv, ds, de, dk = self.found[:10]
        texts, offs = self.texts, self.offs
        keep = []
        for v, s, e, code in zip(dv.tolist(), ds.tolist(), de.tolist(), dk.tolist()):
            text, lo = texts[v], int(offs[v])
            run = text[s - lo:e - lo]
            if code == RUN_PYTHON:
                found = digit_run_kind(text, run, s - lo, bool(in_text[v]), is_phone)
                kind = None if found is None else _K[found[0]]
            else:
                kind = _PHONE if asks_phone(run) else _ID if code == RUN_ASK_NHS else None
            if kind is not None:
                keep.append((v, s, e, kind))
        kept = np.asarray(keep, dtype=np.int64).reshape(-1, 4).T
        pv, ps, pe, pk = (np.concatenate([x, k]) for x, k in zip((sv, ss, se, sk), kept))
        order = np.lexsort((ps, pv))
        self.spans = pv[order], ps[order], pe[order], pk[order]
        self.handed = handed

    def names(self) -> None:
        *_, labels = self.constants
        cv, cs, ce, uv, us, ue = self.found[10:]
        fv, fs, fe, fk, sel, data, data_offs = finish_kernel(
            self.b, self.offs, self.handed, *self.spans, cv, cs, ce, self.tables["common"],
            *labels)
        self.named = fv, fs, fe, fk, uv, us, ue
        self.scrubbed = (sel, data, data_offs) if len(fv) else None

    def collect(self, out: Found) -> None:
        import pyarrow as pa
        fv, fs, fe, fk, uv, us, ue = self.named
        a, offs = self.a, self.offs
        self.part = (fv + a, fs - offs[fv], fe - offs[fv], fk)
        if self.scrubbed is not None:  # the values holding a span, scrubbed
            sel, data, soffs = self.scrubbed
            scrubbed = pa.LargeStringArray.from_buffers(  # (to_numpy imports pandas)
                len(sel), pa.py_buffer(soffs), pa.py_buffer(data)).to_pylist()
            out.scrubbed.update(zip((sel + a).tolist(), scrubbed))
        texts, numbers, tokens = self.texts, out.numbers, out.tokens
        for v, s, e in zip(uv.tolist(), (us - offs[uv]).tolist(), (ue - offs[uv]).tolist()):
            number = texts[v][s:e]
            held = tokens.get(v + a)
            if held is None:
                tokens[v + a] = [(s, e, number)]
                numbers[v + a] = frozenset((number,))
            else:
                held.append((s, e, number))
                numbers[v + a] = numbers[v + a] | {number}

    def handed_over(self) -> np.ndarray:
        return np.flatnonzero(self.handed) + self.a


def _reference(texts: list[str], values: IdentifyingValues | None,
               need_numbers: bool, compiled_from: int | None = None) -> Found:
    """``find_spans`` on each of ``texts`` (those that may hold anything, screened in
    C++ first when there are many); when ``compiled_from`` or more pass the screen,
    those through the compiled scanner instead."""
    from engine.identifiers import find_spans
    codes, absent = range(len(texts)), [0] * len(texts)
    if len(texts) >= 64:
        from engine.identifiers.prefilter import screen
        may, cannot = screen(texts, values)
        codes = np.flatnonzero(may)
        if compiled_from is not None:
            _COLD_PASSED[0] += len(codes)
        if compiled_from is not None and len(codes) >= compiled_from:
            return find_all([texts[i] for i in codes.tolist()], values,
                            need_numbers).renumbered(codes)
        absent = cannot[codes].tolist()
        codes = codes.tolist()
    spans, numbers = {}, {}
    for i, no in zip(codes, absent):
        found = find_spans(texts[i], values, absent=no)
        if found:
            spans[i] = found
        if need_numbers and values is not None:
            cand = values.candidate_numbers(texts[i])
            if cand:
                numbers[i] = cand
    out = Found.of_spans(spans)
    out.numbers = numbers
    return out
