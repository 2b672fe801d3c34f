"""Answer metrics: CARS (ConflictRAG) and NLI-judged citation quality and grounding."""
