"""The language server: a thin adapter from LSP to the analysis core."""
