"""Transformation methods beside full-domain generalization: microaggregation, coding rules
and local recoding (ARX's other transformation models)."""
