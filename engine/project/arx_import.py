"""``anonymist import-arx PROJECT.deid --output DIR``: an ARX project as a job file.

An ARX project (``.deid``) is a zip. Its XML and CSV entries describe the input
(ARX's ``WorkerSave``, vocabulary 2.0)::

    project.xml                 <project>: name, separator (the CSV delimiter), ...
    data/input.csv              the data, in the project's delimiter
    data/input_subset.csv       older ARX: the research subset's records
    input/definition.xml        <definition><assigment>: name, type, datatype, format,
                                locale, response, ref (hierarchy), min, max,
                                microaggregationFunction, microaggregationIgnoreMissingData
    input/config.xml            <config>: suppressTuplesInNonAnonymousOutput,
                                suppressedAttributeTypes, practicalMonotonicity,
                                relativeMaxOutliers, metric, attributeWeights, criteria
                                (each criterion's toString()), suppressionString (older)
    input/hierarchies/<a>.csv   each attribute's hierarchy

The ``*.dat`` entries are Java-serialized objects (the configuration, the lattice,
the output): they are never read, let alone deserialized. What ARX keeps only there
(the search algorithm and its limits, the metric's aggregate function, a k-map
significance level, the population, the research subset of newer versions) is
listed as not carried over. The XML is read with ``xml.etree`` after refusing any
document type declaration (no entities, no external references).
"""
from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree

from engine.errors import AnonymistError

#: the largest entry read (a zip bomb is refused, not expanded)
MAX_ENTRY_BYTES = 4 << 30
NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
ATTRIBUTE_TYPES = {"IDENTIFYING_ATTRIBUTE": "identifying",
                   "QUASI_IDENTIFYING_ATTRIBUTE": "quasi-identifying",
                   "SENSITIVE_ATTRIBUTE": "sensitive",
                   "INSENSITIVE_ATTRIBUTE": "insensitive"}
DATA_TYPES = {"string": "string", "integer": "integer", "decimal": "decimal",
              "date/time": "date", "date": "date", "ordinal": "ordinal"}
FUNCTIONS = {"arithmetic mean": "arithmetic-mean", "geometric mean": "geometric-mean",
             "median": "median", "mode": "mode", "interval": "interval",
             "set": None, "generalization": None}
#: Java SimpleDateFormat letters -> strftime
_JAVA_DATE = (("yyyy", "%Y"), ("yy", "%y"), ("MMMM", "%B"), ("MMM", "%b"), ("MM", "%m"),
              ("dd", "%d"), ("HH", "%H"), ("hh", "%I"), ("mm", "%M"), ("ss", "%S"),
              ("a", "%p"), ("EEEE", "%A"), ("EEE", "%a"))
#: settings ARX keeps only in its Java-serialized config.dat (never read)
DAT_ONLY = ("the search algorithm and its limits (the optimal search is used)",
            "the metric's aggregate function (Anonymist's default is used)",
            "each microaggregated attribute's clustering choice (none is assumed)")
#: models whose research subset ARX keeps with the configuration
SUBSET_MODELS = ("delta-presence",)


@dataclass
class ArxImport:
    """What an import wrote and what it could not carry over."""

    job_path: Path
    carried: list[str] = field(default_factory=list)
    not_carried: list[str] = field(default_factory=list)


# --- reading the zip safely ---------------------------------------------------------------
def _open(path: Path) -> zipfile.ZipFile:
    if path.is_dir():
        raise AnonymistError(f"ARX project {path} is a folder, not a .deid file")
    if not path.exists():
        raise AnonymistError(f"ARX project not found: {path}")
    try:
        return zipfile.ZipFile(path)
    except zipfile.BadZipFile:
        raise AnonymistError(f"{path.name} is not an ARX project (.deid): it is not a zip "
                             f"archive") from None


def _read(z: zipfile.ZipFile, name: str, project: Path) -> bytes | None:
    try:
        info = z.getinfo(name)
    except KeyError:
        return None
    if info.file_size > MAX_ENTRY_BYTES:
        raise AnonymistError(f"{project.name}: {name} is larger than "
                             f"{MAX_ENTRY_BYTES >> 30} GB unpacked; not read")
    try:
        return z.read(info)
    except (zipfile.BadZipFile, OSError, RuntimeError) as e:
        raise AnonymistError(f"{project.name}: {name} cannot be read: {e}") from None


