"""numpy <-> Arrow conversions that do not load pandas.

pyarrow imports pandas (0.3-0.45 s of CPU with its own modules) the first time one
of its pandas-aware conversions runs: ``pa.array`` of a list or numpy array,
``pa.scalar``, ``Array.to_numpy``, a compute function given a numpy array or a
Python scalar (its shim asks whether the value is a pandas object). The command
line reads, encodes and writes a CSV job without pandas, so the Arrow arrays it
needs are built from numpy buffers here, and read back the same way: the same
values, without the shim. (``tests/test_import_cost.py`` checks that the command
line's anonymize and verify load no pandas.)
"""
from __future__ import annotations

import numpy as np

_NUMPY_OF = {"int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64,
             "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32,
             "uint64": np.uint64, "float": np.float32, "double": np.float64}


def to_numpy(array) -> np.ndarray:
    """The values of an Arrow array of integers or floats without nulls (a read-only
    view of its buffer)."""
    if array.null_count:
        raise ValueError("an array with nulls has no plain numpy view")
    dtype = np.dtype(_NUMPY_OF[str(array.type)])
    n = len(array)
    data = array.buffers()[1]
    if n == 0 or data is None:
        return np.empty(0, dtype)
    return np.frombuffer(data, dtype, n, array.offset * dtype.itemsize)


def from_numpy(values: np.ndarray):
    """A one-dimensional numpy array of integers or floats as an Arrow array (its
    buffer shared)."""
    import pyarrow as pa
    values = np.ascontiguousarray(values)
    if values.ndim != 1 or values.dtype.kind not in "iuf":
        raise TypeError(f"cannot share a {values.dtype} array of {values.ndim} dimensions")
    arrow_type = pa.from_numpy_dtype(values.dtype)
    return pa.Array.from_buffers(arrow_type, len(values), [None, pa.py_buffer(values)])


def binary(items: list[bytes], text: bool = False):
    """A list of byte strings as an Arrow ``binary`` array (``string`` with ``text``:
    the items are then UTF-8)."""
    import pyarrow as pa
    offsets = np.zeros(len(items) + 1, np.int64)
    np.cumsum([len(b) for b in items], out=offsets[1:])
    data = pa.py_buffer(b"".join(items))
    if offsets[-1] >= 2**31:
        kind = pa.large_string() if text else pa.large_binary()
        return pa.Array.from_buffers(kind, len(items), [None, pa.py_buffer(offsets), data])
    kind = pa.string() if text else pa.binary()
    return pa.Array.from_buffers(kind, len(items),
                                 [None, pa.py_buffer(offsets.astype(np.int32)), data])


def string_array(texts) -> object:
    """Python strings as an Arrow ``string`` array."""
    return binary([t.encode("utf-8") for t in texts], text=True)


def int_scalar(value: int, dtype=np.int32):
    """An Arrow integer scalar (``pa.scalar`` without the shim)."""
    return from_numpy(np.array([value], dtype))[0]


def binary_scalar(value: bytes):
    """An Arrow ``binary`` scalar."""
    return binary([value])[0]


def strings(array) -> np.ndarray:
    """An Arrow array of strings as a numpy array of Python strings (object dtype)."""
    out = np.empty(len(array), dtype=object)
    out[:] = array.to_pylist()
    return out


def write_values(f, array) -> None:
    """Write a string or binary array's values back to back (its data buffer between
    the first and last offsets, no Python object per value) to the binary file ``f``."""
    offsets = np.frombuffer(array.buffers()[1], np.int32, len(array) + 1, array.offset * 4)
    f.write(memoryview(array.buffers()[2])[offsets[0]:offsets[-1]])
