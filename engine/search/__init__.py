"""Search algorithms over the generalization lattice."""
