import asyncio


async def agent(i):
    async def inner():
        raise asyncio.CancelledError()
    await asyncio.wait_for(inner(), 5)
    return "hello"
