"""`conflictdesk ask`: a question answered with its conflicts found, typed, resolved and cited."""

from __future__ import annotations

import argparse
import dataclasses
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from conflictdesk.cli import common
from conflictdesk.errors import ConflictDeskError, InputError, UsageError
from conflictdesk.terminal import safe
from conflictdesk.types import ConflictType, Document, Passage

EXAMPLES = """examples:
  conflictdesk ask "What is the recommended daily dose of lumivex?" --collection examples
  conflictdesk ask "When did the harbour ferry start?" -c examples --json
  conflictdesk ask questions.jsonl --collection examples > answers.jsonl
  echo '{"id": "q1", "query": "Who won?", "documents": ["A won.", "B won."]}' | conflictdesk ask -
  conflictdesk ask "Is fasting good for diabetics?" -c examples --llm model.gguf --strategy pipeline

Batch input (`-` or a .jsonl file): one JSON object per line, {"id", "query", "documents"?,
"conflict_type"?}. With "documents" (strings or {"text", "title", "date", "source", "url"})
the passages are those documents and their ids are indices into the list; without, the
passages are retrieved from --collection and their ids are stored passage ids.
"conflict_type" is the gold type, used by --strategy oracle. Output: one JSON object per line
{"id", "stance", "conflict_type", "kappa", "evidence", "clusters", "pairs", "answer",
"conflict", "method"}; a bad line gives {"id", "error"} and a message on stderr, the batch
goes on and the exit status is 1. Every answer is stored as a run (kind "ask").

Strategies: extractive (no LLM: the most query-relevant sentence of each evidence cluster,
ordered by the conflict type's resolution rule); with --llm: vanilla, pipeline (default),
taxonomy-aware, oracle (needs the gold type: --gold-type or "conflict_type")."""

BackendFactory = Callable[[argparse.Namespace], Any]


def load_backends_from_args(args: argparse.Namespace) -> Any:
    """The real back-ends from the model flags; tests replace `make_backends`."""
    from conflictdesk.backends.registry import load_backends

    return load_backends(common.config_from_args(args))


make_backends: BackendFactory = load_backends_from_args


