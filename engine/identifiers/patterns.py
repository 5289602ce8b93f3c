"""Direct identifiers recognised inside a text, each by its shape and, where it has
one, its check: e-mail addresses, URLs, IBANs (ISO 13616 mod 97), payment card
numbers (Luhn), IP addresses (``ipaddress``), national identifiers with a check (US
SSN without its never-issued ranges, UK NHS number mod 11, Dutch BSN 11-proof, German
Steuer-ID ISO 7064 MOD 11,10) and telephone numbers (``phonenumbers``, on candidates
a cheap pattern finds first).

``pattern_spans(text)`` gives the spans found, without overlaps, in text order.
"""
from __future__ import annotations

import bisect
import functools
import ipaddress
import re
import threading
from dataclasses import dataclass

NAME, EMAIL, PHONE, IBAN, CARD, IP, URL, ID = (
    "NAME", "EMAIL", "PHONE", "IBAN", "CARD", "IP", "URL", "ID")
#: every kind, as the scrubbed text writes it ("[PHONE]")
KINDS = (NAME, EMAIL, PHONE, IBAN, CARD, IP, URL, ID)
KIND_LABELS = {NAME: "person name", EMAIL: "e-mail address", PHONE: "telephone number",
               IBAN: "IBAN", CARD: "payment card number", IP: "IP address", URL: "URL",
               ID: "identifier"}


@dataclass(frozen=True)
class Span:
    """One identifier found in a text: ``text[start:end]`` is of ``kind``."""

    start: int
    end: int
    kind: str
    detail: str = ""


# --- cheap pre-filter: a text none of these match holds no pattern identifier --------
#: three digits (one separator between each at most), an @, a URL's scheme or www., an
#: IPv6's colons
PREFILTER = re.compile(r"\d[ .\-/()]?\d[ .\-/()]?\d|@|://|www\.|[0-9A-Fa-f]:[0-9A-Fa-f]*:",
                       re.ASCII | re.IGNORECASE)

_EMAIL = re.compile(r"(?<![\w.+\-])[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)*\.[A-Za-z]{2,}(?![\w\-])")
_URL = re.compile(r"(?i)\b(?:(?:https?|ftp)://|www\.)[^\s<>\"']+")
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b")
#: a run of digits and separators (not the tail of a code such as V-2023-000123)
_DIGIT_RUN = re.compile(r"(?<![\w+])(?<![^\W\d_][\-/])(?:\+ ?)?\(?\d[\d ().\-/]{5,22}\d"
                        r"(?:[ ]?(?:x|ext\.?|#)[ ]?\d{1,6})?(?!\w)")
#: a telephone extension at the end of a number (555-123-4567x890)
_EXTENSION = re.compile(r"[ ]?(?:x|ext\.?|#)[ ]?\d{1,6}$")
_IPV4 = re.compile(r"(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?![\w.]|\.\d)")
_IPV6 = re.compile(r"(?<![\w:])[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}(?![\w:])")
_SSN = re.compile(r"(?<![\w\-])(\d{3})-(\d{2})-(\d{4})(?![\w\-])")
_DATE = re.compile(r"\d{4}[\-/.]\d{1,2}[\-/.]\d{1,2}|\d{1,2}[\-/.]\d{1,2}[\-/.]\d{2,4}")
#: dates and times in a text: never part of a number found
_DATE_TIME = re.compile(r"(?<![\d\-/.])(?:\d{4}[\-/.]\d{1,2}[\-/.]\d{1,2}|\d{1,2}[\-/.]\d{1,2}"
                        r"[\-/.]\d{2,4})(?![\d\-/.])|\b\d{1,2}:\d{2}(?::\d{2})?\b")
_NHS_NEAR = re.compile(r"(?i)\bNHS\b")
_NHS_SHAPE = re.compile(r"\d{3}[ \-]?\d{3}[ \-]?\d{4}")
_LETTERS = re.compile(r"[^\W\d_]{2}")
_IBAN_START = re.compile(r"[A-Z]{2}\d{2}")
_DATE_HINT = re.compile(r"\d[\-/.:]\d")
_NON_DIGIT = re.compile(r"\D")
_PLAIN = re.compile(r"[\d \-]+")
_ZIP4 = re.compile(r"\d{5}-\d{4}")
_RANGE = re.compile(r"(\d+) ?[-–] ?(\d+)")
_DECIMAL = re.compile(r"\d+\.\d+|\d{1,3}(?:\.\d{3})+")
_GROUPED = re.compile(r"\d[ ().\-/]+\d")
_US_PHONE_SHAPE = re.compile(r"(?:\+?1[ .\-]?)?(?:\(\d{3}\) ?|\d{3}[ .\-])\d{3}[ .\-]\d{4}")
#: default regions for numbers written without their country code
REGIONS = ("US", "GB", "DE", "NL", "FR", "CA", "AU", "IE", "AT", "CH", "BE", "IT", "ES")
#: IBAN lengths by country (ISO 13616 registry, the common ones; others: 15 to 34)
_IBAN_LENGTHS = {"AD": 24, "AT": 20, "BE": 16, "CH": 21, "CZ": 24, "DE": 22, "DK": 18,
                 "ES": 24, "FI": 18, "FR": 27, "GB": 22, "GR": 27, "HR": 21, "HU": 28,
                 "IE": 22, "IT": 27, "LU": 20, "NL": 18, "NO": 15, "PL": 28, "PT": 25,
                 "SE": 24, "SI": 19, "SK": 24}


