"""Grounded answers: retriever, generators, verifier (see DESIGN.md, Answering)."""
