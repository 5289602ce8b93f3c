"""The keys of each builder's specification, declared once (``engine.schema`` style).

A builder's specification is written as JSON by the hierarchy wizard (``save_spec``)
and as a table by a job (``hierarchy = { builder = "masking", ... }``,
``engine.hierarchy.from_spec``) or ``anonymist hierarchy build --set``: the same keys.
Each is declared here with its kind, range, label and help; the job's table is read
strictly against these (unknown keys refused with the closest known one, scalar
values checked), and a test holds them equal to the keys the specifications write
(``BuilderSpec.to_json``). Keys holding structures (``data_type``, ``intervals``,
``levels``, ``order``, coding bounds) are declared as ``"text"`` for their label and
help and checked by the specification itself (``BuilderSpec.from_json``).
"""
from __future__ import annotations

from engine.hierarchy.builders.masking import ALIGNMENTS, DIRECTIONS
from engine.hierarchy.builders.priority import PRIORITIES
from engine.schema import Param

DATA_TYPE = Param("data_type", "text", None, label="Data type",
                  help="integer, decimal, date, ordinal or string, or a table such as "
                       "{ kind = \"date\", format = \"%d.%m.%Y\" } (absent: the attribute's "
                       "data_type and format, else detected from the values)")
LEVELS = Param("levels", "text", None, label="Levels",
               help="per level the sizes of the groups merged, e.g. [[2], [2]], or "
                    "{ size, label } tables")
TOP_LABEL = Param("top_label", "text", "*", label="Top label",
                  help="the label of the top level (everything generalized)")
BOTTOM = Param("bottom_coding", "text", None, label="Bottom coding",
               help="values below it fall into the lowest interval")
TOP = Param("top_coding", "text", None, label="Top coding",
            help="values above it fall into the highest interval")
ORDER = Param("order", "text", None, label="Order",
              help="the values in their order (absent: the data type's natural order)")
MAX_LEVELS = Param("max_levels", "int", None, low=1, label="Most levels",
                   help="at most this many levels above the values")

#: builder name -> its keys (besides ``builder``), in the order the wizard writes them
BUILDER_PARAMS: dict[str, tuple[Param, ...]] = {
    "intervals": (DATA_TYPE,
                  Param("intervals", "text", None, label="Base intervals",
                        help="[{ lower = 0, upper = 10, label = \"interval\" }, ...], "
                             "repeated over the domain"),
                  LEVELS, BOTTOM, TOP, TOP_LABEL),
    "ordering": (DATA_TYPE, ORDER, LEVELS, TOP_LABEL),
    "masking": (Param("direction", "choice", "right_to_left", choices=DIRECTIONS,
                      label="Direction", help="which end is masked first"),
                Param("align", "choice", "left", choices=ALIGNMENTS, label="Align",
                      help="left: values padded on the right; right: on the left "
                           "(numbers of different lengths)"),
                Param("padding_char", "text", " ", label="Padding character",
                      help="one character that pads shorter values"),
                Param("mask_char", "text", "*", label="Mask character",
                      help="one character that replaces a masked one"),
                Param("length", "int", None, low=1, label="Length",
                      help="the length values are padded to (absent: the longest)"),
                MAX_LEVELS),
    "dates": (DATA_TYPE,
              Param("levels", "text", None, label="Levels",
                    help="granularities from fine to coarse (\"month\", \"year\", "
                         "\"decade\", ...) or { granularity, format } tables"),
              BOTTOM, TOP, TOP_LABEL),
    "priority": (DATA_TYPE,
                 Param("priority", "choice", "frequency", choices=PRIORITIES,
                       label="Priority",
                       help="frequency: the rarest values hidden first; natural: by the "
                            "data type's order; custom: by order"),
                 Param("highest_first", "bool", True, label="Highest first",
                       help="whether the first value of the ranking is kept longest"),
                 ORDER, MAX_LEVELS, TOP_LABEL),
}
#: keys whose values are structures the specification checks itself
STRUCTURED = frozenset({"data_type", "intervals", "levels", "order", "bottom_coding",
                        "top_coding"})
