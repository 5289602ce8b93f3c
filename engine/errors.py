"""Errors the engine raises for bad input: each message names the file, row or value."""
from __future__ import annotations


class AnonymistError(Exception):
    """Base class of every error the engine reports to users."""


class DataError(AnonymistError):
    """A data file or table cannot be read or used."""


class HierarchyError(AnonymistError):
    """A generalization hierarchy is malformed or does not cover the data."""


class JobError(AnonymistError):
    """A job file (TOML) or configuration is invalid."""


class Cancelled(AnonymistError):
    """The caller cancelled a long-running operation."""


class LevelsError(AnonymistError, ValueError):
    """Generalization levels that name an unknown attribute, leave one out, or lie
    outside an attribute's range of levels."""
