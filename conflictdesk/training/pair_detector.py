"""Build the stage-1 pair detector end to end: features, training, calibration (temperature
and τ_c on development pairs), int8 export, held-out figures, manifest entry. The entry point
is scripts/train_pair_detector.py; torch is needed here, never by the product."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from conflictdesk.analysis.pair_features import (
    EMBEDDING_LAYOUT,
    NLI_LAYOUT,
    NLI_WORDS,
    STANCE_LAYOUTS,
    routed_inputs,
)
from conflictdesk.backends.cascade_nli import model_family
from conflictdesk.errors import ModelMissingError
from conflictdesk.training import pair_data, pair_eval, pair_model
from conflictdesk.training.features import EmbeddingCache, NLICache
from conflictdesk.training.pairs import TEXT_TEMPLATE, TextPair

MODEL_NAME = "conflictdesk-pair-mlp-int8"
EMBEDDER = "minilm-l6-embedder-int8"
NLI_MODEL = "conflictdesk-nli-minilm-int8"
REBUILD = "nice .venv/bin/python scripts/train_pair_detector.py"
LICENCE = (
    "MIT (conflictdesk); trained on features of ConflictQA-StrategyQA (Apache-2.0), PERSPECTRUM "
    "(CC BY-SA 4.0), QACC (CC BY-SA 3.0) and RAMDocs (MIT)"
)
SOURCE = (
    "trained from scratch by scripts/train_pair_detector.py on {layout} features of "
    "models/embedder (minilm-l6-embedder-int8){nli}"
)


def uses_nli(layout: str) -> bool:
    """True when the layout's features need the NLI model (pair NLI or stances)."""
    return layout == NLI_LAYOUT or layout in STANCE_LAYOUTS


def caches(work: Path, threads: int) -> tuple[EmbeddingCache, NLICache]:
    """Feature caches keyed by the sha256 of the model that fills them (the NLI one: the
    labelling cascade's first tier, the MiniLM)."""
    from conflictdesk.backends.ct2_nli import CT2CrossEncoder
    from conflictdesk.backends.manifest import models_dir, sha256_file
    from conflictdesk.backends.onnx_embedder import OnnxEmbedder

    emb_dir, nli_dir = models_dir() / "embedder", models_dir() / "nli"
    embedder = OnnxEmbedder(emb_dir, threads=threads, device="cpu", batch_size=32)
    nli = CT2CrossEncoder(nli_dir, device="cpu", threads=threads, batch_size=32)
    emb_tag = sha256_file(emb_dir / "model_int8.onnx")[:12]
    nli_tag = sha256_file(nli_dir / "model.bin")[:12]
    return (
        EmbeddingCache(work / f"embeddings-{emb_tag}.npz", embedder.embed),
        NLICache(work / f"nli-{nli_tag}.npz", nli.classify),
    )


def statement_cache(
    work: Path, threads: int, statement_stance: str
) -> tuple[NLICache | None, str | None]:
    """The cache of the stances towards a statement when they come from the labelling
    cascade (`statement_stance` "cascade"), keyed by the cascade's id (both tiers' versions,
    band and rule), and the cascade's family (`model_family`, what the config records);
    (None, None) when the first tier reads them too."""
    if statement_stance == "first-tier":
        return None, None
    from conflictdesk.backends.registry import load_backends
    from conflictdesk.config import load_config

    nli = load_backends(load_config(threads=threads), roles=("nli",)).nli
    if getattr(nli, "accurate", None) is None:
        raise ModelMissingError(
            "statement stances from the cascade need its second tier (models/nli_mpnet, "
            f"CONFLICTDESK_NLI_BAND > 0); the configured NLI is {nli.model_id}"
        )
    tag = hashlib.sha256(nli.model_id.encode("utf-8")).hexdigest()[:12]
    return NLICache(work / f"nli-statements-{tag}.npz", nli.classify), model_family(nli.model_id)


