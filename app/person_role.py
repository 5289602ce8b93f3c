"""The person column's role in the app (``[data] person``, engine/persons.py).

Configure and the guided release offer, besides the four attribute types, the role
"Identifies the person (several rows per person)". The column is then identifying
(never released) and the job's ``[data] person``. The document keeps which column it
is in its project state (``Document.extras["person"]``, saved in projects); the job
the document builds names it (``Document.build_job``).
"""
from __future__ import annotations

from engine.config import ATTRIBUTE_TYPES, IDENTIFYING
from engine.persons import ROLE, ROLE_LABEL, ROLE_MEANING

EXTRA = "person"
#: the roles an attribute may be given, in the order the combos list them
ROLES = ATTRIBUTE_TYPES + (ROLE,)

__all__ = ["ROLE", "ROLE_LABEL", "ROLE_MEANING", "ROLES", "person_of", "role_of",
           "set_role"]


def person_of(doc) -> str | None:
    """The column identifying the person, or None."""
    name = doc.extras.get(EXTRA)
    return name if isinstance(name, str) and name in doc.attributes else None


def role_of(doc, name: str) -> str:
    """``ROLE`` for the person column, else the attribute's type."""
    return ROLE if person_of(doc) == name else doc.attributes[name].type


def set_role(doc, role: str, names: list[str]) -> None:
    """Give ``names`` a role: an attribute type, or ``ROLE`` (one column only: it becomes
    identifying, without a pseudonym, and the job's person; the former person column
    stays identifying). A person column given a type is no longer the person."""
    old = person_of(doc)
    if role == ROLE:
        if len(names) != 1:
            raise ValueError("one column identifies the person")
        doc.extras[EXTRA] = names[0]
        doc.update_attributes(names, type=IDENTIFYING, pseudonym=None)
    else:
        if old in names:
            doc.extras.pop(EXTRA, None)
        if role == IDENTIFYING:
            doc.update_attributes(names, type=role)
        else:
            doc.update_attributes(names, type=role, pseudonym=None)
    new = person_of(doc)
    if new != old:  # the lists show the role: tell them even when the type stayed
        doc.attributes_changed.emit([n for n in (old, new) if n is not None])
        doc.set_modified(True)
