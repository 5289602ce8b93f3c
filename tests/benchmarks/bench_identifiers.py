"""Identifiers in released columns (issue 25, item 2): recall and false positives of the
scanner on generated clinical notes, no flag on the shared data sets, and what the scan
and scrubbing cost against the whole command.

    python3 tests/benchmarks/bench_identifiers.py                 # recall, shared data, speed
    python3 tests/benchmarks/bench_identifiers.py --ooc 1000000   # + a DuckDB release

Recall: every identifier the generator (tests/clinical_data.py) plants in a note is
found when the scrubbed note no longer holds its text (its kind's share of planted ones
found), with the job's identifying values (patient names and numbers) as the release
uses them. Names in no column (doctors) are counted apart, found by the shipped name
list and titles alone. False positives: spans found that cover no planted identifier,
per note, on the same notes (their noise: blood pressure, doses, dates, times, ICD
codes), and values flagged in the shared data sets (Adult, cup, credit card, MACH-IV).

Speed: the whole command (``python -m engine.cli anonymize``, a fresh process) against
the scan (and scrub) of the same release timed in-process on the same job, median of
three; the ratio is the share of the command the scan takes. The same in CPU seconds
(the commands' user + system time, the scan's process time): on a loaded machine the
wall seconds of two commands differ by the load as much as by their work.
"""
from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_user import env_with, run_process  # noqa: E402
from tests.clinical_data import clinical, job_text  # noqa: E402
from tests.shared_data import SHARED  # noqa: E402


def recall(seeds=(1, 2, 3, 4, 5), patients: int = 300) -> dict:
    from engine.identifiers import IdentifyingValues, find_spans, scrub_text
    planted, found = Counter(), Counter()
    doctors_planted = doctors_found = 0
    false_spans = notes = 0
    for seed in seeds:
        t = clinical(patients, seed)
        values = IdentifyingValues.build({"name": t.frame["name"].unique(),
                                          "patient_no": t.frame["patient_no"].unique()})
        for (_, row), plants in zip(t.frame.iterrows(), t.planted):
            note = row["notes"]
            notes += 1
            spans = find_spans(note, values, own={row["patient_no"]})
            scrubbed = scrub_text(note, spans)
            for kind, text in plants:
                is_doctor = kind == "NAME" and text in t.doctors
                if is_doctor:
                    doctors_planted += 1
                    alone = scrub_text(note, find_spans(note))  # the list and titles only
                    doctors_found += text not in alone
                    continue
                planted[kind] += 1
                found[kind] += text not in scrubbed
            planted_at = [(m.start(), m.end()) for _, text in plants
                          for m in re.finditer(re.escape(text), note)]
            false_spans += sum(not any(a < s.end and s.start < b for a, b in planted_at)
                               for s in spans)
    return {"planted": dict(planted), "found": dict(found),
            "recall": {k: found[k] / planted[k] for k in planted},
            "doctors": (doctors_found, doctors_planted), "notes": notes,
            "false_spans": false_spans}


