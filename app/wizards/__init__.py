"""Wizards: data import (the hierarchy wizard is a separate piece of work)."""
