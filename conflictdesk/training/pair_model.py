"""The stage-1 two-head MLP (ConflictRAG §III-B): training with torch and export to a
hand-written ONNX graph. Training-only: torch is imported inside the functions, never by the
product. Head 1 (conflict) dim→256→128→2, Head 2 (none / factual / temporal / opinion)
dim→256→128→64→4, ReLU, Adam; early stopping on the validation rows' loss."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass(frozen=True)
class TrainConfig:
    lr: float = 1e-3
    batch_size: int = 128
    max_epochs: int = 60
    patience: int = 5
    dropout: float = 0.2
    weight_decay: float = 1e-4
    threads: int = 1
    seed: int = 42
    conflict_tail: int = 0  # > 0: head 1 reads only the last `conflict_tail` feature columns


def make_model(dim: int, dropout: float, conflict_tail: int = 0):
    """The two heads; with `conflict_tail`, head 1 reads only the trailing columns (e.g. the
    stance block) while head 2 reads every feature."""
    from torch import nn

    def head(sizes: list[int]) -> nn.Sequential:
        layers: list[nn.Module] = []
        for k, (a, b) in enumerate(itertools.pairwise(sizes)):
            layers.append(nn.Linear(a, b))
            if k < len(sizes) - 2:
                layers += [nn.ReLU(), nn.Dropout(dropout)]
        return nn.Sequential(*layers)

    class PairMLP(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conflict_tail = conflict_tail
            self.conflict = head([conflict_tail or dim, 256, 128, 2])
            self.types = head([dim, 256, 128, 64, 4])

        def forward(self, x):
            tail = x[:, -self.conflict_tail :] if self.conflict_tail else x
            return self.conflict(tail), self.types(x)

    return PairMLP()


def inverse_frequency(labels: np.ndarray, classes: int) -> np.ndarray:
    """Class weights n / (classes · count), so rare types (temporal) are not ignored."""
    counts = np.bincount(labels, minlength=classes).astype(np.float64)
    return (len(labels) / (classes * np.maximum(counts, 1))).astype(np.float32)


def train(
    config: TrainConfig,
    x: np.ndarray,
    y_c: np.ndarray,
    y_t: np.ndarray,
    val: np.ndarray,
    log: Callable[[dict], None],
):
    """Fit both heads on the rows where `val` is False; keep the state of the best
    validation loss."""
    import torch

    torch.manual_seed(config.seed)
    torch.set_num_threads(config.threads)
    model = make_model(x.shape[1], config.dropout, config.conflict_tail)
    optim = torch.optim.Adam(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    type_weight = torch.from_numpy(inverse_frequency(y_t[~val], 4))
    loss_c, loss_t = torch.nn.CrossEntropyLoss(), torch.nn.CrossEntropyLoss(weight=type_weight)
    xt, yc, yt = torch.from_numpy(x), torch.from_numpy(y_c), torch.from_numpy(y_t)
    train_idx, val_idx = np.where(~val)[0], torch.from_numpy(np.where(val)[0])
    rng = np.random.default_rng(config.seed)
    best, best_state, waited = float("inf"), None, 0
    for epoch in range(config.max_epochs):
        model.train()
        order = rng.permutation(train_idx)
        for start in range(0, len(order), config.batch_size):
            index = torch.from_numpy(order[start : start + config.batch_size])
            logit_c, logit_t = model(xt[index])
            loss = loss_c(logit_c, yc[index]) + loss_t(logit_t, yt[index])
            optim.zero_grad()
            loss.backward()
            optim.step()
        model.eval()
        with torch.no_grad():
            logit_c, logit_t = model(xt[val_idx])
            val_loss = float(loss_c(logit_c, yc[val_idx]) + loss_t(logit_t, yt[val_idx]))
            acc = float((logit_c.argmax(1) == yc[val_idx]).float().mean())
        log({"event": "epoch", "epoch": epoch + 1, "val_loss": round(val_loss, 4), "acc": acc})
        if val_loss < best - 1e-4:
            best, waited = val_loss, 0
            best_state = {k: v.clone() for k, v in model.state_dict().items()}
        else:
            waited += 1
            if waited >= config.patience:
                break
    model.load_state_dict(best_state)
    model.eval()
    return model


def logits(model, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    import torch

    with torch.no_grad():
        c, t = model(torch.from_numpy(x))
    return c.numpy(), t.numpy()


def to_onnx(model, path: Path, dim: int, temperature: float = 1.0) -> None:
    """The MLP as a plain ONNX graph (Gemm/Relu, Softmax inside), written by hand from the
    weights; the conflict head's last layer is divided by the calibrated temperature. A head
    that reads only the trailing columns gets zero weights for the others (same graph)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    nodes, inits = [], []

    def mlp(seq, prefix: str, out: str, scale: float) -> None:
        current, linear = "features", [m for m in seq if hasattr(m, "weight")]
        for k, layer in enumerate(linear):
            last = k == len(linear) - 1
            factor = scale if last else 1.0
            w = layer.weight.detach().numpy().astype(np.float32) * factor
            if k == 0 and w.shape[1] < dim:  # a head reading the trailing columns only
                w = np.concatenate([np.zeros((w.shape[0], dim - w.shape[1]), np.float32), w], 1)
            b = layer.bias.detach().numpy().astype(np.float32) * factor
            inits.append(numpy_helper.from_array(w, f"{prefix}.{k}.weight"))
            inits.append(numpy_helper.from_array(b, f"{prefix}.{k}.bias"))
            gemm = f"{prefix}.{k}.gemm"
            inputs = [current, f"{prefix}.{k}.weight", f"{prefix}.{k}.bias"]
            nodes.append(helper.make_node("Gemm", inputs, [gemm], transB=1))
            if last:
                nodes.append(helper.make_node("Softmax", [gemm], [out], axis=1))
            else:
                nodes.append(helper.make_node("Relu", [gemm], [f"{prefix}.{k}.relu"]))
                current = f"{prefix}.{k}.relu"

    mlp(model.conflict, "conflict", "conflict_probs", 1.0 / temperature)
    mlp(model.types, "types", "type_probs", 1.0)
    graph = helper.make_graph(
        nodes,
        "conflictdesk_pair_detector",
        [helper.make_tensor_value_info("features", TensorProto.FLOAT, ["n", dim])],
        [
            helper.make_tensor_value_info("conflict_probs", TensorProto.FLOAT, ["n", 2]),
            helper.make_tensor_value_info("type_probs", TensorProto.FLOAT, ["n", 4]),
        ],
        inits,
    )
    proto = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="conflictdesk"
    )
    proto.ir_version = 8
    onnx.checker.check_model(proto)
    onnx.save(proto, str(path))


def fit_temperature(logit_c: np.ndarray, y_c: np.ndarray) -> float:
    """Temperature T minimising the NLL of softmax(logits / T) on development rows (a grid
    search; Guo et al. 2017)."""
    grid = np.exp(np.linspace(np.log(0.25), np.log(8.0), 121))
    return float(min(grid, key=lambda t: _nll(logit_c / t, y_c)))


def _nll(z: np.ndarray, y: np.ndarray) -> float:
    z = z - z.max(axis=1, keepdims=True)
    log_p = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return float(-log_p[np.arange(len(y)), y].mean())
