"""Group commit of moves to storage, off the event loop."""

from __future__ import annotations

import asyncio
import contextlib

from .storage import Append, ConflictError, StorageError, Store


class Committer:
    """Group commit: appends queued while a transaction runs go into the next one. Commits run
    in a thread, on SQLite too: with synchronous=FULL a commit waits for the disk (12 ms on the
    test machine), which on the event loop would stall every table."""

    def __init__(self, store: Store, max_batch: int = 256) -> None:
        self.store = store
        self.max_batch = max_batch
        self.queue: asyncio.Queue[tuple[Append, asyncio.Future[None]]] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self.task:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task

    async def commit(self, a: Append) -> None:
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.queue.put_nowait((a, fut))
        await fut

    async def _run(self) -> None:
        while True:
            items = [await self.queue.get()]
            while len(items) < self.max_batch and not self.queue.empty():
                items.append(self.queue.get_nowait())
            batch = [a for a, _ in items]
            try:
                await asyncio.to_thread(self.store.append_many, batch)
            except Exception as e:  # storage down: every item fails
                for _a, f in items:
                    if not f.done():
                        f.set_exception(StorageError(f"storage failed: {e}"))
                continue
            for a, f in items:
                if f.done():
                    continue
                if a.error:
                    f.set_exception(ConflictError(a.error))
                else:
                    f.set_result(None)
