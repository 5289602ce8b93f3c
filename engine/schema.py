"""Every job parameter declared once: what it is, what it may hold, how it is shown.

A ``Param`` says a parameter's name, kind (int, float, bool, choice, attribute,
text, path), range (inclusive or exclusive bounds), choices, default, unit,
human label and one-line help. Everything else is derived from these
declarations: checking a value (``Param.check``), reading a job-file table
strictly (``read_table``: unknown keys refused with the closest known one,
2.5 or true never taken for an integer), constructing privacy models and
metrics (``Declared``), writing them back (``Declared.to_dict``) and the GUI's
forms (``app/widgets/param_form.py``).

Privacy models, metrics and search settings declare their parameters next to
their class (``params`` for ``Declared`` classes, ``param_field`` for
dataclasses); ``engine.config`` declares the job's own tables.
"""
from __future__ import annotations

import copy
import dataclasses
import difflib
import math
from dataclasses import dataclass
from typing import Any, ClassVar, Iterable

from engine.errors import JobError

KINDS = ("int", "float", "bool", "choice", "attribute", "text", "path")


class ParamError(JobError):
    """A parameter value or key is not what its declaration allows."""


def show(value) -> str:
    """A value as the job file spells it (true, 'text', 2.5, [1, 2])."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(show(v) for v in value) + "]"
    if isinstance(value, dict):
        return "a table"
    return repr(value)


def _num(x: float) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)


def closest(key: str, known: Iterable[str]) -> str | None:
    """The known name most like ``key`` (difflib), or None when nothing is close."""
    known = list(known)
    lowered = {k.lower(): k for k in known}
    if key.lower() in lowered:
        return lowered[key.lower()]
    found = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    return found[0] if found else None


def unknown_key_error(where: str, key: str, known: Iterable[str], what: str = "key",
                      value=None) -> ParamError:
    known = list(known)
    near = closest(str(key), known)
    hint = f" (did you mean '{near}'?)" if near else ""
    given = "" if value is None else f" = {show(value)}"
    return ParamError(f"{where} has an unknown {what} '{key}'{given}{hint}; known {what}s: "
                      f"{', '.join(known) if known else 'none'}")


@dataclass(frozen=True)
class Param:
    """One parameter of a job-file table."""

    name: str
    kind: str
    default: Any = None
    low: float | None = None
    high: float | None = None
    low_open: bool = False  # the bound itself is excluded
    high_open: bool = False
    choices: tuple = ()
    unit: str = ""
    help: str = ""
    label: str = ""
    required: bool = False  # must be given (``default`` is then only the GUI's suggestion)
    finite: bool = True  # floats: inf / nan refused
    many: bool = False  # a list of values is accepted too (kept as a tuple)
    #: human labels of the choices, in their order (the choices themselves when empty)
    choice_labels: tuple = ()

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"parameter {self.name}: kind '{self.kind}' is not one of {KINDS}")

    @property
    def title(self) -> str:
        """The human label (the name when none is declared)."""
        return self.label or self.name.replace("_", " ")

    @property
    def initial(self):
        """The value a form starts with (for a required parameter: a valid suggestion)."""
        return self.default

    def choice_label(self, choice) -> str:
        if self.choice_labels and choice in self.choices:
            return self.choice_labels[self.choices.index(choice)]
        return str(choice)

    # --- what is allowed, in words ----------------------------------------------------
    def range_text(self) -> str:
        lo, hi = self.low, self.high
        if lo is not None and hi is not None:
            if not self.low_open and not self.high_open:
                return f"between {_num(lo)} and {_num(hi)}"
            a = f"greater than {_num(lo)}" if self.low_open else f"at least {_num(lo)}"
            b = f"less than {_num(hi)}" if self.high_open else f"at most {_num(hi)}"
            return f"{a} and {b}"
        if lo is not None:
            return f"greater than {_num(lo)}" if self.low_open else f"at least {_num(lo)}"
        if hi is not None:
            return f"less than {_num(hi)}" if self.high_open else f"at most {_num(hi)}"
        return ""

    def expectation(self) -> str:
        """What the value must be: 'a whole number of at least 1', 'true or false'..."""
        r = self.range_text()
        if self.kind == "int":
            text = "a whole number" + (f" {r}" if r.startswith("between") else
                                       f" of {r}" if r else "")
        elif self.kind == "float":
            text = "a number" + (f" {r}" if r else "")
        elif self.kind == "bool":
            text = "true or false"
        elif self.kind == "choice":
            text = "one of " + ", ".join(f"'{c}'" for c in self.choices)
        elif self.kind == "attribute":
            text = "the name of an attribute"
        elif self.kind == "path":
            text = "a file path (text)"
        else:
            text = "text"
        if self.many:
            text += ", or a list of them"
        return text

    # --- checking ------------------------------------------------------------------------
    def fail(self, value, where: str, extra: str = "") -> ParamError:
        head = f"{where} " if where else ""
        return ParamError(f"{head}{self.name} = {show(value)} must be {self.expectation()}"
                          f"{extra}")

    def check(self, value, where: str = ""):
        """``value`` checked and normalized (ints as int, lists as tuples), or a
        ``ParamError`` naming ``where``, the key and the value. None passes for
        optional parameters whose default is None."""
        if value is None and not self.required and self.default is None:
            return None
        if self.many and isinstance(value, (list, tuple)):
            if not value:
                raise self.fail(value, where, " (the list is empty)")
            return tuple(self._one(v, where, value) for v in value)
        return self._one(value, where, value)

    def _one(self, v, where: str, whole):
        kind = self.kind
        if kind == "int":
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise self.fail(whole, where)
            if isinstance(v, float):
                if not math.isfinite(v) or not v.is_integer():
                    raise self.fail(whole, where, " (it is never rounded)"
                                    if math.isfinite(v) else "")
                v = int(v)
            self._in_range(v, where, whole)
            return int(v)
        if kind == "float":
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise self.fail(whole, where)
            v = float(v)
            if math.isnan(v) or (self.finite and math.isinf(v)):
                raise self.fail(whole, where, " (and finite)")
            self._in_range(v, where, whole)
            return v
        if kind == "bool":
            if not isinstance(v, bool):
                raise self.fail(whole, where)
            return v
        if not isinstance(v, str):
            raise self.fail(whole, where)
        if kind == "choice":
            if v in self.choices:
                return v
            for c in self.choices:  # the declared spelling, whatever the case
                if isinstance(c, str) and c.lower() == v.lower():
                    return c
            near = closest(v, [str(c) for c in self.choices])
            raise self.fail(whole, where, f" (did you mean '{near}'?)" if near else "")
        if kind in ("attribute", "path") and not v.strip():
            raise self.fail(whole, where, " (it is empty)")
        return v

    def _in_range(self, v, where: str, whole) -> None:
        lo, hi = self.low, self.high
        if lo is not None and (v < lo or (self.low_open and v == lo)):
            raise self.fail(whole, where)
        if hi is not None and (v > hi or (self.high_open and v == hi)):
            raise self.fail(whole, where)


def read_table(d, params: Iterable[Param], where: str, ignore: Iterable[str] = ()) -> dict:
    """The declared parameters of one job-file table, checked strictly.

    Unknown keys are refused (with the closest known one), required ones must be
    present, absent optional ones take their default. Keys in ``ignore`` are read
    by the caller (e.g. ``model``, ``name``)."""
    params = list(params)
    ignore = tuple(ignore)
    if not isinstance(d, dict):
        raise ParamError(f"{where} must be a table, got {show(d)}")
    known = {p.name: p for p in params}
    for key in d:
        if key not in known and key not in ignore:
            raise unknown_key_error(where, key, list(ignore) + list(known), value=d[key])
    out = {}
    for p in params:
        if p.name in d:
            out[p.name] = p.check(d[p.name], where)
        elif p.required:
            raise ParamError(f"{where} is missing '{p.name}' ({p.title}"
                             f"{': ' + p.help if p.help else ''})")
        else:
            out[p.name] = p.default
    return out


def write_table(values: dict, params: Iterable[Param]) -> dict:
    """The job-file table of checked values: None (absent) left out, tuples as lists."""
    out = {}
    for p in params:
        v = values.get(p.name)
        if v is None:
            continue
        out[p.name] = list(v) if isinstance(v, tuple) else v
    return out


def bind_arguments(params: tuple[Param, ...], args: tuple, kwargs: dict, where: str) -> dict:
    """Positional and keyword arguments of a declared constructor, checked."""
    if len(args) > len(params):
        raise ParamError(f"{where} takes {len(params)} parameters, got {len(args)}")
    d = dict(zip((p.name for p in params), args))
    for key, value in kwargs.items():
        if key in d:
            raise ParamError(f"{where} got '{key}' twice")
        d[key] = value
    # None for an optional parameter means "not given", as in Python
    d = {k: v for k, v in d.items()
         if not (v is None and k in {p.name for p in params if not p.required})}
    return read_table(d, params, where)


class Declared:
    """A specification whose parameters are declared (``params``).

    The constructor takes the parameters by position or name and checks them
    against the declarations; ``setup`` derives what follows from them and
    checks rules across parameters. Once constructed the object is frozen:
    ``replace(**changes)`` builds a changed one and ``working_copy()`` a mutable
    copy that may be bound to data (``Problem`` binds its own copies).
    """

    params: ClassVar[tuple[Param, ...]] = ()
    #: human name ("Distinct l-diversity") and one plain sentence about it
    label: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    #: how messages name the table ("[[privacy]] k-anonymity")
    table: ClassVar[str] = ""

    _frozen: bool = False

    def __init__(self, *args, **kwargs):
        values = bind_arguments(self.params, args, kwargs, self.where())
        for k, v in values.items():
            object.__setattr__(self, k, v)
        try:
            self.setup()
        except ParamError:
            raise
        except (TypeError, ValueError) as e:
            raise ParamError(f"{self.where()}: {e}") from None
        object.__setattr__(self, "_frozen", True)

    @classmethod
    def where(cls) -> str:
        return f"{cls.table} ({cls.name})"  # type: ignore[attr-defined]

    def setup(self) -> None:
        """Derive state from the parameters; raise ValueError on rules across them."""

    def __setattr__(self, key, value):
        if self._frozen:
            raise AttributeError(f"{type(self).__name__} is a specification and does not "
                                 f"change: use .replace({key}=...) or .working_copy()")
        object.__setattr__(self, key, value)

    def choice_text(self, p: Param) -> str:
        """A parameter's value as shown to people (a choice by its label)."""
        v = getattr(self, p.name)
        if p.kind == "choice":
            return p.choice_label(v)
        if isinstance(v, bool):
            return "yes" if v else "no"
        return f"{v:g}" if isinstance(v, float) else str(v)

    @property
    def values(self) -> dict:
        """The declared parameters' values."""
        return {p.name: getattr(self, p.name) for p in self.params}

    def replace(self, **changes):
        """A new specification with some parameters changed (checked again)."""
        return type(self)(**{**self.values, **changes})

    def working_copy(self):
        """A mutable copy, for binding to data (the specification stays untouched)."""
        c = copy.deepcopy(self)
        object.__setattr__(c, "_frozen", False)
        return c

    def __eq__(self, other):
        return type(self) is type(other) and self.values == other.values

    def __hash__(self):
        return hash((type(self).__name__, tuple(
            (k, v) for k, v in self.values.items() if not isinstance(v, (list, dict)))))

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.values.items())
        return f"{type(self).__name__}({args})"


