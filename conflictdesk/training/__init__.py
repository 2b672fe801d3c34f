"""Data builders for training the embedded models (NLI cross-encoder, stage-1 pair detector).

Pure Python (no torch at import time): NLI pool loaders (`nli_data`), the in-domain
claim-versus-document pairs from RAMDocs and QACC (`claims`), the rule-based contradiction
generators (`perturb`) and the pair-type labelling rules (`pair_types`)."""