def training_matrix(train: list[TextPair], features) -> tuple[np.ndarray, ...]:
    """Both orders of every training pair, labels and the validation mask."""
    x = features(train, True)
    y_c = np.array([p.conflict for p in train] * 2, dtype=np.int64)
    y_t = np.array([p.kind for p in train] * 2, dtype=np.int64)
    val = np.array([pair_data.validation_group(p.group) for p in train] * 2)
    return x, y_c, y_t, val


def softmax_p(logit_c: np.ndarray, temperature: float) -> np.ndarray:
    z = logit_c / temperature
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return (e[:, 1] / e.sum(axis=1)).astype(np.float64)


def calibrate(
    model, dev: dict[str, list[TextPair]], features, nli, log
) -> tuple[float, float, list, float]:
    """Temperature (NLL on the pooled dev pairs), τ_c from the routing table there, and the
    decision threshold on P(conflict) with the best pooled dev F1."""
    rows = [p for data in dev.values() for p in data]
    logit_c, _ = pair_model.logits(model, features(rows, False))
    gold_c = np.array([p.conflict for p in rows])
    temperature = pair_model.fit_temperature(logit_c, gold_c)
    p = softmax_p(logit_c, temperature)
    stage2 = pair_eval.nli_alone(*pair_eval.nli_both(nli, rows))
    threshold = pair_eval.choose_threshold(p, gold_c == 1)
    table = pair_eval.routing_table(p, stage2, gold_c == 1, threshold)
    tau = pair_eval.choose_tau(table)
    log({"event": "calibrated", "temperature": round(temperature, 4), "tau_c": tau,
         "threshold": threshold})  # fmt: skip
    return temperature, tau, table, threshold


def evaluate(
    onnx_path: Path,
    sets: dict[str, list[TextPair]],
    features,
    nli,
    threshold: float = 0.5,
    tau: float | None = None,
) -> dict:
    """Figures of the exported model on each set, beside the baselines (and of the
    two-stage route at τ_c when given)."""
    from conflictdesk.backends.onnx_pair import OnnxPairClassifier

    detector = OnnxPairClassifier(onnx_path.parent, device="cpu", threads=1)
    out = {}
    for name, data in sets.items():
        scores = detector.classify(features(data, False))
        p = np.array([s.conflict for s in scores])
        types = np.array([s.types for s in scores])
        stage2 = pair_eval.nli_alone(*pair_eval.nli_both(nli, data))
        out[name] = pair_eval.heldout_metrics(p, types, data, stage2, threshold, tau)
    return out


SPEED_PAIRS = 100


def feature_speed(
    sets: dict[str, list[TextPair]],
    nli: NLICache,
    layout: str,
    statements: NLICache | None = None,
) -> dict:
    """Pairs per second of the layout's NLI features, uncached, on the first SPEED_PAIRS
    pairs of each set (the cost `detect` pays; embeddings are shared with retrieval)."""
    if not uses_nli(layout):
        return {}
    out = {}
    for name, data in sets.items():
        rows = data[:SPEED_PAIRS]
        started = time.perf_counter()
        if layout == NLI_LAYOUT:
            first, to_statements = [x for p in rows for x in pair_eval.nli_inputs_of(p)], []
        else:
            requests = pair_eval.stance_requests(rows)
            first, to_statements = routed_inputs(requests, statements is not None)
        nli.classify(first)  # uncached
        if to_statements and statements is not None:
            statements.classify(to_statements)
        seconds = time.perf_counter() - started
        calls = len(first) + len(to_statements)
        out[name] = {"pairs_per_s": round(len(rows) / seconds, 1), "nli_calls": calls}
    return out


def earns_place(heldout: dict) -> bool:
    """Stage 1 stays in the route only if it beats always-conflict and NLI alone everywhere."""
    return all(
        r["f1"] > r["always_conflict_f1"] and r["f1"] > r["nli_alone_f1"] for r in heldout.values()
    )


