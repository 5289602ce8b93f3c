"""HIPAA Safe Harbor: find attributes that hold one of the 18 identifier categories.

An attribute matches by **name** (keywords of the category in its name, split into
words: ``patientEmail`` -> "patient email") or by **values** (a share of a random
sample of its values fits a pattern: e-mail, phone, SSN, ZIP, URL, IP, MAC, VIN,
UUID, dates, common first names and surnames...). A name match is dropped when the
sampled values clearly do not fit the category (an ``account_type`` of "checking",
a ``date`` column of years only, an ``email_opt_in`` of yes/no), and ages count only
when some value is above 89. A column whose values hold identifiers inside their text
(a phone number or a name in a note: ``engine.identifiers``, the scan every release
runs) matches too. Every match says why it matched.

Sampling keeps the cost independent of the table size: at most ``sample_size``
rows (10,000 by default, fixed seed), each distinct value tested once.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from engine.analysis.statistics import Data, column_of, n_rows
from engine.data.datatypes import DATE_FORMATS, DateType
from engine.data.table import EncodedTable
from engine.identifiers import KIND_LABELS, find_spans
from engine.identifiers.patterns import ip_ok

CATEGORIES = (
    "Names", "Geographic subdivisions smaller than a state", "Dates (except year) and ages "
    "over 89", "Telephone numbers", "Fax numbers", "E-mail addresses",
    "Social security numbers", "Medical record numbers", "Health plan beneficiary numbers",
    "Account numbers", "Certificate/license numbers", "Vehicle identifiers and serial "
    "numbers", "Device identifiers and serial numbers", "Web URLs", "IP addresses",
    "Biometric identifiers", "Full-face photographs and comparable images",
    "Other unique identifying numbers, characteristics or codes")
(NAMES, GEOGRAPHIC, DATES, PHONE, FAX, EMAIL, SSN, MEDICAL_RECORD, HEALTH_PLAN, ACCOUNT,
 LICENSE, VEHICLE, DEVICE, URL, IP, BIOMETRIC, PHOTO, OTHER) = CATEGORIES

#: common first names and surnames (US, UK, Germany)
_PERSON_NAMES = frozenset("""
james john robert michael william david richard joseph thomas charles christopher
daniel matthew anthony mark donald steven paul andrew joshua kenneth kevin brian
george timothy ronald edward jason jeffrey ryan jacob gary nicholas eric jonathan
stephen larry justin scott brandon benjamin samuel frank gregory raymond patrick
mary patricia jennifer linda elizabeth barbara susan jessica sarah karen lisa nancy
betty margaret sandra ashley kimberly emily donna michelle carol amanda dorothy
melissa deborah stephanie rebecca sharon laura cynthia kathleen amy angela anna emma
olivia sophia maria hans peter klaus anne julia smith johnson williams brown jones
garcia miller davis rodriguez martinez hernandez lopez gonzalez wilson anderson
thomas taylor moore jackson martin lee perez thompson white harris sanchez clark
ramirez lewis robinson walker young allen king wright scott torres nguyen hill
flores green adams nelson baker hall rivera campbell mitchell carter roberts muller
schmidt schneider fischer weber meyer wagner becker
""".split())

_NUM_ID = frozenset("type kind category categories status class count flag format length "
                    "size verified opt optin consent valid".split())
_NOT_PERSON = frozenset("product company file drug brand hospital facility organization org "
                        "street city country county state item user host domain device column "
                        "table disease diagnosis medication test lab plan course school "
                        "department dept business vendor species project app event "
                        "length bank".split())


@dataclass(frozen=True)
class _Rule:
    """How one category is recognised."""

    category: str
    words: str                  # regex on the spaced, lower-case name ("date of birth")
    fragments: str = ""         # regex on the name without separators ("dateofbirth")
    exclude: frozenset = frozenset()
    plausible: str | None = None  # loose regex a value must fit for a name match to stand
    pattern: str | None = None    # strict regex: values alone identify the category


def _rules() -> tuple[_Rule, ...]:
    ph = r"\+?[\d\s().\-/]{7,20}"
    return (
        _Rule(NAMES, r"\b(name|names|surname|forename|firstname|lastname|fullname)\b",
              r"(firstname|lastname|surname|givenname|familyname|fullname|maidenname)",
              _NOT_PERSON, r".*[^\W\d_].*"),
        _Rule(GEOGRAPHIC, r"\b(zip|zipcode|postal|postcode|plz|street|city|town|county|"
              r"district|precinct|geocode|latitude|longitude|lat|lon|lng|coordinates?|"
              r"(?<!ip )(?<!mac )(?<!e mail )(?<!email )(?<!mail )address)\b",
              r"(zipcode|postalcode|postcode|streetaddress|homeaddress)", _NUM_ID,
              r".*\w.*"),
        _Rule(DATES, r"\b(date|dob|birth|birthday|born|admission|admitted|admit|discharge|"
              r"discharged|death|died|dod|visit)\b", r"(dateofbirth|birthdate|birthday)",
              frozenset({"year", "yr"}), None),
        _Rule(PHONE, r"\b(phone|telephone|tel|mobile|cell|cellphone)\b", r"(phone|mobilenumber)",
              _NUM_ID | {"fax"}, ph,
              r"(\+\d{1,3}[\s.\-]?)?(\(\d{3}\)\s?|\d{3}[\s.\-])\d{3}[\s.\-]\d{4}|\+\d[\d\s\-]{8,16}"),
        _Rule(FAX, r"\b(fax|facsimile)\b", r"(faxnumber|faxno)", _NUM_ID, ph),
        _Rule(EMAIL, r"\b(e mail|email|mail)\b", r"(email)", _NUM_ID, r".*@.*",
              r"[\w.+\-]+@[\w\-]+(\.[\w\-]+)+"),
        _Rule(SSN, r"\b(ssn|social security|socsec)\b",
              r"(socialsecurity)", _NUM_ID, r"[\d\s\-]{9,11}", r"\d{3}-\d{2}-\d{4}"),
        _Rule(MEDICAL_RECORD, r"\b(mrn|medical record|patient id|patient number|chart "
              r"number|case number|record number)\b", r"(medicalrecord|patientid)", _NUM_ID,
              r".*\d.*"),
        _Rule(HEALTH_PLAN, r"\b(health plan|beneficiary|insurance (id|number|no)|member id|"
              r"policy (id|number|no)|subscriber id|medicaid|medicare)\b",
              r"(healthplan|beneficiary|insuranceid|insurancenumber|memberid|subscriberid)",
              _NUM_ID, r".*\d.*"),
        _Rule(ACCOUNT, r"\b(account|acct|iban|credit card|card number|bank)\b",
              r"(accountnumber|accountno|creditcard|cardnumber|iban)", _NUM_ID, r".*\d.*",
              r"[A-Z]{2}\d{2}[A-Z0-9]{11,30}"),
        _Rule(LICENSE, r"\b(licen[cs]e(?! plate)|certificate|certification|permit|npi|dea)\b",
              r"(licen[cs]enumber|driverslicen[cs]e|certificatenumber)", _NUM_ID, r".*\d.*"),
        _Rule(VEHICLE, r"\b(vin|vehicle|licen[cs]e plate|number plate|registration plate|"
              r"plate)\b", r"(licen[cs]eplate|numberplate|vehicleid)", _NUM_ID, r".*\d.*",
              r"(?=.*\d)(?=.*[A-HJ-NPR-Z])[A-HJ-NPR-Z0-9]{17}"),
        _Rule(DEVICE, r"\b(device|serial|imei|udid|mac|mac address)\b",
              r"(deviceid|serialnumber|serialno|macaddress|imei)", _NUM_ID, r".*\w.*",
              r"([0-9A-Fa-f]{2}[:\-]){5}[0-9A-Fa-f]{2}"),
        _Rule(URL, r"\b(url|uri|website|homepage|web site|web page|webpage)\b", r"(website|url)",
              _NUM_ID, r".*[./].*", r"(https?|ftp)://\S+|www\.\S+\.\S+"),
        _Rule(IP, r"\b(ip|ipv4|ipv6|ip address)\b", r"(ipaddress|ipv4|ipv6)", _NUM_ID,
              r"[\da-fA-F.:]+"),
        _Rule(BIOMETRIC, r"\b(biometric|fingerprint|retina|iris|voiceprint|voice print|"
              r"face template|palm print|dna)\b", r"(fingerprint|voiceprint|biometric)"),
        _Rule(PHOTO, r"\b(photo|photograph|picture|image|portrait|headshot|face)\b",
              r"(photo|headshot)", _NUM_ID | {"count"}, None,
              r"\S+\.(jpe?g|png|gif|bmp|tiff?|heic)|data:image/\S+"),
        _Rule(OTHER, r"\b(id|identifier|uuid|guid|username|user name|login|passport|"
              r"national id|customer id|employee id|record id)\b",
              r"(uuid|guid|username|passport|customerid|employeeid|userid)", _NUM_ID, r".*\w.*",
              r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"),
    )


RULES = _rules()
#: distinct sampled values tested per attribute
MAX_VALUES = 2_000


@dataclass(frozen=True)
class IdentifierMatch:
    """One attribute found to hold one category of HIPAA identifiers."""

    attribute: str
    category: str
    source: str   # "name" or "values"
    reason: str


def _name_forms(name: str) -> tuple[str, str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    words = re.findall(r"[a-z]+|\d+", spaced.lower())
    return " ".join(words), "".join(words)


def _share(values: np.ndarray, test: Callable[[str], bool]) -> float:
    return float(np.mean([test(v) for v in values])) if len(values) else 0.0  # distinct values


def _regex(pattern: str) -> Callable[[str], bool]:
    compiled = re.compile(pattern, re.IGNORECASE)
    return lambda v: compiled.fullmatch(v.strip()) is not None


def _is_ip(v: str) -> bool:
    return ip_ok(v.strip())


#: identifiers found inside values (engine.identifiers) by their HIPAA category
_INSIDE = {"EMAIL": EMAIL, "PHONE": PHONE, "URL": URL, "IP": IP, "IBAN": ACCOUNT,
           "CARD": ACCOUNT, "NAME": NAMES, "ID": OTHER}
#: share of sampled values that must hold one for a column to be flagged
INSIDE_SHARE = 0.02


def _inside_matches(name: str, values: np.ndarray) -> list[IdentifierMatch]:
    """Identifiers inside the values (a phone number in a note), by ``engine.identifiers``:
    one match per category held by at least `INSIDE_SHARE` of the sampled values."""
    if not len(values):
        return []
    held: dict[str, int] = {}
    for v in values:
        for kind in {s.kind for s in find_spans(str(v))}:
            held[kind] = held.get(kind, 0) + 1
    out = []
    for kind, n in sorted(held.items(), key=lambda kv: -kv[1]):
        share = n / len(values)
        if share >= INSIDE_SHARE:
            out.append(IdentifierMatch(name, _INSIDE[kind], "values",
                                       f"{share:.0%} of sampled values hold "
                                       f"{KIND_LABELS[kind]}s inside their text"))
    return out


def _is_date(values: np.ndarray) -> tuple[float, str]:
    """Best share of values parsing as full dates (not years only), and the format."""
    best = (0.0, "")
    for fmt in DATE_FORMATS:
        if "%d" in fmt and "%m" in fmt:
            share = float((~np.isnat(DateType(fmt).parse(values))).mean()) if len(values) else 0
            best = max(best, (share, fmt))
    return best


def _is_person_name(v: str) -> bool:
    words = re.findall(r"[^\W\d_]+", v.lower())
    return 0 < len(words) <= 4 and any(w in _PERSON_NAMES for w in words) \
        and not any(c.isdigit() for c in v)


def _sample(data: Data, name: str, size: int, seed: int) -> tuple[np.ndarray, float]:
    """Distinct non-missing values of a random sample of at most ``size`` rows (at most
    `MAX_VALUES` of them) and the ratio of distinct values to sampled present rows."""
    col = column_of(data, name)
    n = n_rows(data)
    rng = np.random.default_rng(seed)
    rows = rng.choice(n, size, replace=False) if n > size else np.arange(n)
    present = col.dictionary[col.codes[rows]].astype(str)
    present = present[np.char.strip(present) != ""]
    values = np.unique(present)
    ratio = len(values) / len(present) if len(present) else 0.0
    if len(values) > MAX_VALUES:
        values = rng.choice(values, MAX_VALUES, replace=False)
    return values, ratio


def _value_matches(name: str, values: np.ndarray, distinct: float,
                   threshold: float) -> list[IdentifierMatch]:
    tests = [(r.category, _share(values, _regex(r.pattern)), f"look like {r.category.lower()}")
             for r in RULES if r.pattern is not None]
    tests += [(IP, _share(values, _is_ip), "are IP addresses"),
              (NAMES, _share(values, _is_person_name), "are common first names or surnames")]
    share, fmt = _is_date(values)
    tests.append((DATES, share, f"are dates with day and month ({fmt})"))
    if any(v.startswith("0") or "-" in v for v in values):  # not just any 5-digit number
        tests.append((GEOGRAPHIC, _share(values, _regex(r"\d{5}(-\d{4})?")),
                      "are 5-digit ZIP codes (with leading zeros or ZIP+4)"))
    found = [IdentifierMatch(name, c, "values", f"{share:.0%} of sampled values {why}")
             for c, share, why in tests if share >= threshold]
    codes = _share(values, _regex(r"(?=.*\d)(?=.*[a-z])[\w\-]{5,}"))
    if not found and len(values) >= 100 and distinct >= 0.95 and codes >= threshold:
        found.append(IdentifierMatch(name, OTHER, "values", f"{distinct:.0%} of sampled rows "
                                     f"have distinct values, {codes:.0%} are letter-digit codes"))
    return found


def _name_match(name: str, rule: _Rule, values: np.ndarray) -> IdentifierMatch | None:
    spaced, squashed = _name_forms(name)
    hit = re.search(rule.words, spaced)
    if hit is None and rule.fragments:
        hit = re.search(rule.fragments, squashed)
    if hit is None or set(spaced.split()) & rule.exclude:
        return None
    if rule.category == DATES and len(values):
        if not _is_date(values)[0] and all(re.fullmatch(r"\d{1,4}", v.strip()) for v in values):
            return None  # years (allowed by Safe Harbor), counts or ages are not dates
    if rule.plausible is not None and len(values) and _share(values, _regex(rule.plausible)) < .5:
        return None
    return IdentifierMatch(name, rule.category, "name", f"the name contains '{hit.group(0)}'")


def _age_match(name: str, values: np.ndarray) -> IdentifierMatch | None:
    if not re.search(r"\bage\b", _name_forms(name)[0]):
        return None
    ages = pd.to_numeric(pd.Series(values), errors="coerce")
    above = int((ages > 89).sum())
    if above == 0:
        return None
    values_text = "1 distinct value" if above == 1 else f"{above} distinct values"
    return IdentifierMatch(name, DATES, "values", f"ages over 89 occur ({values_text} "
                           f"in the sample, up to {ages.max():g})")


def detect_identifiers(data: Data, attributes: Sequence[str] | None = None,
                       sample_size: int = 10_000, threshold: float = 0.8,
                       seed: int = 0) -> list[IdentifierMatch]:
    """Attributes holding HIPAA Safe Harbor identifiers, with the reason of each match.

    Parameters
    ----------
    data
        `EncodedTable` or DataFrame.
    attributes
        Attributes to check (default: all columns).
    sample_size
        Rows sampled per attribute for the value checks.
    threshold
        Share of sampled distinct values that must fit a pattern for a value match.
    seed
        Seed of the row sample, so results are repeatable.

    Returns
    -------
    list of IdentifierMatch
        In attribute order, one per attribute and category (name matches first).
    """
    if attributes is None:
        attributes = data.names if isinstance(data, EncodedTable) else list(data.columns)
    out: list[IdentifierMatch] = []
    for name in map(str, attributes):  # name matches first, then value matches
        values, distinct = _sample(data, name, sample_size, seed)
        found = [m for rule in RULES if (m := _name_match(name, rule, values))]
        if len(found) > 1:  # "patient id" is a medical record number, not just any id
            found = [m for m in found if m.category != OTHER]
        found += [m for m in [_age_match(name, values)] if m]
        seen = {m.category for m in found}
        for m in _value_matches(name, values, distinct, threshold) + \
                _inside_matches(name, values):
            if not (m.category in seen or m.category == OTHER and seen
                    or m.category == PHONE and FAX in seen):
                found.append(m)
                seen.add(m.category)
        out += found
    return out


def identifiers_frame(matches: Sequence[IdentifierMatch]) -> pd.DataFrame:
    """Matches as a table: attribute, category, source, reason."""
    return pd.DataFrame([m.__dict__ for m in matches],
                        columns=["attribute", "category", "source", "reason"])
