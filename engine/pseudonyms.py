"""Pseudonyms for identifying attributes, as an option instead of removing them.

Two methods, declared per identifying attribute in the job file::

    [attributes."name"]
    type = "identifying"
    pseudonymize = "hmac-sha256"      # keyed hash; or "mask"
    key_file = "/home/me/keys/study.key"   # or: key_env = "ANONYMIST_KEY"
    length = 16                       # hex characters kept of the digest (8..64)

    [attributes."phone"]
    type = "identifying"
    pseudonymize = "mask"
    keep = 3                          # first characters kept, the rest masked
    mask_char = "*"

``hmac-sha256`` replaces each value by the first ``length`` hex characters of
HMAC-SHA-256(key, value as UTF-8): the same value gives the same pseudonym under the
same key (releases can be linked by whoever holds them all), another key gives
unrelated pseudonyms, and without the key nobody can compute a pseudonym from a
value — so a guessed name cannot be checked against the release. The key is read
from a file or an environment variable at the moment the table is released; the job
names the file path or the variable, never the key, and a key file inside the job's
folder is refused (a shared project would share its key). ``mask`` keeps the first
``keep`` characters and replaces every other one by ``mask_char`` (the length stays).

Empty values stay empty. What pseudonyms do not do: they are not anonymization —
a pseudonymized identifier still singles a person out within the release and links
their records across releases made with the same key; whoever has the key (or the
reversible table) can re-identify; masking leaks the kept prefix and the length.
"""
from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.errors import JobError
from engine.schema import (Param, dataclass_from_table, dataclass_params, declared_fields,
                           param_field, show, write_table)

METHODS = ("hmac-sha256", "mask")
DEFAULT_LENGTH = 16
MIN_KEY_BYTES = 16


@dataclass(frozen=True)
class PseudonymSpec:
    """How one identifying attribute is pseudonymized (no key: only where it is).

    Each field is a job-file key of ``[attributes."name"]``, declared once here
    (``engine.schema``): ``read_pseudonym`` reads them strictly, ``to_dict`` writes them
    and the "Release as" editor takes its choices, ranges and labels from them."""

    method: str = param_field(
        "choice", "hmac-sha256", name="pseudonymize", choices=METHODS, required=True,
        choice_labels=("Keyed pseudonym", "Masked"), label="Release as",
        help="identifying attributes only: keyed pseudonyms (HMAC-SHA-256: the same value "
             "gets the same pseudonym under the same key) or masked (first characters kept)")
    key_file: str | None = param_field(
        "path", None, label="Key file",
        help="hmac-sha256: the file holding the key, outside the project folder")
    key_env: str | None = param_field(
        "text", None, label="Key variable",
        help="hmac-sha256: the environment variable holding the key (instead of key_file)")
    length: int = param_field(
        "int", DEFAULT_LENGTH, low=8, high=64, unit="hex characters", label="Length",
        help="hmac-sha256: how many hex characters of the digest are released")
    keep: int = param_field(
        "int", 0, low=0, unit="characters", label="Keep",
        help="mask: how many first characters are kept (the rest are masked)")
    mask_char: str = param_field(
        "text", "*", label="Mask character",
        help="mask: the one character that replaces the masked ones")

    def to_dict(self) -> dict:
        """The job-file keys of this spec (those of its method only)."""
        values = {p.name: getattr(self, f) for f, p in declared_fields(PseudonymSpec)}
        return write_table(values, method_params(self.method))


#: the declared keys, by job-file name
PARAMS = {p.name: p for p in dataclass_params(PseudonymSpec)}
JOB_KEYS = frozenset(PARAMS)
#: the keys each method takes
METHOD_KEYS = {"hmac-sha256": ("pseudonymize", "key_file", "key_env", "length"),
               "mask": ("pseudonymize", "keep", "mask_char")}


def method_params(method: str) -> tuple[Param, ...]:
    """The declared parameters of one method (in declaration order)."""
    return tuple(p for p in PARAMS.values() if p.name in METHOD_KEYS[method])


def read_pseudonym(a: dict, where: str, attribute_type: str) -> PseudonymSpec | None:
    """The spec of a job-file attribute table, or None when it asks for none. Each key
    is checked against its declaration (``PseudonymSpec``); then the rules across keys:
    identifying attributes only, each method's own keys, one key source, one mask
    character."""
    given = JOB_KEYS & set(a)
    if not given:
        return None
    if "pseudonymize" not in given:
        raise JobError(f"{where} {', '.join(sorted(given))} need(s) pseudonymize = "
                       f"\"hmac-sha256\" or \"mask\"")
    if attribute_type != "identifying":
        raise JobError(f"{where} pseudonymize applies to identifying attributes only "
                       f"(type = \"{attribute_type}\")")
    method = PARAMS["pseudonymize"].check(a["pseudonymize"], where)
    wrong = given - set(METHOD_KEYS[method])
    if wrong:
        raise JobError(f"{where} {', '.join(sorted(wrong))} do(es) not apply to "
                       f"pseudonymize = \"{method}\"")
    spec = dataclass_from_table(PseudonymSpec, {k: a[k] for k in given}, where)
    if method == "mask":
        if len(spec.mask_char) != 1:
            raise JobError(f"{where} mask_char = {show(spec.mask_char)} must be one character")
        return PseudonymSpec("mask", keep=spec.keep, mask_char=spec.mask_char)
    if (spec.key_file is None) == (spec.key_env is None):
        raise JobError(f"{where} pseudonymize = \"hmac-sha256\" needs exactly one of key_file "
                       f"(a file outside the project) or key_env (an environment variable)")
    if spec.key_env is not None and not spec.key_env.strip():
        raise JobError(f"{where} key_env must be text naming the key's variable")
    return PseudonymSpec("hmac-sha256", key_file=spec.key_file, key_env=spec.key_env,
                         length=spec.length)


