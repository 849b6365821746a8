"""Prompt templates of the index's LLM reranker (package data, our own wording)."""