#: clinical sentences holding no identifier: drugs, departments, places, eponymous
#: diseases, weekdays and months, lab values, codes (written for this measurement)
CLEAN = """Started Metformin 500 mg twice daily; review HbA1c in March.
Referred to Cardiology at St Mary's Hospital for an echocardiogram.
Known Parkinson's disease, tremor worse on Monday mornings.
Crohn's disease in remission on Azathioprine 100 mg.
History of Hodgkin lymphoma, treated 2011, no relapse.
Addison's disease on Hydrocortisone 20 mg per day.
Graves disease, TSH 0.02 mU/L, Carbimazole started.
Bell's palsy resolving, Prednisolone course completed.
Down syndrome, lives with family in Springfield.
Travelled to Boston and Chicago in June, no fever since.
Discharged to Riverside Care Home on Friday.
Seen in the Emergency Department, Glasgow Coma Scale 15.
ECG: sinus rhythm 72/min, QTc 430 ms, PR 160 ms.
Creatinine 88 umol/L, eGFR 78 mL/min/1.73m2, K 4.1 mmol/L.
Warfarin 3 mg, INR 2.4 on 2024-03-12, next check 2024-03-26.
Allergic to Penicillin (rash), tolerates Clarithromycin.
Vaccinated: Influenza 2023/24, COVID-19 booster in October.
ICD-10 E11.9, I10, J45.909; SNOMED 44054006.
Blood pressure 138/86 mmHg, SpO2 97 % on room air.
Ward round with the Medical Registrar and Charge Nurse.
Physiotherapy twice weekly at the Royal Infirmary.
Patient prefers Spanish interpreter; consent obtained.
Appointment moved from Tuesday 10:30 to Thursday 14:15.
BMI 31.4 kg/m2, waist 104 cm, advised Mediterranean diet.
Mammogram BI-RADS 2, repeat in 12 months.
Ferritin 12 ug/L, started Ferrous Sulfate 200 mg.
Lives alone in Victoria Road flat, second floor, no lift.
Hip X-ray: no fracture. Paracetamol 1 g QDS as needed.
Dexa scan T-score -2.6, Alendronic Acid weekly.
Smoker 20 pack-years, referred to the Stop Smoking Service.""".splitlines()


def clean_false_positives() -> list[tuple[str, str, str]]:
    """Spans found in sentences holding no identifier (with the patients' names of a
    generated table as the job's identifying values)."""
    from engine.identifiers import IdentifyingValues, find_spans
    t = clinical(300, 1)
    values = IdentifyingValues.build({"name": t.frame["name"].unique(),
                                      "patient_no": t.frame["patient_no"].unique()})
    return [(s.kind, line[s.start:s.end], line) for line in CLEAN
            for s in find_spans(line, values)]


#: identifiers in formats the generator does not write (other countries' phones, IBANs
#: and cards, names from outside the US Census list), written by hand: (kind, the
#: identifier, the sentence)
HARD = [
 ("PHONE", "+31 6 1234 5678", "Reached the daughter on +31 6 1234 5678 yesterday."),
 ("PHONE", "0044 20 7946 0018", "Call 0044 20 7946 0018 for the GP."),
 ("PHONE", "(0)30 1234567", "Tel. +49 (0)30 1234567 office hours only."),
 ("PHONE", "415.555.0132", "Mobile 415.555.0132 (evenings)."),
 ("PHONE", "07700 900123", "UK mobile 07700 900123 given by the patient."),
 ("PHONE", "01 42 68 53 00", "Paris office 01 42 68 53 00."),
 ("PHONE", "2125550147", "callback 2125550147 asap"),
 ("EMAIL", "j.o'neil@nhs.net", "Copy to j.o'neil@nhs.net please."),
 ("EMAIL", "MARIA.GARCIA@HOSPITAL.ORG", "Sent to MARIA.GARCIA@HOSPITAL.ORG."),
 ("EMAIL", "info@klinik-nord.de", "Befund an info@klinik-nord.de geschickt."),
 ("IBAN", "GB29 NWBK 6016 1331 9268 19", "Pay to GB29 NWBK 6016 1331 9268 19 monthly."),
 ("IBAN", "NL91ABNA0417164300", "Rekening NL91ABNA0417164300 van de patient."),
 ("IBAN", "FR14 2004 1010 0505 0001 3M02 606", "RIB FR14 2004 1010 0505 0001 3M02 606."),
 ("CARD", "5555 5555 5555 4444", "Card 5555 5555 5555 4444 exp 12/27."),
 ("CARD", "378282246310005", "Amex 378282246310005 on file."),
 ("IP", "203.0.113.45", "Portal login from 203.0.113.45 flagged."),
 ("URL", "https://www.facebook.com/jane.doe.77", "Profile https://www.facebook.com/jane.doe.77 shared."),
 ("ID", "078-05-1120", "SSN 078-05-1120 on the insurance form."),
 ("ID", "943 476 5919", "NHS no. 943 476 5919."),
 ("NAME", "Elizabeth Warren", "Daughter Elizabeth Warren will visit."),
 ("NAME", "Okonkwo", "Dr Okonkwo reviewed the scan."),
 ("NAME", "Ramirez", "Mrs. Ramirez declined the vaccine."),
 ("NAME", "Prof. Klein", "Second opinion from Prof. Klein."),
 ("NAME", "Patricia", "Spoke with Patricia about the discharge plan."),
 ("NAME", "Smith, John", "Next of kin: Smith, John."),
 ("NAME", "Jürgen Weiß", "Hausarzt Jürgen Weiß informiert."),
 ("NAME", "Aisha Bello", "Interpreter Aisha Bello attended."),
 ("NAME", "Nguyen", "Nurse Nguyen took bloods."),
 ("NAME", "Wei Zhang", "Seen together with Wei Zhang, her partner."),
 ("NAME", "Olumide", "Olumide was discharged."),
]


