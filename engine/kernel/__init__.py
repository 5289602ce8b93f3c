"""numba kernels and the per-class aggregates they roll up: grouping records into
equivalence classes, flooding tags over the lattice, sparse per-class value counts."""
