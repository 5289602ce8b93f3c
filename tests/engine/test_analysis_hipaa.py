"""HIPAA Safe Harbor detection on a synthetic table with every category and decoys."""
from __future__ import annotations


import numpy as np
import pandas as pd
import pytest

from engine.analysis import hipaa
from engine.analysis.hipaa import detect_identifiers, identifiers_frame
from engine.data.table import EncodedColumn, EncodedTable

N = 200
rng = np.random.default_rng(1)


def _col(fn) -> list[str]:
    return [fn(i) for i in range(N)]


FIRST = ["James", "Mary", "Robert", "Linda", "David", "Susan"]
LAST = ["Smith", "Garcia", "Miller", "Wilson", "Taylor", "Clark"]

#: identifier columns and the category each must be reported with
IDENTIFIERS = {
    "patient_name": (hipaa.NAMES, _col(lambda i: f"{FIRST[i % 6]} {LAST[i % 5]}")),
    "col_a": (hipaa.NAMES, _col(lambda i: f"{LAST[i % 6]}, {FIRST[i % 5]}")),
    "ZipCode": (hipaa.GEOGRAPHIC, _col(lambda i: f"{10000 + i * 37}")),
    "col_b": (hipaa.GEOGRAPHIC, _col(lambda i: f"0{2100 + i}")),
    "street_address": (hipaa.GEOGRAPHIC, _col(lambda i: f"{i + 1} Main Street")),
    "dateOfBirth": (hipaa.DATES, _col(lambda i: f"19{50 + i % 40}-0{1 + i % 9}-1{i % 10}")),
    "col_c": (hipaa.DATES, _col(lambda i: f"1{i % 10}.0{1 + i % 9}.2001")),
    "age": (hipaa.DATES, _col(lambda i: str(20 + i % 75))),
    "home_phone": (hipaa.PHONE, _col(lambda i: f"(555) {100 + i:03d}-{1000 + i:04d}")),
    "col_d": (hipaa.PHONE, _col(lambda i: f"555-{100 + i:03d}-{2000 + i:04d}")),
    "fax": (hipaa.FAX, _col(lambda i: f"555-{300 + i:03d}-{4000 + i:04d}")),
    "contact": (hipaa.EMAIL, _col(lambda i: f"user{i}@example.org")),
    "SSN": (hipaa.SSN, _col(lambda i: f"{100 + i:03d}{10 + i % 80:02d}{1000 + i:04d}")),
    "col_e": (hipaa.SSN, _col(lambda i: f"{100 + i:03d}-{10 + i % 80:02d}-{1000 + i:04d}")),
    "MRN": (hipaa.MEDICAL_RECORD, _col(lambda i: f"MR{500000 + i}")),
    "health_plan_id": (hipaa.HEALTH_PLAN, _col(lambda i: f"HP-{90000 + i}")),
    "account_number": (hipaa.ACCOUNT, _col(lambda i: f"{4000000 + i * 13}")),
    "iban": (hipaa.ACCOUNT, _col(lambda i: f"DE89370400440532{i:06d}")),
    "drivers_license": (hipaa.LICENSE, _col(lambda i: f"D{1234567 + i}")),
    "vin": (hipaa.VEHICLE, _col(lambda i: f"1HGCM82633A{100000 + i}")),
    "license_plate": (hipaa.VEHICLE, _col(lambda i: f"B-AB {1000 + i}")),
    "device_serial": (hipaa.DEVICE, _col(lambda i: f"SN{77000 + i}")),
    "col_f": (hipaa.DEVICE, _col(lambda i: f"00:1A:2B:3C:{i // 100:02X}:{i % 100:02X}")),
    "homepage": (hipaa.URL, _col(lambda i: f"https://example.org/u/{i}")),
    "col_g": (hipaa.URL, _col(lambda i: f"www.site{i}.com")),
    "ip_address": (hipaa.IP, _col(lambda i: f"192.168.{i // 250}.{i % 250}")),
    "col_h": (hipaa.IP, _col(lambda i: f"10.0.{i // 200}.{i % 200 + 1}")),
    "fingerprint": (hipaa.BIOMETRIC, _col(lambda i: f"{rng.integers(1 << 60):x}")),
    "photo": (hipaa.PHOTO, _col(lambda i: f"img_{i}.jpg")),
    "col_i": (hipaa.PHOTO, _col(lambda i: f"scan{i}.png")),
    "uuid": (hipaa.OTHER, _col(lambda i: f"123e4567-e89b-12d3-a456-{426614174000 + i:012d}")),
    "col_j": (hipaa.OTHER, _col(lambda i: f"K{i * 7919 % 100000:05d}X{i}")),
}