def hand_written_recall() -> tuple[int, list]:
    """How many of `HARD` are gone from their scrubbed sentence (every word of a name),
    with the list and patterns alone (no identifying values), and the misses."""
    from engine.identifiers import find_spans, scrub_text
    misses = []
    for kind, text, sentence in HARD:
        scrubbed = scrub_text(sentence, find_spans(sentence))
        words = [w for w in text.replace(",", "").replace(".", "").split() if w != "Prof"]
        if text in scrubbed and any(w in scrubbed for w in words) or \
                any(w in scrubbed for w in words if kind == "NAME"):
            misses.append((kind, text))
    return len(HARD) - len(misses), misses


def shared_flags() -> dict:
    from engine.data.csv_import import read_csv_encoded
    from engine.identifiers.scan import scan_column
    out = {}
    for name in ("adult/adult.csv", "cup/cup.csv", "highdim/creditcard_int.csv",
                 "highdim/mach2019_int.csv"):
        t = read_csv_encoded(SHARED / "data" / name, delimiter=";", encoding="utf-8",
                             header=True)
        values = sum(len(t.column(c).dictionary) for c in t.names)
        flagged = [f for c in t.names
                   for f in scan_column(c, t.column(c).dictionary, t.column(c).codes)]
        out[name] = (t.n_rows, len(t.names), values, len(flagged))
    return out


def adult_job(folder: Path) -> Path:
    adult = SHARED / "data" / "adult"
    qis = ["sex", "age", "race", "marital-status", "education", "native-country",
           "workclass", "occupation", "salary-class"]
    lines = [f'[data]\npath = "{adult / "adult.csv"}"\ndelimiter = ";"\n']
    for q in qis:
        lines.append(f'[attributes."{q}"]\ntype = "quasi-identifying"\n'
                     f'hierarchy = "{adult / f"adult_hierarchy_{q}.csv"}"\n')
    lines.append('[[privacy]]\nmodel = "k-anonymity"\nk = 5\n')
    path = folder / "adult.toml"
    path.write_text("\n".join(lines))
    return path


def scan_seconds(job: Path) -> float:
    """The scan (and scrubbing) of the optimum's release, in-process, on a fresh problem."""
    from engine.api import anonymize
    from engine.transform.identifiers import find_in_release, scrub_values, scrubbed_names
    result = anonymize(None, job)
    released = result.transformed()
    problem = released.problem
    t0, c0 = time.perf_counter(), time.process_time()
    find_in_release(released)
    for name in scrubbed_names(problem.job):
        scrub_values(problem, name, problem.table.column(name).values())
    SCAN_CPU.append(time.process_time() - c0)
    return time.perf_counter() - t0


#: CPU seconds of each `scan_seconds` (all the process's threads) and of each command
SCAN_CPU: list[float] = []
COMMAND_CPU: dict[Path, list[float]] = {}


def command_seconds(job: Path, folder: Path) -> float:
    wall, cpu, _ = run_process([sys.executable, "-m", "engine.cli", "anonymize", str(job),
                                "--output", str(folder / "out.csv"), "--quiet"], env_with())
    COMMAND_CPU.setdefault(job, []).append(cpu)
    return wall


