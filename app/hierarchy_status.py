"""What the hierarchy editor and the attribute list say about an attribute's hierarchy."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass


@dataclass(frozen=True)
class HierarchyStatus:
    """What the hierarchy editor shows below the table."""

    complete: bool
    height: int
    missing: tuple[str, ...] = ()
    error: str = ""
    #: out of core: the data's distinct values are still being counted
    unchecked: bool = False

    def text(self) -> str:
        if not self.height and not self.error and not self.missing:
            return "No hierarchy"
        if self.unchecked and not self.error:
            return (f"Height {self.height}; counting the data's distinct values to check "
                    f"that it covers them…")
        if self.error:
            return f"Invalid: {self.error}"
        if self.complete:
            return f"Complete, height {self.height}"
        shown = ", ".join(f"'{v}'" for v in self.missing[:5])
        more = f" and {len(self.missing) - 5} more" if len(self.missing) > 5 else ""
        return f"Incomplete, height {self.height}: no row for {shown}{more}"

    def short(self) -> str:
        """The same in a few words, for the attribute list's column (``text`` is its
        tooltip): "✓ height 4", "Incomplete (3 missing)", "Invalid"."""
        if not self.height and not self.error and not self.missing:
            return "No hierarchy"
        if self.unchecked and not self.error:
            return f"height {self.height}, checking…"
        if self.error:
            return "Invalid"
        if self.complete:
            return f"✓ height {self.height}"
        return f"Incomplete ({len(self.missing):,} missing)"


def rows_digest(rows) -> str:
    """A fingerprint of a hierarchy's rows, to tell whether it changed since it was built."""
    return hashlib.sha256("\n".join("\x1f".join(r) for r in rows).encode()).hexdigest()
