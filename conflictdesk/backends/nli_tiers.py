"""Which NLI tiers label: the shipped MiniLM alone, or the cascade with the MPNet tier
(manifest role `nli-accurate`) when it is installed and the band in force is above 0. The
registry asks here, so `models list`, `method` and the built back-end always agree."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conflictdesk.backends.cascade_nli import RULES, CascadeNLI, cascade_model_id
from conflictdesk.backends.manifest import Manifest, ModelEntry
from conflictdesk.backends.verification import verify_entry
from conflictdesk.config import Config
from conflictdesk.errors import ModelIntegrityError

ROLE = "nli-accurate"  # the manifest role of the cascade's second tier
BUILD_HINT = "train and export it: scripts/train_nli_mpnet.py (docs/model_report.md, 'MPNet tier')"


def accurate_tier(config: Config, manifest: Manifest) -> tuple[ModelEntry | None, float]:
    """The MPNet tier's entry (role `nli-accurate`) and the band in force (the `nli_band`
    setting, else the band stored at export; 0: the tier is off)."""
    entries = manifest.by_role(ROLE)
    entry = entries[-1] if entries else None
    if entry is None:
        return None, 0.0
    stored = float((entry.extra or {}).get("cascade_band", 0.0))
    return entry, stored if config.nli_band is None else float(config.nli_band)


def cascade_rule(config: Config, entry: ModelEntry) -> str:
    """The rule in force: the `nli_rule` setting, else the one stored with the MPNet entry
    (`cascade_rule`), else `replace`."""
    rule = config.nli_rule or str((entry.extra or {}).get("cascade_rule", "replace"))
    if rule not in RULES:
        raise ModelIntegrityError(
            f"{entry.name}: unknown cascade_rule {rule!r} in the manifest (known: "
            f"{', '.join(RULES)}); {BUILD_HINT}"
        )
    return rule


def nli_tier(config: Config, manifest: Manifest, fast_id: str | None) -> tuple[str | None, str]:
    """(the nli model id outputs will carry, the note saying which tiers label)."""
    entry, band = accurate_tier(config, manifest)
    if fast_id is None:
        return None, "nli: no NLI model"
    if entry is None:
        return fast_id, f"nli: no MPNet tier installed, the MiniLM alone labels ({BUILD_HINT})"
    if band <= 0:
        return fast_id, f"nli: MPNet tier {entry.name} is off (nli_band 0), the MiniLM alone labels"
    rule = cascade_rule(config, entry)
    rest = (
        "labels the rest"
        if rule == "replace"
        else "and the MiniLM label the rest together (geometric mean)"
    )
    note = (
        f"nli: cascade, the MiniLM settles pairs whose top probability is >= {band:g}, "
        f"MPNet ({entry.name}) {rest}"
    )
    return cascade_model_id(fast_id, entry.model_id, band, rule), note


def with_accurate_tier(fast: Any, config: Config, manifest: Manifest, cache: Any) -> Any:
    """The NLI back-end as the cascade when the MPNet tier is installed and on."""
    from conflictdesk.backends.onnx_nli import OnnxCrossEncoder

    entry, band = accurate_tier(config, manifest)
    if entry is None or band <= 0:
        return fast
    base = Path(config.models_dir)
    verify_entry(entry, base, cache)
    accurate = OnnxCrossEncoder(entry.resolve(base), model_id=entry.model_id,
                                device=config.device, threads=config.threads)  # fmt: skip
    return CascadeNLI(fast, accurate, band, cascade_rule(config, entry))