def cpu_line(label: str, job: Path, without: Path | None, scans: list[float]) -> str:
    """The same figures in CPU seconds (user + system), which a loaded machine inflates
    far less than wall seconds: medians of the command, of the command without the scan
    and of the scan in-process, and the scan's share of the command's CPU."""
    whole = statistics.median(COMMAND_CPU[job])
    line = f"cpu {label}: command {whole:.2f} s, scan {statistics.median(scans):.3f} s"
    if without is not None:
        base = statistics.median(COMMAND_CPU[without])
        line += f"; without the scan {base:.2f} s, share {(whole - base) / whole:.3f}"
    return line


def speed(folder: Path, repeat: int = 3) -> dict:
    """Per job: the whole command, the scan (and scrub) in-process, and the command of the
    same job whose free-text column is kept as it is (``identifiers = "keep"``: neither
    scanned nor scrubbed), each the median of ``repeat`` runs taken in turn."""
    out = {}
    jobs = {"Adult (30,162 rows, 9 QIs, k=5)": (adult_job(folder), None)}
    t = clinical(patients=10_000, seed=11)  # about 30,000 visits, free-text notes
    data = t.write(folder, "clinical.csv")
    scrub = folder / "clinical.toml"
    scrub.write_text(job_text(data, notes="scrub = true"))
    keep = folder / "clinical-keep.toml"
    keep.write_text(job_text(data, notes='identifiers = "keep"\nreason = "the baseline"'))
    jobs[f"clinical ({len(t.frame):,} visits, notes scrubbed)"] = (scrub, keep)
    # issue 25's criterion for both parts at once: persons counted and the notes scrubbed,
    # against the same job with neither (patient_no only identifying, the notes kept)
    both = folder / "clinical-person.toml"
    both.write_text(job_text(data, notes="scrub = true", person=True))
    jobs[f"clinical ({len(t.frame):,} visits, persons counted, notes scrubbed)"] = (both, keep)
    for label, (job, without) in jobs.items():
        whole, base, scan = [], [], []
        del SCAN_CPU[:]
        for _ in range(repeat):
            whole.append(command_seconds(job, folder))
            if without is not None:
                base.append(command_seconds(without, folder))
            scan.append(scan_seconds(job))
        w, s = statistics.median(whole), statistics.median(scan)
        b = statistics.median(base) if base else None
        out[label] = (w, s, s / w, b)
        CPU_LINES.append(cpu_line(label, job, without, list(SCAN_CPU)))
    return out


#: `cpu_line` of each job of the last `speed`
CPU_LINES: list[str] = []


def out_of_core(folder: Path, rows: int, person: bool = True) -> dict:
    """The clinical table of about ``rows`` visits (``rows // 3`` patients, written in
    chunks: `tests.clinical_data.write_visits`; kept in ``folder`` and reused when it is
    there) through DuckDB (``memory_limit = "1GB"``), notes scrubbed, ``[data] person =
    "patient_no"``: the whole command in a fresh process (wall, CPU, peak RSS) and the
    load average of the machine before and after."""
    import json
    import os
    from tests.clinical_data import write_visits
    patients = rows // 3
    data = folder / f"big-{patients}.csv"
    meta = folder / f"big-{patients}.json"
    if not (data.is_file() and meta.is_file()):
        meta.write_text(json.dumps(write_visits(data, patients, seed=5)))
    info = json.loads(meta.read_text())
    job = folder / f"big-{patients}.toml"
    job.write_text(job_text(data, notes="scrub = true", person=person, zips=info["zips"],
                            extra='[engine]\nbackend = "duckdb"\nmemory_limit = "1GB"\n'))
    load_before = os.getloadavg()[0]
    wall, cpu, rss = run_process([sys.executable, "-m", "engine.cli", "anonymize", str(job),
                                  "--output", str(folder / f"big-{patients}-out.csv"),
                                  "--quiet"], env_with())
    return {"rows": info["rows"], "wall_s": wall, "cpu_s": cpu, "peak_mb": rss,
            "input_mb": data.stat().st_size / 2**20, "load": (load_before, os.getloadavg()[0]),
            "output": folder / f"big-{patients}-out.csv", "job": job}


