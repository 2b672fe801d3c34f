"""Performance benchmarks: each module times one use case through the application layer and
returns plain JSON-ready dicts; `conflictdesk.benchmarks.suite` runs them all."""
