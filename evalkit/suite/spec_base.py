"""The base of every model of a suite file as written: a key it does not declare is refused, so
a misspelt setting is an error at load time instead of a default silently used."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")
