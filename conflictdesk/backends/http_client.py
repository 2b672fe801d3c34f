"""A small JSON-over-HTTP client for the OpenAI-compatible LLM server the user names
(`--llm-url`, `llm_url`), on the standard library's `http.client`.

It never fetches models or data: it only sends chat requests to, and lists the models of, that
one server. Only http(s) URLs are accepted (no file:// or ftp://), only the URL's host is ever
contacted (no proxy from the environment, no redirect followed), and every failure (server
down, timeout, error status, a reply that is not JSON) becomes a ServerError that names the
server and what went wrong."""

from __future__ import annotations

import http.client
import json
from typing import Any
from urllib.parse import urlsplit

from conflictdesk.errors import ServerError, UsageError

ERROR_EXCERPT = 300  # characters of a server's error body kept in the message
CONNECTIONS = {"http": http.client.HTTPConnection, "https": http.client.HTTPSConnection}


class JsonClient:
    """POST and GET JSON under `base_url` with a timeout and an optional bearer key."""

    def __init__(self, base_url: str, *, key: str | None = None, timeout: float = 120.0) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in CONNECTIONS or not parts.hostname:
            raise UsageError(f"llm_url must be an http:// or https:// server address, got "
                             f"{base_url!r} (e.g. http://127.0.0.1:8080/v1)")  # fmt: skip
        self.base_url = base_url.rstrip("/")
        self.key, self.timeout = key, timeout
        self._scheme, self._netloc = parts.scheme, parts.netloc
        self._prefix = parts.path.rstrip("/")

    def get(self, path: str) -> Any:
        return self._send("GET", path, None)

    def post(self, path: str, body: dict[str, Any]) -> Any:
        return self._send("POST", path, json.dumps(body).encode("utf-8"))

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.key:
            headers["Authorization"] = f"Bearer {self.key}"
        return headers

    def _send(self, method: str, path: str, data: bytes | None) -> Any:
        url = f"{self.base_url}/{path.lstrip('/')}"
        target = f"{self._prefix}/{path.lstrip('/')}"
        connection = CONNECTIONS[self._scheme](self._netloc, timeout=self.timeout)
        try:
            connection.request(method, target, body=data, headers=self._headers())
            response = connection.getresponse()
            status, location, raw = response.status, response.getheader("Location"), response.read()
        except TimeoutError:
            raise ServerError(f"no answer from the LLM server at {url} within "
                              f"{self.timeout:g} s (llm_timeout)") from None  # fmt: skip
        except ConnectionError as exc:
            raise ServerError(f"cannot reach the LLM server at {url}: {exc.strerror or exc}; "
                              "is it running, and is llm_url right?") from None  # fmt: skip
        except (OSError, http.client.HTTPException) as exc:
            raise ServerError(f"the connection to the LLM server at {url} failed: {exc}") from None
        finally:
            connection.close()
        return _decode(url, status, location, raw)


def _decode(url: str, status: int, location: str | None, raw: bytes) -> Any:
    """The JSON of a 2xx reply; any other status or a body that is not JSON is a ServerError."""
    if 300 <= status < 400:
        raise ServerError(f"{url} redirected to {location}; redirects are not followed",
                          status=status)  # fmt: skip
    if status >= 400:
        detail = _excerpt(raw)
        raise ServerError(f"the LLM server answered HTTP {status} to {url}: {detail}",
                          status=status, body=detail)  # fmt: skip
    try:
        return json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise ServerError(
            f"the LLM server at {url} sent a reply that is not JSON: {_excerpt(raw)!r}"
        ) from None


def _excerpt(raw: bytes) -> str:
    text = raw.decode("utf-8", errors="replace").strip()
    return text if len(text) <= ERROR_EXCERPT else text[:ERROR_EXCERPT] + "…"