class MemoEmbedder:
    """The embedder, remembering vectors by text: passages retrieved from a collection are
    answered with their stored vectors (`prime`) and the query with the vector search made,
    so the analysis never re-encodes them. Rows are the same model's output; only the batch
    companions of their int8 activation scale differ (about 0.01 cosine)."""

    def __init__(self, inner: Any, limit: int = 4096) -> None:
        self.inner, self.limit = inner, limit
        self.model_id, self.dim = inner.model_id, inner.dim
        self.memo: OrderedDict[str, np.ndarray] = OrderedDict()
        self._rows: tuple[int, dict[int, int]] | None = None

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        found = {t: self.memo[t] for t in texts if t in self.memo}
        missing = list(dict.fromkeys(t for t in texts if t not in found))
        if missing:
            vectors = self.inner.embed(missing)
            found.update(zip(missing, vectors))
            self.remember(missing, vectors)
        return np.stack([found[t] for t in texts]).astype(np.float32, copy=False)

    def remember(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        for text, vector in zip(texts, vectors):
            self.memo[text] = vector
            self.memo.move_to_end(text)
        while len(self.memo) > self.limit:
            self.memo.popitem(last=False)

    def prime(self, store: Any, collection: str, passages: Sequence[Passage]) -> int:
        """Remember the stored vectors of `passages`; returns how many were found."""
        ids, matrix = store.dense_matrix(store.collection_id(collection), self.model_id)
        if self._rows is None or self._rows[0] != id(matrix):
            self._rows = (id(matrix), {int(pid): row for row, pid in enumerate(ids)})
        rows = self._rows[1]
        found = [p for p in passages if p.id in rows]
        self.remember([p.text for p in found], matrix[[rows[p.id] for p in found]])
        return len(found)


def with_memo(backends: Any) -> Any:
    """The back-ends with their embedder wrapped in a MemoEmbedder (once)."""
    if isinstance(backends.embedder, MemoEmbedder):
        return backends
    return dataclasses.replace(backends, embedder=MemoEmbedder(backends.embedder))


def retrieve(store: Any, query: str, collection: str, k: int, backends: Any) -> list[Passage]:
    """Hybrid search, then the retrieved passages' stored vectors into the memo."""
    passages = store.search(query, collection, k, backends.embedder)
    if isinstance(backends.embedder, MemoEmbedder) and passages:
        backends.embedder.prime(store, collection, passages)
    return passages


def open_store(args: argparse.Namespace) -> Any:
    from conflictdesk.store import Store

    return Store.open(common.db_path(args))


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "ask",
        help="answer a question with conflicts explained and every sentence cited",
        description=(
            "Retrieve, tag, cluster, score, detect and type conflicts, resolve them by type and "
            "answer with sentence-level citations (ConRAG, ConflictRAG, CONFLICTS)."
        ),
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("question", help='the question, or "-" / FILE.jsonl for a batch')
    parser.add_argument("--collection", "-c", help="collection to retrieve from")
    parser.add_argument("-k", type=int, default=20, help="passages to retrieve (default 20)")
    parser.add_argument(
        "--strategy",
        choices=("extractive", "vanilla", "pipeline", "taxonomy-aware", "oracle"),
        help="answer strategy (default: pipeline with --llm, else extractive)",
    )
    parser.add_argument(
        "--gold-type",
        choices=[t.value for t in ConflictType],
        help="the gold conflict type, for --strategy oracle",
    )
    parser.add_argument(
        "--no-parametric",
        action="store_true",
        help="skip the closed-book vs open-book comparison (LLM only)",
    )
    common.add_model_arguments(parser)
    common.add_db_argument(parser)
    common.add_json_argument(parser)
    parser.set_defaults(func=run)


@dataclass(frozen=True)
class Request:
    """One question to answer: inline passages, or a collection to retrieve from."""

    id: Any
    query: str
    documents: tuple[Passage, ...] | None
    gold_type: ConflictType | None = None
    echo_id: bool = True  # a batch echoes its line id, null too; one question gets the run id


def run(args: argparse.Namespace) -> int:
    if args.k < 1:
        raise UsageError("-k must be at least 1")
    if is_batch(args.question):
        return run_batch(args)
    if not args.question.strip():
        raise UsageError("the question is empty")
    if not args.collection:
        raise UsageError("--collection is required for a single question (or pass a .jsonl batch)")
    gold = ConflictType(args.gold_type) if args.gold_type else None
    backends = with_memo(make_backends(args))
    with open_store(args) as store:
        record, text = answer_request(
            Request(None, args.question, None, gold, echo_id=False), args, backends, store
        )
    if args.json:
        common.write_json(record)
    else:
        print(safe(text))
    return common.EXIT_OK


def is_batch(question: str) -> bool:
    """`-` or an existing .jsonl file is a batch; a missing .jsonl path is a usage error."""
    if question == "-":
        return True
    if question.endswith(".jsonl"):
        if not Path(question).is_file():
            raise UsageError(f"no such file: {question}")
        return True
    return False


def run_batch(args: argparse.Namespace) -> int:
    backends = with_memo(make_backends(args))
    failures = 0
    with open_store(args) as store:
        for line in common.read_jsonl(args.question):
            try:
                request = parse_request(line, args)
                record, _ = answer_request(request, args, backends, store)
            except (InputError, UsageError, ConflictDeskError) as exc:
                failures += 1
                common.warn(f"line {line.lineno} (id {line.id!r}): {exc}")
                common.write_json({"id": line.id, "error": str(exc)})
                continue
            common.write_json(record)
    return common.EXIT_PARTIAL if failures else common.EXIT_OK


def parse_request(line: common.JsonLine, args: argparse.Namespace) -> Request:
    """Validate one batch line into a Request; InputError says what is wrong."""
    if line.error or line.value is None:
        raise InputError(line.error or "unreadable line")
    value = line.value
    query = value.get("query")
    if not isinstance(query, str) or not query.strip():
        raise InputError('"query" must be a non-empty string')
    gold = _gold_type(value.get("conflict_type"), args)
    documents = value.get("documents")
    if documents is None:
        if not args.collection:
            raise InputError('no "documents" and no --collection to retrieve from')
        return Request(line.id, query, None, gold)
    if not isinstance(documents, list) or not documents:
        raise InputError('"documents" must be a non-empty list')
    return Request(line.id, query, inline_passages(documents), gold)


def _gold_type(value: Any, args: argparse.Namespace) -> ConflictType | None:
    if value is None:
        return ConflictType(args.gold_type) if args.gold_type else None
    try:
        return ConflictType(value)
    except ValueError:
        known = ", ".join(t.value for t in ConflictType)
        raise InputError(f'"conflict_type" {value!r} is not one of: {known}') from None


def inline_passages(documents: Sequence[Any]) -> tuple[Passage, ...]:
    """Inline documents as passages whose ids are their indices in the list."""
    passages = []
    for index, raw in enumerate(documents):
        try:
            doc = Document.from_json(raw)
        except InputError as exc:
            raise InputError(f"document {index}: {exc}") from None
        passages.append(
            Passage(
                id=index,
                text=doc.text,
                document_id=index,
                title=doc.title,
                date=doc.date,
                source=doc.source,
                url=doc.url,
            )
        )
    return tuple(passages)


def answer_request(
    request: Request, args: argparse.Namespace, backends: Any, store: Any
) -> tuple[dict[str, Any], str]:
    """Retrieve (or take the inline passages), analyse, answer, store the run; returns the
    batch record and the readable report."""
    from conflictdesk.generation.answer import ask
    from conflictdesk.generation.report import render_report

    passages, source = _passages(request, args, backends, store)
    analysis, result, record = ask(
        request.query,
        passages,
        backends,
        cache=store.cache,
        strategy=args.strategy,
        gold_type=request.gold_type,
        record_id=request.id,
        check_parametric=not getattr(args, "no_parametric", False),
    )
    run_input = {
        "id": request.id,
        "query": request.query,
        **source,
        "strategy": args.strategy,
        "gold_type": request.gold_type.value if request.gold_type else None,
    }
    run_id = store.save_run(
        "ask",
        run_input,
        {"record": record, "analysis": analysis.to_json(), "answer": result.to_dict()},
        record["method"],
    )
    if not request.echo_id:
        record = {**record, "id": run_id}
    return record, render_report(analysis, result) + f"\n(saved as run {run_id})"


def _passages(
    request: Request, args: argparse.Namespace, backends: Any, store: Any
) -> tuple[Sequence[Passage], dict[str, Any]]:
    if request.documents is not None:
        return request.documents, {"documents": [_doc_json(p) for p in request.documents]}
    passages = retrieve(store, request.query, args.collection, args.k, backends)
    return passages, {"collection": args.collection, "k": args.k}


def _doc_json(p: Passage) -> dict[str, Any]:
    return {
        k: v
        for k, v in (
            ("text", p.text),
            ("title", p.title),
            ("date", p.date),
            ("source", p.source),
            ("url", p.url),
        )
        if v is not None
    }
