"""The Textual terminal app, installed as `conflictdesk.tui`.

It drives the engine only through `conflictdesk.tui.engine.DeskEngine`, a small facade
over the store and the engine; tests inject a fake with the same methods."""
