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

METHODS = ("hmac-sha256", "mask")
JOB_KEYS = {"pseudonymize", "key_file", "key_env", "length", "keep", "mask_char"}
DEFAULT_LENGTH = 16
MIN_KEY_BYTES = 16


@dataclass(frozen=True)
class PseudonymSpec:
    """How one identifying attribute is pseudonymized (no key: only where it is)."""

    method: str
    key_file: str | None = None
    key_env: str | None = None
    length: int = DEFAULT_LENGTH
    keep: int = 0
    mask_char: str = "*"

    def to_dict(self) -> dict:
        d: dict = {"pseudonymize": self.method}
        if self.method == "hmac-sha256":
            if self.key_file:
                d["key_file"] = self.key_file
            if self.key_env:
                d["key_env"] = self.key_env
            d["length"] = self.length
        else:
            d["keep"] = self.keep
            d["mask_char"] = self.mask_char
        return d


def read_pseudonym(a: dict, where: str, attribute_type: str) -> PseudonymSpec | None:
    """The spec of a job-file attribute table, or None when it asks for none."""
    given = JOB_KEYS & set(a)
    if not given:
        return None
    method = a.get("pseudonymize")
    if method is None:
        raise JobError(f"{where} {', '.join(sorted(given))} need(s) pseudonymize = "
                       f"\"hmac-sha256\" or \"mask\"")
    if attribute_type != "identifying":
        raise JobError(f"{where} pseudonymize applies to identifying attributes only "
                       f"(type = \"{attribute_type}\")")
    if method not in METHODS:
        raise JobError(f"{where} pseudonymize = {method!r} is not one of {', '.join(METHODS)}")
    wrong = given - ({"pseudonymize", "key_file", "key_env", "length"} if method == METHODS[0]
                     else {"pseudonymize", "keep", "mask_char"})
    if wrong:
        raise JobError(f"{where} {', '.join(sorted(wrong))} do(es) not apply to "
                       f"pseudonymize = \"{method}\"")
    if method == "mask":
        keep, char = a.get("keep", 0), a.get("mask_char", "*")
        if type(keep) is not int or keep < 0:
            raise JobError(f"{where} keep = {keep!r} must be a whole number of at least 0")
        if not isinstance(char, str) or len(char) != 1:
            raise JobError(f"{where} mask_char = {char!r} must be one character")
        return PseudonymSpec("mask", keep=keep, mask_char=char)
    key_file, key_env, length = a.get("key_file"), a.get("key_env"), a.get("length",
                                                                           DEFAULT_LENGTH)
    if (key_file is None) == (key_env is None):
        raise JobError(f"{where} pseudonymize = \"hmac-sha256\" needs exactly one of key_file "
                       f"(a file outside the project) or key_env (an environment variable)")
    for key, v in (("key_file", key_file), ("key_env", key_env)):
        if v is not None and (not isinstance(v, str) or not v.strip()):
            raise JobError(f"{where} {key} must be text naming the key's "
                           f"{'file' if key == 'key_file' else 'variable'}")
    if type(length) is not int or not 8 <= length <= 64:
        raise JobError(f"{where} length = {length!r} must be a whole number from 8 to 64")
    return PseudonymSpec("hmac-sha256", key_file=key_file, key_env=key_env, length=length)


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
    out = np.array([hmac.new(key, str(v).encode("utf-8"), hashlib.sha256).hexdigest()[:length]
                    if str(v) != "" else "" for v in values], dtype=object)
    nonempty = out[out != ""]
    if len(set(nonempty)) < len(nonempty):
        raise JobError(f"two values share a {length}-character pseudonym: raise length")
    return out


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
