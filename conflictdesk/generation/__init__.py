"""The G-stage: evidence table, stance and cited answer (ConRAG), by CONFLICTS strategy."""
