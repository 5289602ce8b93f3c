"""The guided release: from a data file to a verified release in plain words.

``GuidedReleaseWizard(window)`` edits the window's `Document` (the same job the
perspectives show), so the user can leave for the perspectives at any step and
come back. ``python -m app --guide [PATH]`` and File > New guided release open it.
"""
from app.wizards.guided.wizard import GuidedReleaseWizard

__all__ = ["GuidedReleaseWizard"]
