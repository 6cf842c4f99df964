"""The GitHub Action's entrypoint and its parts; run it as `python -m evalkit.action`."""
