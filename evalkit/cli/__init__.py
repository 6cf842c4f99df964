"""The `evalkit` command: its subcommands, exit codes, console script, terminal output, the project's
evalkit.yml, `evalkit init` and `evalkit demo`."""

__all__ = [
    "commands",
    "console",
    "demo",
    "exit_codes",
    "history",
    "project",
    "scaffold",
    "side_by_side",
    "terminal",
]
