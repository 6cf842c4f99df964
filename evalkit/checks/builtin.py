"""Importing this module registers every built-in check."""

from evalkit.checks import code, fields, text  # noqa: F401