class FrozenMap(dict):
    """A dict that cannot change (a Job's attributes, a [subset] or [population] table):
    equal to the dict it holds, written to TOML as one; ``dict(m)`` is a mutable copy."""

    def _refuse(self, *_, **__):
        raise TypeError("this table belongs to a job specification and does not change: "
                        "build a new job with dataclasses.replace")

    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __reduce__(self):
        return (FrozenMap, (dict(self),))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __hash__(self):
        return hash(tuple(sorted(self.items(), key=lambda kv: str(kv[0]))))


def frozen(value):
    """``value`` with dicts made FrozenMaps and lists tuples, all the way down."""
    if isinstance(value, dict):
        return FrozenMap({k: frozen(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(frozen(v) for v in value)
    return value


# --- dataclasses whose fields are declared parameters ---------------------------------
def param_field(kind: str, default=None, name: str = "", **declaration):
    """A dataclass field declared as a parameter (its job-file key: ``name``, else the
    field's name)."""
    return dataclasses.field(default=default, metadata={
        "param": Param(name, kind, default, **declaration)})


def declared_fields(cls) -> tuple[tuple[str, Param], ...]:
    """(field name, its Param) for a declared dataclass's fields, in order."""
    out = []
    for f in dataclasses.fields(cls):
        p = f.metadata.get("param")
        if p is not None:
            out.append((f.name, p if p.name else dataclasses.replace(p, name=f.name)))
    return tuple(out)


def dataclass_params(cls) -> tuple[Param, ...]:
    """The declared parameters of a dataclass's fields (in field order)."""
    return tuple(p for _, p in declared_fields(cls))


def dataclass_from_table(cls, d, where: str, ignore: Iterable[str] = (), **extra):
    """An instance of a declared dataclass from a job-file table, read strictly."""
    values = read_table(d, dataclass_params(cls), where, ignore)
    return cls(**{f: values[p.name] for f, p in declared_fields(cls)}, **extra)


def dataclass_to_table(obj) -> dict:
    """The job-file table of a declared dataclass (None values left out)."""
    pairs = declared_fields(type(obj))
    return write_table({p.name: getattr(obj, f) for f, p in pairs}, [p for _, p in pairs])
