"""Generalization hierarchies: model, CSV input/output, integer encoding."""
from engine.hierarchy.model import Hierarchy
from engine.hierarchy.encoded import EncodedHierarchy
from engine.hierarchy.csv_io import read_hierarchy, write_hierarchy

__all__ = ["Hierarchy", "EncodedHierarchy", "read_hierarchy", "write_hierarchy"]