def _xml(z: zipfile.ZipFile, name: str, project: Path) -> ElementTree.Element | None:
    raw = _read(z, name, project)
    if raw is None:
        return None
    head = raw[:4096].upper()
    if b"<!DOCTYPE" in head or b"<!ENTITY" in raw.upper():
        raise AnonymistError(f"{project.name}: {name} declares a document type or entities, "
                             f"which ARX never writes; refused")
    try:
        return ElementTree.fromstring(raw)
    except ElementTree.ParseError as e:
        raise AnonymistError(f"{project.name}: {name} is not well-formed XML: {e}") from None


def _text(el: ElementTree.Element | None, tag: str, default: str | None = None) -> str | None:
    if el is None:
        return default
    found = el.find(tag)
    if found is None or found.text is None:
        return default
    return found.text


def _bool(text: str | None, default: bool) -> bool:
    if text is None:
        return default
    return text.strip().lower() == "true"


# --- criteria ---------------------------------------------------------------------------
#: a key of a parsed criterion holding what of it is not carried over (not a model key)
NOTE = "__not_carried__"


def parse_criterion(text: str) -> dict | None:
    """An ARX criterion's ``toString()`` as a ``[[privacy]]`` table; "Inclusion" (the
    research subset alone) as ``{}``; None when Anonymist has no such model. A table
    carrying part of the criterion holds what it leaves out under ``NOTE``."""
    s = " ".join(text.split())
    low = s.lower()
    a = r"for attribute '(.*)'"
    rules = (
        (r"^(\d+)-anonymity$", lambda m: {"model": "k-anonymity", "k": int(m[1])}),
        (r"^\((\d+)\)-map(?: estimated as \((?:\d+|unknown)\)-anonymity \((\w+)\))?$",
         lambda m: {"model": "k-map", "k": int(m[1]),
                    **({"estimator": m[2].lower().replace("_", "-")} if m[2] else {})}),
        (rf"^distinct-(\d+)-diversity {a}$",
         lambda m: {"model": "distinct-l-diversity", "attribute": m[2], "l": int(m[1])}),
        (rf"^(?:(shannon|grassberger)-)?entropy-({NUM})-diversity {a}$",
         lambda m: {"model": "entropy-l-diversity", "attribute": m[3], "l": float(m[2]),
                    "estimator": (m[1] or "shannon").lower()}),
        (rf"^recursive-\(({NUM}),\s*(\d+)\)-diversity {a}$",
         lambda m: {"model": "recursive-cl-diversity", "attribute": m[3], "c": float(m[1]),
                    "l": int(m[2])}),
        (rf"^({NUM})-closeness with (equal|hierarchical|ordered) (?:ground-)?distance {a}$",
         lambda m: {"model": "t-closeness", "attribute": m[3], "t": float(m[1]),
                    "distance": m[2].lower()}),
        (rf"^\(({NUM}),\s*({NUM})\)-presence$",
         lambda m: {"model": "delta-presence", "delta_min": float(m[1]),
                    "delta_max": float(m[2])}),
        (rf"^\(({NUM})\)-population-uniqueness \((\w+)\)$",
         lambda m: {"model": "population-uniqueness", "threshold": float(m[1]),
                    "estimator": m[2].lower()}),
        (rf"^\(({NUM})\)-sample-uniqueness$",
         lambda m: {"model": "sample-uniqueness", "threshold": float(m[1])}),
        (rf"^\(<?({NUM})\)-(?:avg|average)-reidentification-risk$",
         lambda m: {"model": "average-risk", "threshold": float(m[1])}),
        (rf"^\(({NUM}),\s*({NUM})\)-dp$",
         lambda m: {"model": "differential-privacy", "epsilon": float(m[1]),
                    "delta": float(m[2])}),
        (rf"^({NUM})-disclosure privacy {a}$",
         lambda m: {"model": "delta-disclosure", "attribute": m[2], "delta": float(m[1])}),
        (rf"^(basic|enhanced)-({NUM})-likeness {a}$",
         lambda m: {"model": "beta-likeness", "attribute": m[3], "beta": float(m[2]),
                    "enhanced": m[1].lower() == "enhanced"}),
    )
    if low == "inclusion":
        return {}
    m = re.match(rf"^\(({NUM}),\s*({NUM})(?:\s*\(({NUM})\))?,\s*({NUM})\)"
                 rf"-avg-reidentification-risk$", s, re.IGNORECASE)
    if m:  # ARX's average risk with a bound on the highest risk: the average carried
        return {"model": "average-risk", "threshold": float(m[1]),
                NOTE: f"'{s}': the average risk {m[1]} is carried over; the bound of the "
                      f"highest risk ({m[2]} for at most {m[4]} of the records) is not"}
    m = re.match(rf"^(no-attack-)?profitability \((prosecutor|journalist)\)"
                 rf"(?:\s*\[benefit=({NUM}), loss=({NUM}), gain=({NUM}), cost=({NUM})\])?$",
                 s, re.IGNORECASE)
    if m:
        out = {"model": "profitability", "attacker": m[2].lower(), "allow_attack": not m[1]}
        if m[3] is not None:
            out.update(publisher_benefit=float(m[3]), publisher_loss=float(m[4]),
                       adversary_gain=float(m[5]), adversary_cost=float(m[6]))
        else:
            out[NOTE] = (f"'{s}': ARX keeps its costs and benefits in config.dat; ARX's "
                         f"defaults are used (benefit 1200, loss 300, gain 300, cost 4)")
        return out
    for pattern, build in rules:
        m = re.match(pattern, s, re.IGNORECASE)
        if m:
            out = build(m)
            if "attribute" in out:  # the name as written (the match was case-blind)
                out["attribute"] = re.search(r"for attribute '(.*)'$", s)[1]
            return out
    return None