# --- checks -----------------------------------------------------------------------------
def iban_ok(text: str) -> bool:
    """ISO 13616: the country's length and mod 97 == 1 of the rearranged number."""
    s = text.replace(" ", "").upper()
    if not 15 <= len(s) <= 34 or _IBAN_LENGTHS.get(s[:2], len(s)) != len(s):
        return False
    moved = s[4:] + s[:4]
    digits = "".join(str(int(c, 36)) for c in moved)
    return int(digits) % 97 == 1


def luhn_ok(digits: str) -> bool:
    total = 0
    for i, c in enumerate(reversed(digits)):
        d = int(c)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def card_ok(digits: str) -> bool:
    """13-19 digits of a card network's range (2-6), Luhn, not one digit repeated."""
    return (13 <= len(digits) <= 19 and digits[0] in "23456" and len(set(digits)) > 1
            and luhn_ok(digits))


def ssn_ok(area: str, group: str, serial: str) -> bool:
    """A US SSN outside the never-issued ranges (area 000, 666, 900-999; group 00;
    serial 0000)."""
    a = int(area)
    return a != 0 and a != 666 and a < 900 and group != "00" and serial != "0000"


def nhs_ok(digits: str) -> bool:
    """UK NHS number: 10 digits, mod 11 check digit."""
    if len(digits) != 10 or len(set(digits)) == 1:
        return False
    check = 11 - sum(int(d) * (10 - i) for i, d in enumerate(digits[:9])) % 11
    check = 0 if check == 11 else check
    return check != 10 and check == int(digits[9])


def bsn_ok(digits: str) -> bool:
    """Dutch BSN: 9 digits, the 11-proof (9..2 weights, the last digit -1)."""
    if len(digits) != 9 or digits[0] == "0" and digits[1] == "0" or len(set(digits)) == 1:
        return False
    total = sum(int(d) * (9 - i) for i, d in enumerate(digits[:8])) - int(digits[8])
    return total % 11 == 0 and total != 0


def steuer_id_ok(digits: str) -> bool:
    """German Steuer-ID: 11 digits, no leading 0, in the first ten one digit twice or
    three times and the check digit of ISO 7064 MOD 11,10."""
    if len(digits) != 11 or digits[0] == "0":
        return False
    counts = sorted((digits[:10].count(d) for d in set(digits[:10])), reverse=True)
    if counts[0] not in (2, 3) or counts[1] > 1:
        return False
    product = 10
    for d in digits[:10]:
        total = (int(d) + product) % 10
        product = (total or 10) * 2 % 11
    check = 11 - product
    return (0 if check == 10 else check) == int(digits[10])


def ip_ok(text: str) -> bool:
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return False
    return not (ip.is_unspecified or (ip.version == 4 and text.startswith("0.")))


_phonenumbers = None


def _phones():
    global _phonenumbers
    if _phonenumbers is None:
        import phonenumbers
        _phonenumbers = phonenumbers
    return _phonenumbers


@functools.lru_cache(maxsize=1 << 16)  # a patient's number recurs in their visits' notes
def phone_ok(candidate: str, in_text: bool) -> str | None:
    """The region a telephone number ``candidate`` is valid in (``phonenumbers``), or
    None. A number without separators nor country code counts only within free text
    (``in_text``): a column of bare numbers is amounts or codes."""
    return _phone(candidate, in_text, REGIONS)


#: `is_phone`'s order of the regions: the last one a number was valid in first
_LATEST = list(REGIONS)
_LATEST_LOCK = threading.Lock()


@functools.lru_cache(maxsize=1 << 16)
def is_phone(candidate: str, in_text: bool) -> str | None:
    """``""`` where `phone_ok` gives a region, None where it gives None, for callers
    that need no region (the compiled scanner keeps the kind only). A number without
    its country code is valid in one of ``REGIONS`` or in none whatever the order they
    are tried in: here the region the library last found a number valid in comes first
    (a table's numbers are mostly of one country: one parse each instead of up to 13;
    a North American shape, taken without asking, moves none)."""
    with _LATEST_LOCK:
        order = tuple(_LATEST)
    judged = []
    region = _phone(candidate, in_text, order, judged)
    _judged_first(judged, order)
    return None if region is None else ""


