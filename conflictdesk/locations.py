"""Where the shipped assets are: the models and the example collection, found through the
import system, never by counting parent folders of a source file.

`setup.py` installs the repository's `models/` and `examples/` folders as the data packages
`conflictdesk.models` and `conflictdesk.examples`, so an installed wheel carries them. An
editable install made before that mapping existed does not know those packages; it is found
through the source tree its installer recorded (PEP 610 `direct_url.json`)."""

from __future__ import annotations

import importlib.util
import json
from importlib import metadata
from pathlib import Path
from urllib.parse import unquote, urlparse

from conflictdesk.errors import ModelMissingError

DISTRIBUTION = "conflictdesk"
# data package -> folder of the source tree it is mapped from (setup.py DATA_ROOTS)
ASSET_FOLDERS = {"conflictdesk.models": "models", "conflictdesk.examples": "examples"}


def shipped_folder(package: str) -> Path:
    """The folder of a shipped data package (`conflictdesk.models`, `conflictdesk.examples`)."""
    spec = importlib.util.find_spec(package)
    if spec is not None and spec.submodule_search_locations:
        for location in spec.submodule_search_locations:
            if Path(location).is_dir():
                return Path(location)
    source = editable_source()
    if source is not None and (source / ASSET_FOLDERS[package]).is_dir():
        return source / ASSET_FOLDERS[package]
    raise ModelMissingError(
        f"{package} is not installed with the package; reinstall it "
        "(`python -m pip install .`) or name the folder in the configuration"
    )


def editable_source() -> Path | None:
    """The source tree of an editable install (PEP 610), or None for a regular install."""
    for dist in metadata.distributions(name=DISTRIBUTION):
        raw = dist.read_text("direct_url.json")
        if not raw:
            continue  # e.g. a build's egg-info in the working directory
        info = json.loads(raw)
        url = urlparse(info.get("url", ""))
        if info.get("dir_info", {}).get("editable") and url.scheme == "file":
            return Path(unquote(url.path))
        return None
    return None


def shipped_models() -> Path:
    return shipped_folder("conflictdesk.models")


def shipped_examples() -> Path:
    return shipped_folder("conflictdesk.examples")
