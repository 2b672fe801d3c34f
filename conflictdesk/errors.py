"""Errors the engine raises; the CLI maps them to exit statuses and one-line messages."""

# How to configure an LLM, for the messages of stages that cannot run without one.
LLM_HINT = (
    "pass --llm PATH.gguf or --llm-url URL (or set CONFLICTDESK_LLM_PATH or CONFLICTDESK_LLM_URL)"
)


class ConflictDeskError(Exception):
    """Base class for every error conflictdesk reports to a user."""


class UsageError(ConflictDeskError):
    """Bad arguments or bad input given by the user (exit status 2)."""


class InputError(ConflictDeskError):
    """One input item (a file, a JSON line) cannot be processed; the batch goes on."""


class ModelMissingError(ConflictDeskError):
    """A model artefact is absent; the message names the command that builds or installs it."""


class ModelIntegrityError(ConflictDeskError):
    """A model file's sha256 differs from its manifest entry, or its format is refused."""


class ModelOutputError(ConflictDeskError):
    """A model answer failed validation even after one retry; never replaced by a guess."""


class CapabilityError(ConflictDeskError):
    """A stage needs a capability (e.g. a GGUF LLM) that is not configured."""


class ServerError(ModelOutputError):
    """An LLM server gave no usable answer (down, timed out, an error status, a malformed
    reply); like any model answer that fails, that input fails and a batch goes on."""

    def __init__(self, message: str, *, status: int | None = None, body: str = "") -> None:
        super().__init__(message)
        self.status, self.body = status, body
