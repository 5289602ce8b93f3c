"""Reusable widgets: dialogs, status bar progress, empty states, pagers."""
