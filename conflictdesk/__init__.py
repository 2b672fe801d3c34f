"""conflictdesk: find, explain and resolve conflicts between retrieved documents, offline."""

__version__ = "0.1.0"
