"""Anonymist's desktop GUI (PySide6). The compute lives in ``engine``; this package
only shows and edits it. Start with ``python -m app`` or ``anonymist-gui``."""
__version__ = "0.1.0"
APP_NAME = "Anonymist"
ORGANIZATION = "Anonymist"
