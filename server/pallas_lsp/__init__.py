"""pallas-lsp: tells Pallas kernel authors, while they type, that a kernel will fail
in the context it is launched in, and how to fix it."""

__version__ = "0.1.0"