#: columns that look similar but hold no identifier
DECOYS = {
    "product_name": _col(lambda i: ["Aspirin", "Ibuprofen", "Paracetamol"][i % 3]),
    "birth_year": _col(lambda i: str(1950 + i % 40)),
    "age_at_visit_years": _col(lambda i: str(18 + i % 60)),
    "state": _col(lambda i: ["CA", "NY", "TX"][i % 3]),
    "income": _col(lambda i: str(30000 + i * 111)),
    "account_type": _col(lambda i: ["checking", "savings"][i % 2]),
    "email_opt_in": _col(lambda i: ["yes", "no"][i % 2]),
    "phone_count": _col(lambda i: str(i % 3)),
    "city_size": _col(lambda i: ["small", "large"][i % 2]),
    "diagnosis": _col(lambda i: ["I10", "E11.9", "J45"][i % 3]),
    "ratio": _col(lambda i: f"{i / 7:.4f}"),
    "tipping": _col(lambda i: str(i % 5)),
    "zipper_size": _col(lambda i: ["S", "M", "L"][i % 3]),
    "mileage": _col(lambda i: str(1000 + i)),
    "sex": _col(lambda i: ["male", "female"][i % 2]),
}


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    cols = {name: values for name, (_, values) in IDENTIFIERS.items()}
    cols.update(DECOYS)
    return pd.DataFrame(cols)


@pytest.fixture(scope="module")
def found(table) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for m in detect_identifiers(table):
        out.setdefault(m.attribute, set()).add(m.category)
    return out


@pytest.mark.parametrize("name", list(IDENTIFIERS))
def test_every_category_is_found(found, name):
    assert IDENTIFIERS[name][0] in found.get(name, set()), found.get(name)


@pytest.mark.parametrize("name", list(DECOYS))
def test_decoys_are_not_reported(found, name):
    assert name not in found, found.get(name)


def test_all_18_categories_covered():
    assert {c for c, _ in IDENTIFIERS.values()} == set(hipaa.CATEGORIES)
    assert len(hipaa.CATEGORIES) == 18


def test_reasons_say_why(table):
    matches = {(m.attribute, m.category): m for m in detect_identifiers(table)}
    by_name = matches[("contact", hipaa.EMAIL)]
    assert by_name.source == "values" and "e-mail" in by_name.reason
    assert matches[("ZipCode", hipaa.GEOGRAPHIC)].source == "name"
    assert "'zip'" in matches[("ZipCode", hipaa.GEOGRAPHIC)].reason
    assert "89" in matches[("age", hipaa.DATES)].reason
    frame = identifiers_frame(list(matches.values()))
    assert list(frame.columns) == ["attribute", "category", "source", "reason"]


def test_encoded_table_gives_the_same_matches(table):
    a = detect_identifiers(EncodedTable.from_dataframe(table))
    assert a == detect_identifiers(table)


def test_million_rows_are_sampled():
    n = 1_000_000
    codes = np.arange(n) % 50_000
    big = EncodedTable([
        EncodedColumn("mail", codes.astype(np.int32),
                      np.array([f"p{i}@x.org" for i in range(50_000)], dtype=object)),
        EncodedColumn("score", (codes % 7).astype(np.int32),
                      np.array([str(i) for i in range(7)], dtype=object))])
    matches = detect_identifiers(big)
    assert [(m.attribute, m.category) for m in matches] == [("mail", hipaa.EMAIL)]


def test_selected_attributes_only(table):
    assert {m.attribute for m in detect_identifiers(table, ["SSN", "sex"])} == {"SSN"}
