"""A generated clinical table: visits of patients with free-text notes that name them,
their phones, e-mails and IBANs, and clinical noise (blood pressure, doses, dates,
times, ICD codes). Every identifier put into a note is returned, so that tests check
a release with patterns and values of their own, independent of the scanner.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

FIRST = ("Mary Linda Susan Karen Nancy Helen Laura Sarah Maria Anna Julia Emma Olivia Sofia "
         "James John Robert Michael David Thomas Daniel Paul Peter Kevin Brian Jason Hans "
         "Klaus Pieter Henk Lucas Noah").split()
LAST = ("Okafor Lindqvist Brennan Castellano Haverkamp Moreau Nakamura Petrov Quigley "
        "Rasmussen Szabo Tanaka Underwood Vasquez Whitfield Yilmaz Zielinski Abernathy "
        "Bergstrom Delacroix Esposito Fitzgerald Gallagher Hollander Ingram Jankowski "
        "Kowalczyk Lambert Montague Novak Ostrowski Pemberton").split()
DOCTORS = ("Hale Whitmore Grant Albers Ferreira Kimura Lowell Marsh Norris Patel Reyes "
           "Sutton Vogel").split()
DIAGNOSES = ("J45.909 E11.9 I10 M54.5 K21.9 F32.A N39.0 J06.9 R51.9 L20.9").split()
NOISE = ("BP {bp}/{bd}, pulse {p}.", "Dose {d} mg twice daily.", "Follow-up on {date} at {t}.",
         "HbA1c {a}.{b} %, weight {w} kg.", "Reviewed labs from {date}.",
         "Pain score {s}/10, improving.", "Refilled prescription, {d} mg.")


def iban_de(rng: random.Random) -> str:
    """A German IBAN with a valid mod-97 check, written in groups of four."""
    bban = "".join(rng.choice("0123456789") for _ in range(18))
    digits = bban + "131400"  # D=13 E=14, check 00
    check = 98 - int(digits) % 97
    raw = f"DE{check:02d}{bban}"
    return " ".join(raw[i:i + 4] for i in range(0, len(raw), 4))


def phone(rng: random.Random) -> str:
    a, b, c = rng.randint(201, 989), rng.randint(200, 999), rng.randint(1000, 9999)
    return rng.choice([f"({a}) {b}-{c}", f"{a}-{b}-{c}", f"+1 {a} {b} {c}",
                       f"+49 30 {rng.randint(1000000, 99999999)}",
                       f"+44 20 7946 0{rng.randint(100, 999)}",
                       f"06 {rng.randint(10000000, 99999999)}"])


@dataclass
class Clinical:
    frame: pd.DataFrame
    names: list[str] = field(default_factory=list)      # patients' full names
    phones: list[str] = field(default_factory=list)
    emails: list[str] = field(default_factory=list)
    ibans: list[str] = field(default_factory=list)
    doctors: list[str] = field(default_factory=list)    # names in no column
    #: per note: (kind, text) of every identifier put into it
    planted: list[list[tuple[str, str]]] = field(default_factory=list)

    def write(self, folder: Path, name: str = "clinical.csv") -> Path:
        path = Path(folder) / name
        self.frame.to_csv(path, sep=";", index=False)
        return path


def noise(rng: random.Random) -> str:
    return rng.choice(NOISE).format(
        bp=rng.randint(100, 160), bd=rng.randint(60, 95), p=rng.randint(50, 110),
        d=rng.choice([5, 10, 20, 50, 250, 500, 1000]),
        date=f"20{rng.randint(18, 24)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
        t=f"{rng.randint(8, 17)}:{rng.choice(['00', '15', '30', '45'])}",
        a=rng.randint(5, 9), b=rng.randint(0, 9), w=rng.randint(50, 120),
        s=rng.randint(0, 10))


def clinical(patients: int = 150, seed: int = 1, identifier_share: float = 0.6) -> Clinical:
    """Visits (1-5 per patient) with the columns visit_no, patient_no, name, birth_date,
    sex, zip, diagnosis, notes; about ``identifier_share`` of the notes hold one or two
    identifiers."""
    out = Clinical(pd.DataFrame())
    out.frame = pd.DataFrame(list(visits(patients, seed, identifier_share, out)))
    return out


COLUMNS = ("visit_no", "patient_no", "name", "birth_date", "sex", "zip", "diagnosis", "notes")


def visits(patients: int, seed: int = 1, identifier_share: float = 0.6,
           out: Clinical | None = None):
    """The rows of `clinical` one by one, in order (``out``: where the names and planted
    identifiers are collected, None: not kept)."""
    rng = random.Random(seed)
    keep = out is not None
    visit = 1000
    for p in range(patients):
        first, last = rng.choice(FIRST), rng.choice(LAST)
        person = dict(patient_no=f"{100000 + p * 7}", name=f"{first} {last}",
                      birth_date=f"19{rng.randint(30, 99)}-{rng.randint(1, 12):02d}-"
                                 f"{rng.randint(1, 28):02d}",
                      sex=rng.choice("MF"), zip=f"{rng.randint(10, 99)}{rng.randint(100, 999)}",
                      phone=phone(rng), email=f"{first}.{last}{rng.randint(1, 99)}@"
                                              f"{rng.choice(['example.org', 'mail.test'])}".lower(),
                      iban=iban_de(rng))
        if keep:
            out.names.append(person["name"])
        for _ in range(rng.randint(1, 5)):
            visit += 1
            parts, planted = [noise(rng)], []
            if rng.random() < identifier_share:
                for _ in range(rng.choice([1, 1, 2])):
                    kind = rng.choice(["NAME", "LAST", "PHONE", "EMAIL", "IBAN", "DOCTOR",
                                       "OWNID"])
                    if kind == "NAME":
                        parts.append(f"Patient {person['name']} reports dizziness.")
                        planted.append(("NAME", person["name"]))
                    elif kind == "LAST":
                        parts.append(f"Mr/Mrs {last} asked for a callback.".replace(
                            "Mr/Mrs", rng.choice(["Mr", "Mrs", "Ms"])))
                        planted.append(("NAME", last))
                    elif kind == "PHONE":
                        parts.append(f"Call back on {person['phone']} after 5 pm.")
                        planted.append(("PHONE", person["phone"]))
                        if keep:
                            out.phones.append(person["phone"])
                    elif kind == "EMAIL":
                        parts.append(f"Send the letter to {person['email']}.")
                        planted.append(("EMAIL", person["email"]))
                        if keep:
                            out.emails.append(person["email"])
                    elif kind == "IBAN":
                        parts.append(f"Refund to IBAN {person['iban']}.")
                        planted.append(("IBAN", person["iban"]))
                        if keep:
                            out.ibans.append(person["iban"])
                    elif kind == "DOCTOR":
                        doc = rng.choice(DOCTORS)
                        given = rng.choice(FIRST)
                        text, name = rng.choice([(f"Seen by Dr. {doc}.", doc),
                                                 (f"Discussed with {given} {doc}.",
                                                  f"{given} {doc}")])
                        parts.append(text)
                        planted.append(("NAME", name))
                        if keep:
                            out.doctors.append(name)
                    else:
                        parts.append(f"Chart {person['patient_no']} updated.")
                        planted.append(("ID", person["patient_no"]))
            parts.append(noise(rng))
            rng.shuffle(parts)
            if keep:
                out.planted.append(planted)
            yield dict(visit_no=str(visit), patient_no=person["patient_no"],
                       name=person["name"], birth_date=person["birth_date"],
                       sex=person["sex"], zip=person["zip"],
                       diagnosis=rng.choice(DIAGNOSES), notes=" ".join(parts))


def write_visits(path: Path, patients: int, seed: int = 1, chunk: int = 200_000) -> dict:
    """`clinical`'s table (the same rows) written to ``path`` in chunks, for sizes that
    do not fit in memory as a DataFrame: its rows, zips and birth dates."""
    rows, zips, dates, block = 0, set(), set(), []
    with open(path, "w", encoding="utf-8", newline="") as f:
        first = True
        for row in visits(patients, seed):
            block.append(row)
            zips.add(row["zip"])
            dates.add(row["birth_date"])
            if len(block) >= chunk:
                pd.DataFrame(block, columns=COLUMNS).to_csv(f, sep=";", index=False,
                                                            header=first)
                rows, first, block = rows + len(block), False, []
        if block or first:
            pd.DataFrame(block, columns=COLUMNS).to_csv(f, sep=";", index=False, header=first)
            rows += len(block)
    return {"rows": rows, "zips": sorted(zips), "birth_dates": sorted(dates)}


def job_text(data: Path, k: int = 3, notes: str = "", extra: str = "",
             person: bool = False, birth_date_qi: bool = False,
             diagnosis: str = "insensitive", zips=None, birth_dates=None) -> str:
    """A job file for the clinical table: patient_no and name identifying, the birth date
    identifying (or, with ``birth_date_qi``, quasi-identifying: day, month, year,
    decade), sex and zip quasi-identifiers with hierarchies written beside the data, the
    notes insensitive; ``person``: ``[data] person = "patient_no"``. ``zips`` and
    ``birth_dates``: the data's distinct values when known (else read from the data)."""
    folder = Path(data).parent
    if zips is None or (birth_date_qi and birth_dates is None):
        frame = pd.read_csv(data, sep=";", dtype=str, usecols=["zip", "birth_date"])
        zips, birth_dates = frame["zip"].unique(), frame["birth_date"].unique()
    zips = sorted(zips)
    (folder / "zip.csv").write_text("\n".join(f"{z};{z[:3]}**;{z[:1]}****;*" for z in zips)
                                    + "\n", encoding="utf-8")
    (folder / "sex.csv").write_text("M;*\nF;*\n", encoding="utf-8")
    birth = 'type = "identifying"'
    if birth_date_qi:
        dates = sorted(birth_dates)
        (folder / "birth_date.csv").write_text("".join(
            f"{d};{d[:7]};{d[:4]};{d[:3]}0s;*\n" for d in dates), encoding="utf-8")
        birth = 'type = "quasi-identifying"\nhierarchy = "birth_date.csv"'
    return f"""[data]
path = "{Path(data).name}"
delimiter = ";"
{'person = "patient_no"' if person else ''}

[attributes."visit_no"]
type = "insensitive"
[attributes."patient_no"]
type = "identifying"
[attributes."name"]
type = "identifying"
[attributes."birth_date"]
{birth}
[attributes."sex"]
type = "quasi-identifying"
hierarchy = "sex.csv"
[attributes."zip"]
type = "quasi-identifying"
hierarchy = "zip.csv"
[attributes."diagnosis"]
type = "{diagnosis}"
[attributes."notes"]
type = "insensitive"
{notes}
{extra}
[[privacy]]
model = "k-anonymity"
k = {k}

[transformation]
suppression_limit = 0.1
"""
