"""GitHub glue: the runner's event, changed files, the sticky comment and workflow commands."""