def parse_metric(text: str) -> tuple[dict | None, str]:
    """ARX's metric ``toString()`` as a ``[metric]`` table and a note (None: unknown)."""
    low = " ".join(text.split()).lower()
    numbers = re.findall(NUM, low)
    table: dict | None
    if low.startswith("loss"):
        table = {"name": "loss"}
    elif low.startswith("precision"):
        table = {"name": "precision"}
    elif low.startswith("height"):
        table = {"name": "height"}
    elif low.startswith("discernab") or low.startswith("discernib"):
        table = {"name": "discernibility"}
    elif low.startswith("average equivalence class size") or low.startswith("aecs"):
        table = {"name": "aecs"}
    elif low.startswith("normalized non-uniform entropy"):
        table = {"name": "normalized-entropy"}
    elif low.startswith("non-uniform entropy") or low.startswith("entropy"):
        table = {"name": "entropy"}
    elif low.startswith("ambiguity"):
        table = {"name": "ambiguity"}
    elif low.startswith("kl-divergence"):
        table = {"name": "kl-divergence"}
    else:
        return None, f"metric '{text}': Anonymist has no such metric; loss is used"
    note = f"metric '{text}' as {table['name']}"
    if "(" in low and numbers and table["name"] in ("loss", "precision"):
        gs = float(numbers[0])
        if 0 <= gs <= 1:
            table["gs_factor"] = gs
            note += f" with gs_factor = {gs:g}"
    if "monotonic" in low and "non-monotonic" not in low:
        table["monotonic"] = True
    return table, note


# --- data types -----------------------------------------------------------------------
def java_date_format(fmt: str) -> str | None:
    """A Java SimpleDateFormat as strftime (None when it uses letters strftime lacks)."""
    out, i = "", 0
    while i < len(fmt):
        if fmt[i] == "'":  # quoted literal text
            j = fmt.find("'", i + 1)
            j = len(fmt) if j < 0 else j
            out += fmt[i + 1:j].replace("%", "%%") or "'"
            i = j + 1
            continue
        for java, py in _JAVA_DATE:
            if fmt.startswith(java, i):
                out += py
                i += len(java)
                break
        else:
            if fmt[i].isalpha():
                return None
            out += "%%" if fmt[i] == "%" else fmt[i]
            i += 1
    return out


def _safe_name(name: str, taken: set[str]) -> str:
    base = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "attribute"
    out, n = base, 2
    while out.lower() in taken:
        out, n = f"{base}_{n}", n + 1
    taken.add(out.lower())
    return out


def _with_semicolons(raw: bytes, delimiter: str) -> str:
    """A hierarchy CSV in the project's delimiter, rewritten with ';' (quoted as needed),
    so that reading it never has to guess the delimiter."""
    import csv
    import io
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = raw.decode("cp1252")
    out = io.StringIO()
    writer = csv.writer(out, delimiter=";", lineterminator="\n")
    for row in csv.reader(io.StringIO(text), delimiter=delimiter):
        if row:
            writer.writerow(row)
    return out.getvalue()


