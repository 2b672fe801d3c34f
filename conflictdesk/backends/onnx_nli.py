"""NLI cross-encoder on ONNX Runtime: the MPNet tier (dynamic int8), no torch.

Contract (`models/nli_mpnet/`, docs/CONTRACTS.md): `model_int8.onnx` with inputs `input_ids`
and `attention_mask` (int64 [batch, sequence]) and output `logits` (float32 [batch, 3], before
temperature, in the config's label order; mean pooling and the head are inside the graph);
`tokenizer.json`; `nli_mpnet_config.json` (labels, temperature, max_length, stride,
cascade_band). Windowing, the max-evidence rule and the label reordering are the MiniLM
back-end's (`CT2CrossEncoder`); only loading and the forward pass differ."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np

from conflictdesk.backends.ct2_nli import NLI_LABELS, CT2CrossEncoder, _Window
from conflictdesk.backends.nli_tiers import BUILD_HINT
from conflictdesk.backends.onnx_pair import onnx_providers
from conflictdesk.errors import ModelIntegrityError, ModelMissingError

log = logging.getLogger(__name__)

MODEL_FILE = "model_int8.onnx"
CONFIG_FILE = "nli_mpnet_config.json"


class OnnxCrossEncoder(CT2CrossEncoder):
    """Premise/hypothesis pairs → calibrated probabilities from an ONNX int8 encoder.

    Each window runs alone (batch_size 1 by default): dynamic int8 quantisation scales
    activations per tensor, so padding or batch-mates would change a pair's scores and the
    judgment cache would then depend on what a pair was batched with."""

    def __init__(self, model_dir: Path, **kwargs) -> None:
        kwargs.setdefault("batch_size", 1)
        super().__init__(model_dir, **kwargs)
        self._pad_id = 1

    @property
    def cascade_band(self) -> float:
        """The band chosen on development rows at export (cascade_nli.choose_band)."""
        self._ensure_loaded()
        return float(self.config.get("cascade_band", 0.0))

    @property
    def cascade_rule(self) -> str:
        """What an unsettled pair gets in the cascade (cascade_nli.RULES; `replace` for a
        model exported before the rule was stored)."""
        self._ensure_loaded()
        return str(self.config.get("cascade_rule", "replace"))

    @property
    def plain_tokenizer(self):
        """The tokenizer without truncation (for callers that build pairs of a given length)."""
        self._ensure_loaded()
        return self._plain_tokenizer

    def _load(self) -> None:
        import onnxruntime

        for name in (MODEL_FILE, "tokenizer.json", CONFIG_FILE):
            if not (self.model_dir / name).exists():
                raise ModelMissingError(f"{self.model_dir / name} is missing; {BUILD_HINT}")
        self.config = json.loads((self.model_dir / CONFIG_FILE).read_text("utf-8"))
        self._check_config()
        options = onnxruntime.SessionOptions()
        if self.threads:
            options.intra_op_num_threads = self.threads
            options.inter_op_num_threads = 1
        self._session = onnxruntime.InferenceSession(
            str(self.model_dir / MODEL_FILE), options, providers=onnx_providers(self.device)
        )
        self._check_signature()
        self._load_tokenizers()
        self._pad_id = self._plain_tokenizer.token_to_id("<pad>") or 1
        self._encoder = self._session  # marks the back-end as loaded
        log.info("loaded %s with %s", self.model_id, self._session.get_providers()[0])

    def _check_signature(self) -> None:
        inputs = {i.name for i in self._session.get_inputs()}
        outputs = {o.name for o in self._session.get_outputs()}
        if inputs != {"input_ids", "attention_mask"} or "logits" not in outputs:
            raise ModelIntegrityError(
                f"{self.model_id}: expected inputs input_ids, attention_mask and output "
                f"logits; got {sorted(inputs)} → {sorted(outputs)}"
            )

    def _encode(self, batch: list[_Window]) -> np.ndarray:
        """Raw logits [len(batch), 3] (the pooling and head are in the graph)."""
        width = max(len(w.ids) for w in batch)
        ids = np.full((len(batch), width), self._pad_id, dtype=np.int64)
        mask = np.zeros((len(batch), width), dtype=np.int64)
        for row, window in enumerate(batch):
            ids[row, : len(window.ids)] = window.ids
            mask[row, : len(window.ids)] = 1
        feed = {"input_ids": ids, "attention_mask": mask}
        return np.asarray(self._session.run(["logits"], feed)[0], dtype=np.float32)

    def _head(self, logits: np.ndarray) -> np.ndarray:
        logits = logits / float(self.config["temperature"])
        logits = logits - logits.max(axis=1, keepdims=True)
        probs = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
        columns = [list(self.config["labels"]).index(label) for label in NLI_LABELS]
        return probs[:, columns]
