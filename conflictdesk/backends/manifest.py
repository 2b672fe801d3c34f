"""The model manifest (models/manifest.json): what each shipped or added model is,
where it came from, how it is rebuilt, and the sha256 of every file it consists of."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from conflictdesk.backends.formats import REFUSED_SUFFIXES, refusal
from conflictdesk.errors import ModelIntegrityError, ModelMissingError

__all__ = ["REFUSED_SUFFIXES", "Manifest", "ModelEntry", "entry_for", "models_dir", "sha256_file"]

ROLES = ("llm", "nli", "embedder", "pair", "fusion")


def models_dir() -> Path:
    """The `models_dir` setting (config file < `CONFLICTDESK_MODELS_DIR` or
    `CONFLICTDESK_MODELS` < flags); by default the models shipped with the package."""
    from conflictdesk.config import load_settings

    return load_settings().models_dir


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@dataclass
class ModelEntry:
    """One model: `files` maps each path (relative to the models dir, or absolute for
    user-added models) to its sha256; `path` is what the back-end loads (file or folder)."""

    name: str
    role: str
    path: str
    files: dict[str, str]
    licence: str
    source: str
    rebuild: str
    extra: dict[str, object] = field(default_factory=dict)

    @property
    def version(self) -> str:
        """8 hex digits that change whenever any of the entry's files changes (a digest of
        their sha256s). Back-ends whose outputs are cached carry it in their model id, so a
        rebuilt model never serves judgments made by the weights it replaced."""
        joined = "\n".join(f"{rel}:{sha}" for rel, sha in sorted(self.files.items()))
        return hashlib.sha256(joined.encode("utf-8")).hexdigest()[:8]

    @property
    def model_id(self) -> str:
        """`name@version`: what judgment caches are keyed by."""
        return f"{self.name}@{self.version}"

    def resolve(self, base: Path) -> Path:
        path = Path(self.path)
        return path if path.is_absolute() else base / path

    def verify(self, base: Path) -> None:
        """Raise unless every file exists, holds no code or objects (pickles, object arrays:
        by content) and matches its sha256."""
        for rel, expected in self.files.items():
            path = Path(rel) if Path(rel).is_absolute() else base / rel
            if path.suffix.lower() in REFUSED_SUFFIXES:
                raise ModelIntegrityError(f"{self.name}: refusing {path.name} (pickle-like format)")
            if not path.exists():
                raise ModelMissingError(f"{self.name}: {path} is missing; rebuild: {self.rebuild}")
            if reason := refusal(path):
                raise ModelIntegrityError(f"{self.name}: refusing {path.name} ({reason})")
            actual = sha256_file(path)
            if actual != expected:
                raise ModelIntegrityError(
                    f"{self.name}: sha256 mismatch for {path} "
                    f"(manifest {expected[:12]}…, file {actual[:12]}…); rebuild: {self.rebuild}"
                )


@dataclass
class Manifest:
    entries: list[ModelEntry]
    path: Path

    @classmethod
    def load(cls, path: Path | None = None) -> Manifest:
        path = path or models_dir() / "manifest.json"
        if not path.exists():
            return cls([], path)
        raw = json.loads(path.read_text(encoding="utf-8"))
        return cls([ModelEntry(**item) for item in raw.get("models", [])], path)

    def save(self) -> None:
        body = {"models": [asdict(entry) for entry in self.entries]}
        self.path.write_text(json.dumps(body, indent=2, ensure_ascii=False) + "\n", "utf-8")

    def upsert(self, entry: ModelEntry) -> None:
        """Replace the entry of the same name where it stands (a rebuilt model's diff stays
        one hunk), or append a new one."""
        names = [e.name for e in self.entries]
        if entry.name in names:
            self.entries[names.index(entry.name)] = entry
        else:
            self.entries.append(entry)

    def by_role(self, role: str) -> list[ModelEntry]:
        return [e for e in self.entries if e.role == role]

    def get(self, name: str) -> ModelEntry:
        for entry in self.entries:
            if entry.name == name:
                return entry
        raise ModelMissingError(f"no model named {name!r} in {self.path}")


def entry_for(
    name: str, role: str, path: Path, *, licence: str, source: str, rebuild: str, base: Path
) -> ModelEntry:
    """Build an entry for a file or a folder, hashing every file it contains; a relative
    `path` is taken from the working directory, and stored relative to `base`."""
    path, base = path.resolve(), base.resolve()
    files = sorted(p for p in ([path] if path.is_file() else path.rglob("*")) if p.is_file())
    rel = lambda p: str(p.relative_to(base)) if p.is_relative_to(base) else str(p)
    return ModelEntry(
        name=name,
        role=role,
        path=rel(path),
        files={rel(p): sha256_file(p) for p in files},
        licence=licence,
        source=source,
        rebuild=rebuild,
    )


def write_json_model(
    models_dir: Path,
    artefact: str,
    blob: dict,
    name: str,
    role: str,
    *,
    licence: str,
    source: str,
    rebuild: str,
    extra: dict | None = None,
) -> str:
    """Write a JSON model file at `artefact` under models_dir, upsert its manifest entry
    (with `extra` recorded beside it) and return the model id."""
    path = models_dir / artefact
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(blob, indent=1) + "\n", encoding="utf-8")
    manifest = Manifest.load(models_dir / "manifest.json")
    entry = entry_for(name, role, path, licence=licence, source=source, rebuild=rebuild,
                      base=models_dir)  # fmt: skip
    entry.extra = dict(extra or {})
    manifest.upsert(entry)
    manifest.save()
    return entry.model_id