@functools.lru_cache(maxsize=1 << 16)
def asks_phone(candidate: str) -> bool:
    """Whether ``phonenumbers`` takes ``candidate`` for a telephone number, where `_phone`
    asks it (the compiled scanner has made `_phone`'s tests before: no extension, seven
    to fifteen digits, no date, decimal, ZIP+4 or range, no North American shape), the
    regions tried in `is_phone`'s order."""
    with _LATEST_LOCK:
        order = tuple(_LATEST)
    judged = []
    region = _asked(candidate, candidate.startswith("+") or candidate.startswith("00"),
                    order, judged)
    _judged_first(judged, order)
    return region is not None


def _judged_first(judged: list, order: tuple[str, ...]) -> None:
    """The region the library found a number valid in (``judged``) first in `_LATEST`
    (not a North American shape taken unasked)."""
    if judged and judged[0] != order[0]:
        with _LATEST_LOCK:
            _LATEST.remove(judged[0])
            _LATEST.insert(0, judged[0])


def _phone(candidate: str, in_text: bool, regions: tuple[str, ...],
           judged: list | None = None) -> str | None:
    """`phone_ok`, the regions of a number without its country code tried in the order
    of ``regions``; ``judged`` gets the region the library found the number valid in."""
    extension = _EXTENSION.search(candidate)
    if extension:
        candidate = candidate[:extension.start()]
    digits = _NON_DIGIT.sub("", candidate)
    if not 7 <= len(digits) <= 15 or _DATE.fullmatch(candidate.strip()):
        return None
    international = candidate.startswith("+") or candidate.startswith("00")
    grouped = candidate.startswith("(") or _GROUPED.search(candidate) is not None
    if not (international or grouped) and not (in_text and len(digits) >= 10):
        return None
    if _DECIMAL.fullmatch(candidate):
        return None  # a decimal or thousands, not a number to dial
    if _ZIP4.fullmatch(candidate):
        return None  # a US ZIP+4 code
    span = _RANGE.fullmatch(candidate)
    if span and len(span.group(1)) == len(span.group(2)) and span.group(1) <= span.group(2):
        return None  # a range of numbers (1930-1939), a generalized label
    us_shape = _US_PHONE_SHAPE.fullmatch(candidate.strip()) is not None
    if us_shape and not international:
        # valid in the US or not, a North American shape without its country code is
        # taken for a number (below): no need to ask the library
        return "US"
    region = _asked(candidate, international, regions, judged)
    if region is not None:
        return region
    # a well-formed North American number that is not assigned (555 exchanges, unused
    # area codes): fictional, or just not in the library's tables; a number still
    return "US" if us_shape else None


def _asked(candidate: str, international: bool, regions: tuple[str, ...],
           judged: list | None = None) -> str | None:
    """`_phone`'s question to ``phonenumbers``: the region ``candidate`` is valid in
    (its country code when ``international``, else the first of ``regions``), or
    None; ``judged`` gets a region found without a country code."""
    pn = _phones()
    text = "+" + candidate[2:] if candidate.startswith("00") else candidate
    for region in ((None,) if international else regions):
        try:
            number = pn.parse(text, region)
        except pn.NumberParseException:
            continue
        if region is None:
            # written with its country code: a number to dial where it is valid, and
            # where the library does not know the range but the length fits the country
            # (fictional ranges such as UK 01632 960xxx); the cheap length test first
            if pn.is_possible_number(number) or pn.is_valid_number(number):
                return f"+{number.country_code}"
        elif pn.is_valid_number(number):
            if judged is not None:
                judged.append(region)
            return region
    return None


# --- finding ------------------------------------------------------------------------------
class Taken:
    """Non-overlapping intervals of a text, sorted: whether a new one overlaps is a
    binary search (a long text with thousands of spans stays linear-logarithmic)."""

    def __init__(self):
        self.starts: list[int] = []
        self.ends: list[int] = []

    def free(self, start: int, end: int) -> bool:
        i = bisect.bisect_right(self.starts, start)
        if i and self.ends[i - 1] > start:
            return False
        return not (i < len(self.starts) and self.starts[i] < end)

    def take(self, start: int, end: int) -> bool:
        """Add the interval when it overlaps none; whether it was added."""
        if not self.free(start, end):
            return False
        i = bisect.bisect_right(self.starts, start)
        self.starts.insert(i, start)
        self.ends.insert(i, end)
        return True


def _add(spans: list[Span], taken: Taken, start: int, end: int, kind: str,
         detail: str = "") -> bool:
    if not taken.take(start, end):
        return False
    spans.append(Span(start, end, kind, detail))
    return True


