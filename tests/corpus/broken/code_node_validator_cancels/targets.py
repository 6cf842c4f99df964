import asyncio

from pydantic import BaseModel, field_validator


def plain(i):
    return {"code": "x"}


class Node(BaseModel):
    code: str

    @field_validator("code")
    @classmethod
    def cancel(cls, value):
        raise asyncio.CancelledError()
