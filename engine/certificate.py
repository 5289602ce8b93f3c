"""The release certificate: SHA-256 of every file a release was made from and of the
release itself, recorded in the release report (JSON, key ``certificate``) and checked
again by ``anonymist verify OUT JOB --report REPORT.json``.

What is recorded (`certificate`)::

    {"input":       {"file": "adult.csv", "sha256": "..."},     # the data read
     "job":         {"file": "adult-job.toml", "sha256": "..."}, # the job file
     "hierarchies": {"age": {"file": "age.csv", "sha256": "..."}, ...},
     "release":     {"file": "adult-anonymized.csv", "sha256": "..."},
     "privacy_models": [...], "suppression_limit": 0.04}

``sha256`` is None (and ``file`` too) where there was no file to hash (a table given in
memory, a job built in the app and not written, a database target). `differences`
compares a recorded certificate with the files given now and returns one sentence per
difference; an entry recorded without a hash, or a file not given now (the input data,
which whoever checks a shared release usually does not hold), is reported by
`unchecked`, not as a difference.

This module only hashes and compares: the command line finds the files (the job's
hierarchies, its data) and recounts the release (``engine.verify``)."""
from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path

#: the key of the certificate in the report's JSON
KEY = "certificate"
#: the figures of the recount a certificate's report records (its "verification")
RECOUNT_FIGURES = ("records", "suppressed_records", "classes", "min_class_size")


def sha256_file(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def file_entry(path: str | Path | None, digest: str | None = None) -> dict:
    """``{"file", "sha256"}`` of a file (hashed unless ``digest`` is given), or of
    nothing (both None) when there is no file."""
    if path is None:
        return {"file": None, "sha256": None}
    path = Path(path)
    return {"file": path.name, "sha256": digest or sha256_file(path)}


def certificate(*, input_path=None, input_sha256: str | None = None, job_path=None,
                hierarchies: Mapping[str, str | Path | None] = (),
                release_path=None, release_sha256: str | None = None,
                privacy_models=(), suppression_limit: float | None = None) -> dict:
    """The certificate of a release (see the module's docstring); ``hierarchies`` maps
    each quasi-identifier to its hierarchy file (None: none on disk)."""
    return {"input": file_entry(input_path, input_sha256),
            "job": file_entry(job_path),
            "hierarchies": {name: file_entry(p) for name, p in dict(hierarchies).items()},
            "release": file_entry(release_path, release_sha256),
            "privacy_models": list(privacy_models),
            "suppression_limit": suppression_limit}


def _compare(what: str, recorded: dict | None, path: Path | None, out: list[str],
             unchecked: list[str]) -> None:
    digest = (recorded or {}).get("sha256")
    if digest is None:
        unchecked.append(f"{what}: the report records no hash")
        return
    if path is None or not Path(path).is_file():
        unchecked.append(f"{what} ({recorded.get('file')}): not given or not found, "
                         f"not re-checked")
        return
    now = sha256_file(path)
    if now != digest:
        out.append(f"{what} {Path(path).name}: SHA-256 {now[:16]}… differs from the "
                   f"recorded {digest[:16]}… ({recorded.get('file')})")


def differences(recorded: Mapping, *, release_path, job_path, hierarchies: Mapping,
                input_path=None, privacy_models=(), suppression_limit=None,
                recount: Mapping | None = None, recorded_recount: Mapping | None = None
                ) -> tuple[list[str], list[str]]:
    """(differences, unchecked) between the ``recorded`` certificate and the release,
    job, hierarchies (by quasi-identifier) and input given now, the job's privacy models
    and suppression limit, and the ``recount`` of the release against the
    ``recorded_recount`` (both dicts with `RECOUNT_FIGURES`)."""
    out: list[str] = []
    unchecked: list[str] = []
    _compare("the release", recorded.get("release"), release_path, out, unchecked)
    _compare("the job file", recorded.get("job"), job_path, out, unchecked)
    recorded_h = dict(recorded.get("hierarchies") or {})
    for name in sorted(set(recorded_h) | set(hierarchies)):
        if name not in recorded_h:
            out.append(f"the hierarchy of '{name}': the job has one, the report records none")
        elif name not in hierarchies:
            out.append(f"the hierarchy of '{name}': the report records one, the job has "
                       f"none")
        else:
            _compare(f"the hierarchy of '{name}'", recorded_h[name], hierarchies[name], out,
                     unchecked)
    _compare("the input data", recorded.get("input"), input_path, out, unchecked)
    if list(recorded.get("privacy_models") or []) != list(privacy_models):
        out.append(f"the privacy models: the report records "
                   f"{_models(recorded.get('privacy_models'))}, the job has "
                   f"{_models(privacy_models)}")
    if recorded.get("suppression_limit") != suppression_limit:
        out.append(f"the suppression limit: the report records "
                   f"{recorded.get('suppression_limit')}, the job has {suppression_limit}")
    if recount is not None and recorded_recount is not None:
        for key in RECOUNT_FIGURES:
            if recorded_recount.get(key) != recount.get(key):
                out.append(f"the recount's {key.replace('_', ' ')}: the report records "
                           f"{recorded_recount.get(key)}, the release now gives "
                           f"{recount.get(key)}")
    return out, unchecked


def _models(models) -> str:
    return "; ".join(", ".join(f"{k} = {v}" for k, v in m.items())
                     for m in models or []) or "none"


def read_certificate(report_path: str | Path) -> tuple[dict, dict | None]:
    """(certificate, recorded recount) of a release report's JSON; raises
    ``AnonymistError`` naming the file when it is not such a report."""
    import json

    from engine.errors import AnonymistError
    path = Path(report_path)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise AnonymistError(f"--report {path}: not found") from None
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise AnonymistError(f"--report {path}: not a release report's JSON ({e})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get(KEY), dict):
        raise AnonymistError(f"--report {path}: has no '{KEY}' (give the .json a release "
                             f"report was written with; reports written before Anonymist "
                             f"recorded certificates cannot be re-checked)")
    return doc[KEY], doc.get("verification")


def check_report(report_path: str | Path, **given) -> dict:
    """`differences` between the certificate of the report at ``report_path`` and the
    files ``given`` now (``release_path``, ``job_path``, ``hierarchies``,
    ``input_path``, ``privacy_models``, ``suppression_limit``, ``recount``), as
    ``{"report", "ok", "differences", "unchecked"}``."""
    recorded, recorded_recount = read_certificate(report_path)
    found, unchecked = differences(recorded, recorded_recount=recorded_recount, **given)
    return {"report": str(report_path), "ok": not found, "differences": found,
            "unchecked": unchecked}
