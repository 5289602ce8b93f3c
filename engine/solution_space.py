"""What a search learned about the lattice: states, losses, bounds, the optimum.

Only checked transformations carry exact losses; others may carry a state
inferred by monotonicity (predictive tagging) and a lower bound. Dense state
arrays are kept for lattices small enough to enumerate; huge lattices keep
only visited transformations, keyed by id (a Python int, of any size).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.kernel.tagging import flood, strides_of
from engine.lattice import Lattice
from engine.metrics import Loss

UNKNOWN, ANONYMOUS, NOT_ANONYMOUS = 0, 1, 2
STATE_NAMES = {UNKNOWN: "unknown", ANONYMOUS: "anonymous", NOT_ANONYMOUS: "not-anonymous"}


@dataclass(frozen=True)
class NodeInfo:
    """Everything known about one transformation."""

    levels: tuple[int, ...]
    state: str
    checked: bool
    loss: Loss | None  # exact when checked, else the lower bound (or None)
    suppressed_records: int | None


class SolutionSpace:
    """States and losses of transformations, by lattice id."""

    def __init__(self, lattice: Lattice, dense: bool):
        self.lattice = lattice
        self.dense = dense
        self.levels: np.ndarray | None = lattice.all_levels() if dense else None
        self.states = np.zeros(lattice.size, dtype=np.int8) if dense else None
        self.lower_bounds: np.ndarray | None = None
        self.sparse_states: dict[int, int] = {}
        self.losses: dict[int, Loss] = {}
        self.suppressed: dict[int, int] = {}
        self.optimum_id: int | None = None
        # int64 id arithmetic serves the dense arrays' tagging only; a sparse space keys
        # its transformations by Python int ids, which fit lattices beyond 2**63
        self._radix = np.asarray(lattice.radix, dtype=np.int64) if dense else None
        self._strides = strides_of(lattice.radix) if dense else None

    # --- recording ---------------------------------------------------------------
    def record(self, node_id: int, anonymous: bool, loss: Loss, suppressed: int) -> None:
        state = ANONYMOUS if anonymous else NOT_ANONYMOUS
        if self.dense:
            self.states[node_id] = state
        else:
            self.sparse_states[node_id] = state
        self.losses[node_id] = loss
        self.suppressed[node_id] = suppressed

    def tag_generalizations(self, node_id: int) -> int:
        """Mark every unknown generalization of ``node_id`` anonymous."""
        return flood(self.states, node_id, ANONYMOUS, self._radix, self._strides, True)

    def tag_specializations(self, node_id: int) -> int:
        """Mark every unknown specialization of ``node_id`` not anonymous."""
        return flood(self.states, node_id, NOT_ANONYMOUS, self._radix, self._strides, False)

    # --- queries -------------------------------------------------------------------
    def state(self, node_id: int) -> int:
        if self.dense:
            return int(self.states[node_id])
        return self.sparse_states.get(node_id, UNKNOWN)

    @property
    def checked_count(self) -> int:
        return len(self.losses)

    def info(self, node_id: int) -> NodeInfo:
        levels = self.lattice.levels_of(node_id)
        checked = node_id in self.losses
        loss = self.losses.get(node_id)
        if loss is None and self.lower_bounds is not None:
            b = self.lower_bounds[node_id]
            loss = tuple(float(x) for x in b) if np.ndim(b) else float(b)
        return NodeInfo(levels, STATE_NAMES[self.state(node_id)], checked, loss,
                        self.suppressed.get(node_id))

    def counts(self) -> dict[str, int]:
        if self.dense:
            s = self.states
            return {"anonymous": int((s == ANONYMOUS).sum()),
                    "not-anonymous": int((s == NOT_ANONYMOUS).sum()),
                    "unknown": int((s == UNKNOWN).sum()), "checked": self.checked_count}
        vals = list(self.sparse_states.values())
        known = len(vals)
        return {"anonymous": vals.count(ANONYMOUS), "not-anonymous": vals.count(NOT_ANONYMOUS),
                "unknown": self.lattice.size - known, "checked": self.checked_count}

    # --- kept and brought back (a project file's result) -------------------------------
    def saved(self) -> tuple[dict, np.ndarray | None, np.ndarray | None]:
        """What the space knows as JSON (ids as text: they may exceed 64 bits), with the
        dense states and the lower bounds as arrays (None where there are none);
        `restored` brings it back."""
        state = {
            "dense": bool(self.dense),
            "optimum_id": None if self.optimum_id is None else str(self.optimum_id),
            "checked": [[str(i), loss_json(loss), int(self.suppressed.get(i, -1))]
                        for i, loss in self.losses.items()],
            "sparse_states": [[str(i), int(s)] for i, s in self.sparse_states.items()],
        }
        bounds = None if self.lower_bounds is None else np.asarray(self.lower_bounds, float)
        return state, self.states if self.dense else None, bounds

    @classmethod
    def restored(cls, lattice: Lattice, saved: dict, states: np.ndarray | None,
                 lower_bounds: np.ndarray | None) -> "SolutionSpace":
        """The space `saved` described, over ``lattice``.

        Raises
        ------
        ValueError
            When the saved states do not fit the lattice, or the JSON is damaged.
        """
        space = cls(lattice, bool(saved["dense"]))
        if space.dense:
            if states is None or states.shape != space.states.shape:
                raise ValueError("the saved states do not fit the lattice")
            space.states[:] = states
        else:
            space.sparse_states = {int(i): int(s) for i, s in saved["sparse_states"]}
        for i, loss, suppressed in saved["checked"]:
            space.losses[int(i)] = loss_value(loss)
            if suppressed >= 0:
                space.suppressed[int(i)] = int(suppressed)
        if lower_bounds is not None:
            space.lower_bounds = lower_bounds
        space.optimum_id = None if saved["optimum_id"] is None else int(saved["optimum_id"])
        return space


def loss_json(loss):
    """A loss as JSON: a number, or a list of numbers (a tuple loss)."""
    if loss is None:
        return None
    return [float(x) for x in loss] if isinstance(loss, (tuple, list)) else float(loss)


def loss_value(value):
    """A loss read back from JSON (`loss_json`)."""
    return tuple(float(x) for x in value) if isinstance(value, list) else value