def _identity(data: bytes, encoding: str, delimiter: str, name: str) -> str:
    """A one-level hierarchy of the column's distinct values (ARX's identity)."""
    import csv
    import io
    reader = csv.reader(io.StringIO(data.decode(encoding, errors="replace")),
                        delimiter=delimiter)
    header = next(reader, [])
    if name not in header:
        raise AnonymistError(f"attribute '{name}' of the project's definition is not a "
                             f"column of its data/input.csv")
    j = header.index(name)
    values = dict.fromkeys(row[j] for row in reader if len(row) > j)
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\n")
    for v in values:
        writer.writerow([v])
    return out.getvalue()


# --- the import ---------------------------------------------------------------------------
#: what an import writes into its folder (the job last)
WRITTEN = ("data.csv", "subset.csv", "hierarchies", "job.toml")


def import_arx(project: str | Path, output: str | Path) -> ArxImport:
    """Write ``output/job.toml`` with the data and hierarchies beside it (relative
    paths), from the ARX project ``project``; see the module for what is carried.
    Nothing in ``output`` is overwritten, and a failed import leaves nothing there: the
    files are written in a folder beside it and moved in when all are written."""
    import shutil
    import tempfile
    project, output = Path(project), Path(output)
    if output.exists() and not output.is_dir():
        raise AnonymistError(f"--output {output} is a file: give a folder")
    held = [name for name in WRITTEN if (output / name).exists()]
    if held:
        raise AnonymistError(f"--output {output} already holds {', '.join(held)}: choose "
                             f"another folder (nothing is overwritten)")
    parent = output.resolve().parent
    if not parent.is_dir():
        raise AnonymistError(f"--output {output}: the folder {parent} does not exist")
    staging = Path(tempfile.mkdtemp(prefix=".anonymist-import-", dir=parent))
    try:
        report = _write(project, staging)
        output.mkdir(exist_ok=True)
        for name in WRITTEN:
            if (staging / name).exists():
                (staging / name).rename(output / name)
        report.job_path = output / "job.toml"
        return report
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _write(project: Path, output: Path) -> ArxImport:
    """The import's files written into the (new, empty) folder ``output``."""
    from engine.io_utils import atomic_write_bytes, atomic_write_text
    z = _open(project)
    with z:
        names = set(z.namelist())
        proj = _xml(z, "project.xml", project)
        definition = _xml(z, "input/definition.xml", project)
        config = _xml(z, "input/config.xml", project)
        data = _read(z, "data/input.csv", project)
        if data is None or definition is None:
            missing = [n for n, v in (("data/input.csv", data),
                                      ("input/definition.xml", definition)) if v is None]
            raise AnonymistError(f"{project.name} is not an ARX project with its data: it "
                                 f"has no {' or '.join(missing)}")
        delimiter = _text(proj, "separator", ";") or ";"
        report = ArxImport(output / "job.toml")
        carried, lost = report.carried, report.not_carried
        encoding = "utf-8"
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            encoding = "cp1252"
            lost.append("data/input.csv is not UTF-8 (an older ARX wrote the platform's "
                        "encoding): read as cp1252, check its accented letters")
        atomic_write_bytes(output / "data.csv", data)
        job: dict = {"format_version": 1,
                     "data": {"path": "data.csv", "delimiter": delimiter,
                              "encoding": encoding}}
        carried.append(f"data/input.csv as data.csv (delimiter {delimiter!r})")

        # attributes
        attributes: dict[str, dict] = {}
        responses: list[str] = []
        taken: set[str] = set()
        for assignment in definition.iter("assigment"):
            name = _text(assignment, "name")
            if name is None:
                raise AnonymistError(f"{project.name}: input/definition.xml has an "
                                     f"attribute without a name")
            a: dict = {}
            kind = (_text(assignment, "type") or "").strip()
            if kind not in ATTRIBUTE_TYPES:
                raise AnonymistError(f"{project.name}: attribute '{name}' has the unknown "
                                     f"type {kind!r}")
            a["type"] = ATTRIBUTE_TYPES[kind]
            dtype = (_text(assignment, "datatype") or "String").strip()
            fmt = _text(assignment, "format")
            mapped = DATA_TYPES.get(dtype.lower())
            if mapped is None and fmt is None and java_date_format(dtype) not in (None, dtype):
                mapped, fmt = "date", dtype  # vocabulary 1.0: a date's format as its type
            if mapped is None:
                lost.append(f"attribute '{name}': data type {dtype!r} is unknown here; "
                            f"read as text")
            elif mapped != "string":
                a["data_type"] = mapped
            if fmt:
                if mapped == "date":
                    py = java_date_format(fmt)
                    if py is None:
                        lost.append(f"attribute '{name}': date format {fmt!r} has letters "
                                    f"strftime lacks; not carried over")
                    else:
                        a["format"] = py
                else:
                    lost.append(f"attribute '{name}': the {dtype} format {fmt!r} (Java's) is "
                                f"not carried over")
            if _text(assignment, "locale"):
                lost.append(f"attribute '{name}': locale "
                            f"{_text(assignment, 'locale')!r} is not carried over")
            if _bool(_text(assignment, "response"), False):
                responses.append(name)
            ref = _text(assignment, "ref")
            if ref:
                raw = _read(z, "input/" + ref, project)
                if raw is None:
                    lost.append(f"attribute '{name}': its hierarchy input/{ref} is missing "
                                f"from the project")
                else:
                    file = f"hierarchies/{_safe_name(name, taken)}.csv"
                    (output / "hierarchies").mkdir(exist_ok=True)
                    if delimiter != ";":  # written with ';', which the job's reader takes
                        atomic_write_text(output / file, _with_semicolons(raw, delimiter))
                    else:
                        atomic_write_bytes(output / file, raw)
                    a["hierarchy"] = file
                    for key, tag in (("min_level", "min"), ("max_level", "max")):
                        level = (_text(assignment, tag) or "All").strip()
                        if level != "All":
                            try:
                                a[key] = int(level)
                            except ValueError:
                                lost.append(f"attribute '{name}': {tag} level {level!r} "
                                            f"is not a number; not carried over")
            elif a["type"] == "quasi-identifying":
                # ARX gives a quasi-identifier without a hierarchy the identity: its values
                # are released as they are or suppressed, never generalized
                file = f"hierarchies/{_safe_name(name, taken)}.csv"
                (output / "hierarchies").mkdir(exist_ok=True)
                atomic_write_text(output / file, _identity(data, encoding, delimiter, name))
                a["hierarchy"] = file
                lost.append(f"quasi-identifier '{name}' has no hierarchy in the project: "
                            f"ARX's identity (released as it is, or suppressed) is written "
                            f"as {file}")
            function = _text(assignment, "microaggregationFunction")
            if function:
                fn = FUNCTIONS.get(function.strip().lower(), "?")
                if fn in (None, "?"):
                    lost.append(f"attribute '{name}': microaggregation function "
                                f"{function!r} is not one of Anonymist's; generalized "
                                f"instead")
                else:
                    a["transformation"] = "microaggregation"
                    a["function"] = fn
                    a["ignore_missing"] = _bool(
                        _text(assignment, "microaggregationIgnoreMissingData"), True)
            attributes[name] = a
        job["attributes"] = attributes
        carried.append(f"{len(attributes)} attributes with their types, data types and "
                       f"{sum('hierarchy' in a for a in attributes.values())} hierarchies")

        # configuration
        transformation: dict = {}
        privacy: list[dict] = []
        needs_subset = inclusion = False
        if config is None:
            lost.append("input/config.xml is missing: no privacy model, suppression limit "
                        "or metric carried over")
        else:
            limit = _text(config, "relativeMaxOutliers")
            if not _bool(_text(config, "removeOutliers"), True):
                limit = "0"  # older ARX: suppression switched off
                carried.append("suppression switched off (removeOutliers = false): limit 0")
            if _bool(_text(config, "protectSensitiveAssociations"), False):
                lost.append("ARX's 'protect sensitive associations' (older versions) is not "
                            "carried over: protect sensitive attributes with a model")
            if limit is not None:
                try:
                    value = float(limit)
                except ValueError:
                    lost.append(f"suppression limit {limit!r} is not a number")
                else:
                    transformation["suppression_limit"] = min(1.0, max(0.0, value))
                    carried.append(f"suppression limit {value:g}")
            if not _bool(_text(config, "suppressTuplesInNonAnonymousOutput"), True):
                lost.append("ARX's 'suppress records in non-anonymous output' = false: "
                            "Anonymist releases only anonymous transformations")
            monotonic = _text(config, "practicalMonotonicity")
            if monotonic is not None:
                transformation["practical_monotonicity"] = _bool(monotonic, False)
                carried.append(f"practical monotonicity = {_bool(monotonic, False)}")
            suppression = _text(config, "suppressionString")
            if suppression is not None:
                transformation["suppression_string"] = suppression
                carried.append(f"suppression string {suppression!r}")
            types = [t.text for t in config.iter("type") if t.text]
            if any(t in ("SENSITIVE_ATTRIBUTE", "INSENSITIVE_ATTRIBUTE") for t in types):
                transformation["remove_suppressed_values"] = True
                carried.append("suppressed records lose their sensitive and insensitive "
                               "values (ARX's suppressed attribute types)")
            for weight in config.iter("attributeWeight"):
                name, value = _text(weight, "attribute"), _text(weight, "weight")
                if name in attributes and value is not None:
                    try:
                        attributes[name]["weight"] = float(value)
                    except ValueError:
                        lost.append(f"attribute '{name}': weight {value!r} is not a number")
            if any("weight" in a for a in attributes.values()):
                carried.append("attribute weights")
            metric_text = _text(config, "metric")
            if metric_text:
                table, note = parse_metric(metric_text)
                if table is None:
                    lost.append(note)
                else:
                    job["metric"] = table
                    carried.append(note)
            for criterion in config.iter("criterion"):
                text = (criterion.text or "").strip()
                parsed = parse_criterion(text)
                if parsed is None:
                    lost.append(f"privacy model '{text}': Anonymist has no such model")
                elif not parsed:
                    needs_subset = inclusion = True  # the research subset alone
                else:
                    note = parsed.pop(NOTE, None)
                    if note is not None:
                        lost.append(note)
                    privacy.append(parsed)
                    carried.append(f"privacy model '{text}'")
                    needs_subset |= parsed["model"] in SUBSET_MODELS or (
                        parsed["model"] == "k-map" and "estimator" not in parsed) or (
                        parsed.get("attacker") == "journalist")
                    if parsed["model"] == "k-map" and "estimator" in parsed:
                        lost.append(f"'{text}': ARX's significance level is kept in "
                                    f"config.dat; 0.01 (its default) is used")
                    if parsed["model"] == "differential-privacy":
                        lost.append(f"'{text}': ARX's generalization scheme and search "
                                    f"budget are kept in config.dat; data-dependent "
                                    f"generalization with Anonymist's defaults is used")
        job["privacy"] = privacy
        if responses:
            if job.get("metric", {}).get("name") == "classification":
                job["metric"]["response"] = responses
            else:
                lost.append(f"response variable(s) {', '.join(responses)} (for ARX's "
                            f"classification metric) are not used by this job's metric")
        if any(p["model"] in ("population-uniqueness",) or
               (p["model"] == "k-map" and "estimator" in p) for p in privacy):
            job["population"] = {"region": "USA"}
            lost.append("ARX keeps the population in config.dat (never read): [population] "
                        "region = \"USA\" (ARX's default) is written; check it")

        # research subset
        subset = _read(z, "data/input_subset.csv", project)
        if subset is not None and (needs_subset or subset.count(b"\n") < data.count(b"\n")):
            atomic_write_bytes(output / "subset.csv", subset)
            job["subset"] = {"records": "subset.csv"}
            carried.append("the research subset's records (data/input_subset.csv) as "
                           "subset.csv")
            counts_subset = any(p["model"] in SUBSET_MODELS or p.get("attacker") ==
                                "journalist" or (p["model"] == "k-map" and
                                                 "estimator" not in p) for p in privacy)
            if inclusion and not counts_subset:
                lost.append("ARX's 'Inclusion' anonymizes the research subset's records; "
                            "here no model counts the subset, so every record is released "
                            "under the models: to release the subset alone, use subset.csv "
                            "as the data")
        elif needs_subset:
            lost.append("the research subset: this ARX version keeps it in config.dat "
                        "(never read); add it as [subset] records = \"subset.csv\" (ARX's "
                        "subset file), a query or row numbers")
        if transformation:
            job["transformation"] = transformation
        if any(n.endswith(".dat") for n in names):
            lost.append("kept only in ARX's Java-serialized .dat entries (never read): "
                        + "; ".join(DAT_ONLY))
        if not privacy:
            lost.append("no privacy model was carried over: add a [[privacy]] table")
        import tomli_w
        header = "".join(
            [f"# Imported from the ARX project {project.name} by anonymist import-arx.\n"]
            + (["# Not carried over:\n"] + [f"#  - {line}\n" for line in lost] if lost
               else []))
        atomic_write_text(output / "job.toml", header + tomli_w.dumps(job))
    return report


def check_imported(report: ArxImport) -> str | None:
    """The reason the written job does not load (None: it loads)."""
    from engine.project.job_file import load_job
    try:
        load_job(report.job_path)
    except AnonymistError as e:
        return str(e)
    return None