def write_config(
    out: Path,
    layout: str,
    dim: int,
    temperature: float,
    tau: float,
    threshold: float = 0.5,
    conflict_tail: int = 0,
    statement_nli: str | None = None,
) -> None:
    """`statement_nli`: the family of the cascade that read the stances towards a statement
    (None: the first tier read every stance)."""
    config = {
        "text_template": TEXT_TEMPLATE,
        "embedder": EMBEDDER,
        "nli": NLI_MODEL if uses_nli(layout) else None,
        "layout": layout,
        "nli_words": NLI_WORDS,
        "statement_stance": "cascade" if statement_nli else "first-tier",
        "statement_nli": statement_nli,
        "feature_dim": dim,
        "temperature": round(temperature, 4),
        "tau_c": tau,
        "tau_c_source": "dev pairs (scripts/train_pair_detector.py)",
        "threshold": threshold,
        "threshold_source": "best pooled dev F1 (scripts/train_pair_detector.py)",
        "route": "two-stage",
        "conflict_head_reads": f"last {conflict_tail} columns" if conflict_tail else "all",
        "variant": (f"{layout}.head1-stance" if conflict_tail else layout)
        + (".statements-cascade" if statement_nli else ""),
        "types": ["none", "factual", "temporal", "opinion"],
    }
    (out / "pair_config.json").write_text(json.dumps(config, indent=2) + "\n", "utf-8")


def set_route(out: Path, route: str) -> None:
    path = out / "pair_config.json"
    config = json.loads(path.read_text("utf-8"))
    config["route"] = route
    path.write_text(json.dumps(config, indent=2) + "\n", "utf-8")


def variant(
    layout: str, config: pair_model.TrainConfig, statement_stance: str = "first-tier"
) -> str:
    """The layout's name, marked when head 1 reads only the stance block and when the
    cascade reads the statement stances."""
    name = f"{layout}.head1-stance" if config.conflict_tail else layout
    return name + (".statements-cascade" if statement_stance == "cascade" else "")


def shipped_variant() -> str:
    """The variant name of the model in models/pair (its metrics file's name)."""
    from conflictdesk.backends.manifest import models_dir

    config = json.loads((models_dir() / "pair" / "pair_config.json").read_text("utf-8"))
    return str(config.get("variant", config.get("layout", EMBEDDING_LAYOUT)))


def rebuild_command(
    layout: str, config: pair_model.TrainConfig, statement_stance: str = "first-tier"
) -> str:
    return (
        REBUILD
        + ("" if layout == EMBEDDING_LAYOUT else f" --layout {layout}")
        + (" --conflict-head-stance" if config.conflict_tail else "")
        + ("" if statement_stance == "first-tier" else f" --statement-stance {statement_stance}")
    )


def register(
    out: Path, extra: dict, layout: str, rebuild: str, statement_nli: str | None = None
) -> None:
    from conflictdesk.backends.manifest import Manifest, entry_for, models_dir

    entry = entry_for(
        MODEL_NAME,
        "pair",
        out,
        base=models_dir(),
        licence=LICENCE,
        source=SOURCE.format(
            layout=layout,
            nli=(" and models/nli (conflictdesk-nli-minilm-int8)" if uses_nli(layout) else "")
            + (f"; statement stances read by {statement_nli}" if statement_nli else ""),
        ),
        rebuild=rebuild,
    )
    entry.extra = extra
    manifest = Manifest.load()
    manifest.upsert(entry)
    manifest.save()


