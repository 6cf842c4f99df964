"""GitHub glue: the runner's event, changed files, the sticky comment and workflow commands."""

__all__ = [
    "api",
    "changes",
    "check_run",
    "commands",
    "event",
    "globs",
    "sticky_comment",
]

