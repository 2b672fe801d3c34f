"""The application layer: one `Desk` owning every use case, built from one `Settings`.

The CLI, the TUI and the benchmarks import this package (and the types it hands out) and
nothing below it."""

from conflictdesk.app.desk import (
    ALL_ROLES,
    DEFAULT_MAX_BYTES,
    AskEvent,
    BackendLoader,
    Cancelled,
    Desk,
    count_files,
    verified_backends,
)
from conflictdesk.app.models_report import discover_models, models_report, probe_llm_server
from conflictdesk.app.scale import RayBatch, ingest_on_ray, ray_batch
from conflictdesk.app.scoring import (
    DEFAULT_LABELLER,
    LABELLERS,
    SALIENT_K,
    TWO_STAGE_THRESHOLD,
    VARIANTS,
    ScoringOptions,
    StoredResult,
    answer_claim_of,
)
from conflictdesk.app.views import (
    AskView,
    IngestSummary,
    OpenedRun,
    Regeneration,
    ScoredClaim,
    ScoreView,
)
from conflictdesk.app.wire import (
    AskOutcome,
    AskRequest,
    CollectionInfo,
    DocumentInfo,
    ModelRow,
    ModelsReport,
    RunRecord,
    RunSummary,
    StageRow,
)
from conflictdesk.backends.manifest import ROLES
from conflictdesk.config import Settings, load_settings
from conflictdesk.cpu import cpu_features
from conflictdesk.locations import shipped_examples, shipped_models
from conflictdesk.retrieval.hybrid import Retrieval
from conflictdesk.scale import RayOptions, ray_available

__all__ = [
    "ALL_ROLES",
    "DEFAULT_LABELLER",
    "DEFAULT_MAX_BYTES",
    "LABELLERS",
    "ROLES",
    "SALIENT_K",
    "TWO_STAGE_THRESHOLD",
    "VARIANTS",
    "AskEvent",
    "AskOutcome",
    "AskRequest",
    "AskView",
    "BackendLoader",
    "Cancelled",
    "CollectionInfo",
    "Desk",
    "DocumentInfo",
    "IngestSummary",
    "ModelRow",
    "ModelsReport",
    "OpenedRun",
    "RayBatch",
    "RayOptions",
    "Regeneration",
    "Retrieval",
    "RunRecord",
    "RunSummary",
    "ScoreView",
    "ScoredClaim",
    "ScoringOptions",
    "Settings",
    "StageRow",
    "StoredResult",
    "answer_claim_of",
    "count_files",
    "cpu_features",
    "discover_models",
    "ingest_on_ray",
    "load_settings",
    "models_report",
    "probe_llm_server",
    "ray_available",
    "ray_batch",
    "shipped_examples",
    "shipped_models",
    "verified_backends",
]
