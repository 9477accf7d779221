"""One GET, with redirects followed by hand so each hop is checked like the first.

httpx is imported when a fetch happens (it comes with litellm and the MCP SDK;
hermeslite's start does not need it). The client follows no redirect itself,
reads no proxy settings from the environment (a proxy would connect to a name
we did not check), and is pointed at the address `guard.resolve` judged, with
the host name in the Host header and in TLS (SNI and certificate checks).
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urljoin

from hermeslite.tools.web.guard import Refused, Target, resolve
from hermeslite.tools.web.settings import WebFetchConfig

if TYPE_CHECKING:
    import httpx

REDIRECTS = (301, 302, 303, 307, 308)
USER_AGENT = "hermeslite-web-fetch (+https://github.com/hermeslite)"
ACCEPT = "text/html, text/markdown;q=0.9, text/plain;q=0.8, application/json;q=0.8, */*;q=0.1"
# Asked with (host, URL) before each request (the first and every redirect's): None to go on, else the refusal.
HostCheck = Callable[[str, str], Awaitable[str | None]]


class FetchFailed(Exception):
    """The fetch did not produce a page; the message is the one line the model reads."""


@dataclass(frozen=True)
class Page:
    url: str  # after redirects
    status: int
    content_type: str
    body: bytes


async def fetch(url: str, limits: WebFetchConfig, check_host: HostCheck) -> Page:
    """GET `url` within `limits`; `Refused` or `FetchFailed` with one line when it cannot be had."""
    import httpx

    try:
        async with asyncio.timeout(limits.timeout) as budget, _client(limits) as client:
            return await _follow(client, url, limits, _paused(budget, check_host))
    except (TimeoutError, httpx.TimeoutException):
        raise FetchFailed(f"timed out after {limits.timeout:g} s (tools.web_fetch.timeout)") from None
    except httpx.ConnectError as exc:
        raise FetchFailed(f"could not connect: {_reason(exc)}") from None
    except httpx.HTTPError as exc:
        raise FetchFailed(f"{type(exc).__name__}: {_reason(exc)}") from None


def _paused(budget: asyncio.Timeout, check_host: HostCheck) -> HostCheck:
    """`check_host` with the fetch's clock stopped while it runs: the user's time to answer the
    approval dialog is not the server's time to answer."""

    async def check(host: str, url: str) -> str | None:
        loop = asyncio.get_running_loop()
        left = (budget.when() or loop.time()) - loop.time()
        budget.reschedule(None)
        try:
            return await check_host(host, url)
        finally:
            budget.reschedule(asyncio.get_running_loop().time() + left)

    return check


def _client(limits: WebFetchConfig) -> httpx.AsyncClient:
    import httpx

    return httpx.AsyncClient(follow_redirects=False, trust_env=False, timeout=limits.timeout, verify=True)


def _reason(exc: BaseException) -> str:
    """The innermost cause: a certificate failure says so rather than `ConnectError`."""
    while exc.__cause__ is not None or exc.__context__ is not None:
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
    if isinstance(exc, ssl.SSLCertVerificationError):
        return f"the server's TLS certificate is not trusted ({exc.verify_message})"
    return str(exc) or type(exc).__name__


async def _follow(client: httpx.AsyncClient, url: str, limits: WebFetchConfig, check_host: HostCheck) -> Page:
    for hop in range(limits.max_redirects + 1):
        target = await resolve(url, allow_private=limits.allow_private)
        refusal = await check_host(target.host, url)
        if refusal is not None:
            raise Refused(refusal)
        status, headers, body = await _get(client, target, limits)
        if status not in REDIRECTS:
            return Page(url, status, headers.get("content-type", ""), body)
        location = headers.get("location")
        if not location:
            raise FetchFailed(f"HTTP {status} redirect without a Location header")
        url = urljoin(url, location)
        if hop == limits.max_redirects:
            break
    raise FetchFailed(
        f"more than {limits.max_redirects} redirects (tools.web_fetch.max_redirects); the last went to {url}"
    )


async def _get(client: httpx.AsyncClient, target: Target, limits: WebFetchConfig) -> tuple[int, dict[str, str], bytes]:
    """The response to one GET of the pinned address, its body read up to the size limit."""
    ceiling = int(limits.max_mb * (1 << 20))
    host = target.parts.netloc.rpartition("@")[2]  # the Host header as the URL names it, port included
    request = client.build_request(
        "GET",
        target.pinned_url,
        headers={"Host": host, "User-Agent": USER_AGENT, "Accept": ACCEPT},
        extensions={"sni_hostname": target.host},
    )
    response = await client.send(request, stream=True)
    try:
        headers = {key.lower(): value for key, value in response.headers.items()}
        if response.status_code in REDIRECTS:
            return response.status_code, headers, b""
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > ceiling:
            raise FetchFailed(_too_large(int(declared), limits))
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            if size > ceiling:
                raise FetchFailed(_too_large(size, limits, more=True))
            chunks.append(chunk)
        return response.status_code, headers, b"".join(chunks)
    finally:
        await response.aclose()


def _too_large(size: int, limits: WebFetchConfig, *, more: bool = False) -> str:
    over = "more than " if more else ""
    return f"the response is {over}{size:,} bytes, over tools.web_fetch.max_mb ({limits.max_mb:g} MB)"