def key_path(spec: PseudonymSpec, base_dir: Path) -> Path:
    """The key file's path: ``~`` expanded, relative paths against the job's folder."""
    p = Path(spec.key_file).expanduser()
    return p if p.is_absolute() else Path(base_dir) / p


def load_key(spec: PseudonymSpec, base_dir: Path, attribute: str) -> bytes:
    """The key bytes (hex text is decoded, other text taken as UTF-8), from the file or
    the variable. Refuses a key file inside ``base_dir`` (the project) and short keys;
    messages name the file or variable, never the key."""
    where = f"[attributes.\"{attribute}\"]"
    if not spec.key_env and not spec.key_file:
        raise JobError(f"{where} pseudonymize = \"hmac-sha256\" needs a key: key_file or key_env")
    if spec.key_env:
        text = os.environ.get(spec.key_env)
        if not text:
            raise JobError(f"{where} key_env: the environment variable {spec.key_env} is "
                           f"not set")
        source = f"environment variable {spec.key_env}"
    else:
        path = key_path(spec, base_dir)
        if _inside(path, base_dir):
            raise JobError(f"{where} key_file {path} is inside the project folder {base_dir}: "
                           f"keep the key outside it (a shared project would share its key)")
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise JobError(f"{where} key_file {path} does not exist (create one with "
                           f"anonymist anonymize ... --create-keys)") from None
        except (OSError, UnicodeDecodeError) as e:
            raise JobError(f"{where} key_file {path} cannot be read: "
                           f"{type(e).__name__}") from None
        source = f"key file {path}"
    text = text.strip()
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = text.encode("utf-8")
    if len(key) < MIN_KEY_BYTES:
        raise JobError(f"{where} the key in the {source} is shorter than {MIN_KEY_BYTES} "
                       f"bytes: use a generated key (--create-keys)")
    return key


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(Path(folder).resolve())
        return True
    except ValueError:
        return False


def create_key(path: str | Path) -> Path:
    """Write a new random 256-bit key as hex to ``path`` (readable by the owner only).
    Refuses to overwrite an existing file: a lost key cannot be recovered and a
    replaced one breaks consistency with earlier releases."""
    path = Path(path).expanduser()
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise JobError(f"key file {path} exists already: it is kept as it is") from None
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(secrets.token_hex(32) + "\n")
    return path


def hmac_pseudonyms(values, key: bytes, length: int = DEFAULT_LENGTH) -> np.ndarray:
    """HMAC-SHA-256 pseudonyms (first ``length`` hex characters) of distinct values;
    empty values stay empty. Raises ``JobError`` if two values would share one."""
    out = hmac_digests(values, key, length)
    nonempty = out[out != ""]
    if len(set(nonempty)) < len(nonempty):
        raise JobError(shared_pseudonym(length))
    return out


def hmac_digests(values, key: bytes, length: int = DEFAULT_LENGTH) -> np.ndarray:
    """The pseudonym of each value (repeated values repeat it; empty stays empty), with
    no check that distinct values get distinct pseudonyms (`hmac_pseudonyms` checks)."""
    return np.array([hmac.new(key, str(v).encode("utf-8"), hashlib.sha256).hexdigest()[:length]
                     if str(v) != "" else "" for v in values], dtype=object)


def shared_pseudonym(length: int) -> str:
    return f"two values share a {length}-character pseudonym: raise length"


def mask_values(values, keep: int, mask_char: str = "*") -> np.ndarray:
    """Keep the first ``keep`` characters, replace the rest by ``mask_char``."""
    return np.array([str(v)[:keep] + mask_char * max(0, len(str(v)) - keep) for v in values],
                    dtype=object)


def pseudonymize(dictionary, spec: PseudonymSpec, base_dir: Path, attribute: str) -> np.ndarray:
    """Pseudonyms of a column's distinct values (index them with the column's codes)."""
    if spec.method == "mask":
        return mask_values(dictionary, spec.keep, spec.mask_char)
    return hmac_pseudonyms(dictionary, load_key(spec, base_dir, attribute), spec.length)


def looks_pseudonymized(values, spec: PseudonymSpec) -> bool:
    """Whether released values have the method's form (hex of ``length``, or masked
    after ``keep`` characters): a check that can be made without the key."""
    for v in values:
        v = str(v)
        if v == "":
            continue
        if spec.method == "mask":
            if set(v[spec.keep:]) - {spec.mask_char}:
                return False
        elif len(v) != spec.length or set(v) - set("0123456789abcdef"):
            return False
    return True


def check_keys(job) -> None:
    """Read every key the job's pseudonyms need (and forget it), so a missing or
    misplaced key is reported before a long search rather than at export."""
    for name, a in job.attributes.items():
        spec = getattr(a, "pseudonym", None)
        if spec is not None and spec.method == "hmac-sha256":
            load_key(spec, job.base_dir, name)