def run(
    config: pair_model.TrainConfig,
    layout: str,
    work: Path,
    log: Callable,
    write: bool,
    statement_stance: str = "first-tier",
):
    """Train, calibrate, export (into `work`, and models/pair when `write`), report;
    `statement_stance` "cascade" reads the stances towards a statement with the labelling
    cascade (pair_features.STATEMENT_STANCES)."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    from conflictdesk.backends.manifest import models_dir

    embeddings, nli = caches(work, config.threads)
    statements, statement_nli = (
        statement_cache(work, config.threads, statement_stance)
        if uses_nli(layout)
        else (None, None)
    )

    def features(data: list[TextPair], both: bool) -> np.ndarray:
        return pair_eval.featurise(embeddings, nli, data, layout, both_orders=both,
                                   statements=statements)  # fmt: skip

    train = [p for data in pair_data.training_sets(config.seed).values() for p in data]
    log(
        {
            "event": "pairs",
            "train": len(train),
            "by_type": np.bincount([p.kind for p in train], minlength=4).tolist(),
        }
    )
    model = pair_model.train(config, *training_matrix(train, features), log)
    dev = pair_data.dev_sets(config.seed)
    temperature, tau, table, threshold = calibrate(model, dev, features, nli, log)
    name = variant(layout, config, statement_stance)
    out = models_dir() / "pair" if write else work / f"model-{name}"
    out.mkdir(parents=True, exist_ok=True)
    dim = features(train[:1], False).shape[1]
    fp32 = work / f"pair_fp32-{name}.onnx"
    pair_model.to_onnx(model, fp32, dim, temperature)
    quantize_dynamic(str(fp32), str(out / "pair_int8.onnx"), weight_type=QuantType.QInt8)
    write_config(out, layout, dim, temperature, tau, threshold, config.conflict_tail,
                 statement_nli)  # fmt: skip
    sets = pair_data.heldout_sets(config.seed)
    heldout = evaluate(out / "pair_int8.onnx", sets, features, nli, threshold, tau)
    dev_figures = evaluate(out / "pair_int8.onnx", dev, features, nli, threshold, tau)
    route = "two-stage" if earns_place(heldout) else "stage2-only"
    speed = feature_speed(sets, nli, layout, statements)
    set_route(out, route)
    result = {"layout": layout, "variant": name, "temperature": temperature, "tau_c": tau,
              "route": route, "command": rebuild_command(layout, config, statement_stance),
              "statement_stance": statement_stance,
              "threshold": threshold, "feature_speed": speed,
              "routing_dev": table, "heldout": heldout, "dev": dev_figures,
              "size_kb": round((out / "pair_int8.onnx").stat().st_size / 1024, 1)}  # fmt: skip
    (work / f"metrics-{name}.json").write_text(json.dumps(result, indent=2), "utf-8")
    log(
        {
            "event": "heldout",
            **{k: {m: v for m, v in r.items() if m != "per_type"} for k, r in heldout.items()},
        }
    )
    if write:
        extra = {"tau_c": tau, "route": route, "layout": layout, "threshold": threshold,
                 "size_kb": result["size_kb"], "statement_stance": statement_stance}  # fmt: skip
        register(out, extra, layout, result["command"], statement_nli)
    return result


def shipped_result(work: Path, threads: int = 1, seed: int = 42) -> dict:
    """The figures of the model in models/pair, in `run`'s result shape (for eval_models)."""
    from conflictdesk.backends.manifest import models_dir

    out = models_dir() / "pair"
    config = json.loads((out / "pair_config.json").read_text("utf-8"))
    embeddings, nli = caches(work, threads)
    statements, _ = statement_cache(work, threads, config.get("statement_stance", "first-tier"))

    def features(data: list[TextPair], both: bool) -> np.ndarray:
        return pair_eval.featurise(embeddings, nli, data, config["layout"], both_orders=both,
                                   statements=statements)  # fmt: skip

    threshold = float(config.get("threshold", 0.5))
    model, tau = out / "pair_int8.onnx", float(config["tau_c"])
    heldout = evaluate(model, pair_data.heldout_sets(seed), features, nli, threshold, tau)
    dev = pair_data.dev_sets(seed)
    rows = [p for data in dev.values() for p in data]
    dev_figures = evaluate(model, {"dev": rows}, features, nli, threshold, tau)
    p, stage2 = _shipped_p(out, rows, features), pair_eval.nli_alone(*pair_eval.nli_both(nli, rows))
    gold = np.array([r.conflict == 1 for r in rows])
    table = pair_eval.routing_table(p, stage2, gold, threshold)
    return {
        "layout": config["layout"],
        "temperature": config["temperature"],
        "tau_c": config["tau_c"],
        "route": config.get("route", "two-stage"),
        "threshold": threshold,
        "routing_dev": table,
        "heldout": heldout,
        "dev": dev_figures,
    }


def _shipped_p(out: Path, rows: list[TextPair], features) -> np.ndarray:
    from conflictdesk.backends.onnx_pair import OnnxPairClassifier

    detector = OnnxPairClassifier(out, device="cpu", threads=1)
    return np.array([s.conflict for s in detector.classify(features(rows, False))])