#: patterns a caller may know absent from a text (``absent`` of `pattern_spans`, bits):
#: found by the Arrow pre-filter for many texts at once (``prefilter.absent_stages``)
NO_IBAN, NO_IPV4, NO_IPV6, NO_SSN, NO_DIGIT_RUN = 1, 2, 4, 8, 16
#: and the names ``find_spans`` looks for: a title, a listed given name, one of the
#: job's name words, one of its codes
NO_TITLE, NO_GIVEN, NO_VALUE_NAMES, NO_CODES = 32, 64, 128, 256


def pattern_spans(text: str, in_text: bool | None = None, absent: int = 0) -> list[Span]:
    """Every pattern identifier in ``text``, without overlaps, in text order. ``in_text``:
    whether the text is free text (letters around the numbers; default: it has a
    letter): bare numbers count as national identifiers or phones only there. Each
    pattern runs only when a character it needs is there, and not when ``absent`` (bits
    ``NO_IBAN``...) says the text cannot hold a match of it."""
    if not PREFILTER.search(text):
        return []
    if in_text is None:
        in_text = _LETTERS.search(text) is not None
    spans: list[Span] = []
    taken = Taken()
    if "@" in text:
        for m in _EMAIL.finditer(text):
            _add(spans, taken, m.start(), m.end(), EMAIL)
    if "://" in text or "www." in text or "WWW." in text:
        for m in _URL.finditer(text):
            end = m.end()
            while end > m.start() and text[end - 1] in ".,;:!?)]}'\"":
                end -= 1
            _add(spans, taken, m.start(), end, URL)
    if not absent & NO_IBAN and _IBAN_START.search(text):
        for m in _IBAN.finditer(text):
            if taken.free(m.start(), m.end()) and iban_ok(m.group()):
                _add(spans, taken, m.start(), m.end(), IBAN, m.group()[:2])
    if not absent & NO_IPV4 and "." in text:
        for m in _IPV4.finditer(text):
            if ip_ok(m.group()):
                _add(spans, taken, m.start(), m.end(), IP, "IPv4")
    if not absent & NO_IPV6 and ":" in text:
        for m in _IPV6.finditer(text):
            if m.group().count(":") >= 2 and ip_ok(m.group()):
                _add(spans, taken, m.start(), m.end(), IP, "IPv6")
    # dates and times are no numbers to find: masked, same length
    if absent & NO_SSN and absent & NO_DIGIT_RUN:
        spans.sort(key=lambda s: s.start)
        return spans
    masked = _DATE_TIME.sub(_mask, text) if _DATE_HINT.search(text) else text
    if not absent & NO_SSN and "-" in masked:
        for m in _SSN.finditer(masked):
            if ssn_ok(*m.groups()):
                _add(spans, taken, m.start(), m.end(), ID, "US SSN")
    for m in (() if absent & NO_DIGIT_RUN else _DIGIT_RUN.finditer(masked)):
        run = m.group()
        if run.startswith("(") and ")" not in run:
            run, start = run[1:], m.start() + 1
        else:
            start = m.start()
        end = start + len(run)
        if not taken.free(start, end):
            continue  # part of an IBAN, an e-mail address...
        found = digit_run_kind(text, run, start, in_text)
        if found is not None:
            _add(spans, taken, start, end, *found)
    spans.sort(key=lambda s: s.start)
    return spans


def digit_run_kind(text: str, run: str, start: int, in_text: bool,
                   phone=phone_ok) -> tuple[str, str] | None:
    """What a run of digits and separators ``run`` found at ``start`` of ``text`` is
    (kind, detail): a payment card, a national identifier or a telephone number; None:
    nothing (``in_text``: whether ``text`` is free text). ``phone``: `phone_ok`, or
    `is_phone` where the detail of a telephone number is not needed."""
    digits = _NON_DIGIT.sub("", _EXTENSION.sub("", run))
    if len(digits) < 7:
        return None
    plain = _PLAIN.fullmatch(run) is not None
    nhs = in_text and len(digits) == 10 and nhs_ok(digits) and _NHS_SHAPE.fullmatch(run)
    if plain and card_ok(digits):
        return CARD, ""
    if nhs and _NHS_NEAR.search(text, max(0, start - 24), start):
        return ID, "UK NHS number"
    if in_text and run.isdigit() and len(run) == 9 and bsn_ok(run):
        return ID, "Dutch BSN"
    if in_text and run.isdigit() and len(run) == 11 and steuer_id_ok(run):
        return ID, "German Steuer-ID"
    region = phone(run, in_text)
    if region is not None:
        return PHONE, region
    if nhs:  # a checked NHS number that is no telephone number
        return ID, "UK NHS number"
    return None


def _mask(m: re.Match) -> str:
    return "x" * len(m.group())
