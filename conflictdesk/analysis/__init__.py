"""The analysis stages (ConRAG A-stage, ConflictRAG detection/resolution, CONFLICTS typing)."""
