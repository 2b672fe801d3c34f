"""Evaluation code shared by the scripts: cases, baselines, metrics."""
