"""A hostile OpenAI-compatible endpoint on the loopback (aiohttp.web), for issue 41's rows 1-4.

``HostileEndpoint`` serves, below ``/<mode>/v1``, the ``/models`` and ``/chat/completions``
routes, each behaving as ``mode`` says:

- ``ok``: a model list (``sim-strong``) and a completion answering ``2``;
- ``gzip-bomb`` / ``deflate-bomb``: ``bomb_bytes`` zeros in that coding (a few KB per 64 MiB on
  the wire), with a ``Content-Length``; ``chunked-bomb``: the gzip bomb chunked;
- ``br``: a body declared ``Content-Encoding: br`` (never offered by the client);
- ``endless``: a chunked body that never ends (64 KiB a piece, as fast as it is read);
- ``slow-loris``: a chunked body of one byte every ``drip_s`` seconds, forever;
- ``silent``: the head of the reply never comes;
- ``loop``: ``302`` to itself; ``redirect``: ``307`` to the same path at ``ok`` on a second
  server on 127.0.0.2 (another host of the loopback); ``same-origin``: ``307`` to ``ok`` here.

Both servers listen on free ports only while the block runs, on an event loop in a background
thread (the code under test runs its own loop); ``seen`` records ``(host, method, path,
had Authorization)`` of every request to either. No byte leaves the loopback.
"""

from __future__ import annotations

import asyncio
import functools
import json
import threading
import zlib
from typing import Any

from aiohttp import web

__all__ = ["HostileEndpoint", "bomb"]

OTHER_HOST = "127.0.0.2"
_PIECE = b"x" * 65536


@functools.lru_cache(maxsize=4)
def bomb(size: int, coding: str = "gzip") -> bytes:
    """``size`` zero bytes compressed in ``coding`` (``gzip`` or ``deflate``, zlib-wrapped)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + 15 if coding == "gzip" else 15)
    block = bytes(1 << 20)
    parts = [packer.compress(block) for _ in range(size >> 20)]
    parts.append(packer.compress(bytes(size & ((1 << 20) - 1))))
    return b"".join(parts) + packer.flush()


def _completion(text: str) -> dict[str, Any]:
    return {
        "id": "c", "object": "chat.completion", "model": "sim-strong",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


class HostileEndpoint:
    """Context manager: start both servers; ``url(mode)`` is the base URL of one behaviour.

    Parameters
    ----------
    bomb_bytes : int
        Inflated size of the ``*-bomb`` replies.
    drip_s : float
        Seconds between the bytes of ``slow-loris``.
    """

    def __init__(self, *, bomb_bytes: int = 64 << 20, drip_s: float = 0.05) -> None:
        self.bomb_bytes = bomb_bytes
        self.drip_s = drip_s
        self.seen: list[tuple[str, str, str, bool]] = []
        self.in_flight = self.peak = 0  # requests being answered: now, and at most
        self.ports: dict[str, int] = {}
        self._loop = asyncio.new_event_loop()
        self._thread: threading.Thread | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._failed: list[BaseException] = []

    def url(self, mode: str, *, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.ports[host]}/{mode}/v1"

    def requests_to(self, host: str) -> list[tuple[str, str, str, bool]]:
        return [seen for seen in self.seen if seen[0] == host]

    def __enter__(self) -> HostileEndpoint:
        self._thread = threading.Thread(
            target=self._loop.run_until_complete, args=(self._serve(),), daemon=True
        )
        self._thread.start()
        assert self._ready.wait(10), "the hostile endpoint did not start"
        if self._failed:
            raise self._failed[0]
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._thread is not None and self._stop is not None
        self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)
        self._loop.close()

    async def _serve(self) -> None:
        self._stop = asyncio.Event()
        app = web.Application()
        app.router.add_route("*", "/{mode}/v1/{tail:.*}", self._handle)
        runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.1)
        try:
            await runner.setup()
            for host in ("127.0.0.1", OTHER_HOST):
                site = web.TCPSite(runner, host, 0)
                await site.start()
                self.ports[host] = site._server.sockets[0].getsockname()[1]  # noqa: SLF001
        except OSError as exc:
            self._failed.append(exc)
            self._ready.set()
            await runner.cleanup()
            return
        self._ready.set()
        try:
            await self._stop.wait()
        finally:
            await runner.cleanup()
            rest = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in rest:  # handlers still waiting (silent, slow-loris)
                task.cancel()
            await asyncio.gather(*rest, return_exceptions=True)

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        try:
            return await self._answer(request)
        finally:
            self.in_flight -= 1

    async def _answer(self, request: web.Request) -> web.StreamResponse:
        host = request.transport.get_extra_info("sockname")[0] if request.transport else "?"
        await request.read()
        self.seen.append((host, request.method, request.path,
                          "Authorization" in request.headers))
        mode, tail = request.match_info["mode"], request.match_info["tail"]
        if mode.startswith("chat-"):  # /models answered, the completions as the rest says
            mode = "ok" if tail == "models" else mode.removeprefix("chat-")
        if mode == "ok":
            if tail == "models":
                return web.json_response({"object": "list", "data": [
                    {"id": "sim-strong", "object": "model", "owned_by": "hostile"}]})
            return web.json_response(_completion("2"))
        if mode in ("gzip-bomb", "deflate-bomb"):
            coding = mode.split("-")[0]
            return web.Response(body=bomb(self.bomb_bytes, coding),
                                headers={"Content-Encoding": coding,
                                         "Content-Type": "application/json"})
        if mode == "br":
            return web.Response(body=b"\x0b\x02\x80hello\x03",
                                headers={"Content-Encoding": "br"})
        if mode == "loop":
            raise web.HTTPFound(request.path)
        if mode == "redirect":
            port = self.ports[OTHER_HOST]
            raise web.HTTPTemporaryRedirect(f"http://{OTHER_HOST}:{port}/ok/v1/{tail}")
        if mode == "same-origin":
            raise web.HTTPTemporaryRedirect(f"/ok/v1/{tail}")
        if mode == "silent":
            await asyncio.sleep(3600)
        return await self._stream(request, mode)

    async def _stream(self, request: web.Request, mode: str) -> web.StreamResponse:
        reply = web.StreamResponse(headers={"Content-Type": "application/json"})
        if mode == "chunked-bomb":
            reply.headers["Content-Encoding"] = "gzip"
        reply.enable_chunked_encoding()
        await reply.prepare(request)
        try:
            if mode == "chunked-bomb":
                data = bomb(self.bomb_bytes, "gzip")
                for start in range(0, len(data), 4096):
                    await reply.write(data[start:start + 4096])
            elif mode == "endless":
                while True:
                    await reply.write(_PIECE)
            elif mode == "slow-loris":
                await reply.write(json.dumps({"choices": []})[:1].encode())
                while True:
                    await asyncio.sleep(self.drip_s)
                    await reply.write(b" ")
            else:
                raise web.HTTPNotFound()
            await reply.write_eof()
        except (ConnectionError, asyncio.CancelledError):
            pass  # the client went away
        return reply
