"""Check families, one module each; `verifier.core` orders them into pipelines."""
