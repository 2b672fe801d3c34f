"""A small JSON-over-HTTP client for OpenAI-compatible servers, on the standard library.

Only the host of the URL the user configured is ever contacted: proxies from the environment
are not used and redirects are refused. Every failure (server down, timeout, error status,
a reply that is not JSON) becomes a ServerError that names the server and what went wrong."""

from __future__ import annotations

import http.client
import json
import urllib.error
import urllib.request
from typing import Any

from conflictdesk.errors import ServerError

ERROR_EXCERPT = 300  # characters of a server's error body kept in the message


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect could lead to a host the user never named: refuse it."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        raise ServerError(f"{req.full_url} redirected to {newurl}; redirects are not followed")


class JsonClient:
    """POST and GET JSON under `base_url` with a timeout and an optional bearer key."""

    def __init__(self, base_url: str, *, key: str | None = None, timeout: float = 120.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.key, self.timeout = key, timeout
        self._opener = urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirect)

    def get(self, path: str) -> Any:
        return self._send(urllib.request.Request(self._url(path), headers=self._headers()))

    def post(self, path: str, body: dict[str, Any]) -> Any:
        data = json.dumps(body).encode("utf-8")
        request = urllib.request.Request(self._url(path), data=data, headers=self._headers())
        return self._send(request)

    def _url(self, path: str) -> str:
        return f"{self.base_url}/{path.lstrip('/')}"

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.key:
            headers["Authorization"] = f"Bearer {self.key}"
        return headers

    def _send(self, request: urllib.request.Request) -> Any:
        url = request.full_url
        try:
            with self._opener.open(request, timeout=self.timeout) as response:
                raw = response.read()
        except urllib.error.HTTPError as exc:
            detail = _excerpt(exc.read())
            raise ServerError(f"the LLM server answered HTTP {exc.code} to {url}: {detail}",
                              status=exc.code, body=detail) from None  # fmt: skip
        except TimeoutError:
            raise ServerError(f"no answer from the LLM server at {url} within "
                              f"{self.timeout:g} s (llm_timeout)") from None  # fmt: skip
        except urllib.error.URLError as exc:
            raise ServerError(f"cannot reach the LLM server at {url}: {_reason(exc)}; is it "
                              "running, and is llm_url right?") from None  # fmt: skip
        except (OSError, http.client.HTTPException) as exc:
            raise ServerError(f"the connection to the LLM server at {url} failed: {exc}") from None
        try:
            return json.loads(raw)
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise ServerError(
                f"the LLM server at {url} sent a reply that is not JSON: {_excerpt(raw)!r}"
            ) from None


def _reason(exc: urllib.error.URLError) -> str:
    reason = exc.reason
    if isinstance(reason, TimeoutError):
        return "timed out"
    return getattr(reason, "strerror", None) or str(reason)


def _excerpt(raw: bytes) -> str:
    text = raw.decode("utf-8", errors="replace").strip()
    return text if len(text) <= ERROR_EXCERPT else text[:ERROR_EXCERPT] + "…"