def print_out_of_core(o: dict) -> None:
    print(f"out of core: {o['rows']:,} rows ({o['input_mb']:.0f} MB), "
          f"{o['wall_s']:.1f} s wall, {o['cpu_s']:.1f} s CPU, peak {o['peak_mb']:.0f} MB, "
          f"{o['cpu_s'] / o['rows'] * 1e6:.0f} us CPU a row, load average "
          f"{o['load'][0]:.1f} -> {o['load'][1]:.1f}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ooc", type=int, default=0, help="rows of a DuckDB release (0: none)")
    ap.add_argument("--speed-only", action="store_true", help="the cost only")
    ap.add_argument("--ooc-only", action="store_true", help="the out-of-core run only")
    ap.add_argument("--repeat", type=int, default=3,
                    help="runs of each command, taken in turn (median; default 3)")
    ap.add_argument("--data-dir", type=Path, default=None,
                    help="where the out-of-core tables are written and kept (default: a "
                         "temporary folder)")
    args = ap.parse_args()
    if args.ooc_only:
        with tempfile.TemporaryDirectory() as tmp:
            folder = args.data_dir or Path(tmp)
            folder.mkdir(parents=True, exist_ok=True)
            print_out_of_core(out_of_core(folder, args.ooc))
        return
    if args.speed_only:
        with tempfile.TemporaryDirectory() as tmp:
            for label, (whole, scan, ratio, base) in speed(Path(tmp), args.repeat).items():
                print(f"speed {label}: command {whole:.2f} s, scan {scan:.3f} s, ratio "
                      f"{ratio:.3f}" + ("" if base is None else f"; without the scan "
                                        f"{base:.2f} s, share {(whole - base) / whole:.3f}"))
            print("\n".join(CPU_LINES))
            if args.ooc:
                print_out_of_core(out_of_core(args.data_dir or Path(tmp), args.ooc))
        return
    r = recall()
    print(f"recall on {r['notes']:,} generated notes:")
    for kind in sorted(r["planted"]):
        print(f"  {kind:6} {r['found'][kind]:5,} of {r['planted'][kind]:5,} "
              f"({r['recall'][kind]:.1%})")
    d_found, d_planted = r["doctors"]
    print(f"  names in no column (list + titles alone): {d_found:,} of {d_planted:,} "
          f"({d_found / d_planted:.1%})")
    print(f"false positives: {r['false_spans']:,} spans over no planted identifier in "
          f"{r['notes']:,} notes")
    fp = clean_false_positives()
    print(f"false positives in {len(CLEAN)} clinical sentences without identifiers: "
          f"{len(fp)}" + "".join(f"\n  {k} '{text}' in: {line}" for k, text, line in fp))
    found, misses = hand_written_recall()
    print(f"hand-written identifiers in other formats: {found} of {len(HARD)} found; "
          f"missed: {misses}")
    for name, (n, cols, values, flagged) in shared_flags().items():
        print(f"shared {name}: {n:,} rows, {cols} columns, {values:,} distinct values, "
              f"{flagged} flagged")
    with tempfile.TemporaryDirectory() as tmp:
        for label, (whole, scan, ratio, base) in speed(Path(tmp)).items():
            print(f"speed {label}: command {whole:.2f} s, scan {scan:.3f} s, "
                  f"ratio {ratio:.3f}" + ("" if base is None else
                                          f"; without the scan {base:.2f} s, the scan's "
                                          f"share of the command {(whole - base) / whole:.3f}"))
        print("\n".join(CPU_LINES))
        if args.ooc:
            print_out_of_core(out_of_core(args.data_dir or Path(tmp), args.ooc))


if __name__ == "__main__":
    main()
