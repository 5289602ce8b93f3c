"""numba kernels: grouping records into equivalence classes."""
