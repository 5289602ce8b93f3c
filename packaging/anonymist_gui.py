"""Entry script of the desktop bundle (PyInstaller): the GUI's ``main``."""
import sys

from app.__main__ import main

if __name__ == "__main__":
    sys.exit(main())
