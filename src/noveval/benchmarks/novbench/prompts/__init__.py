"""Prompt templates of NovBench (own wording; structure after Appendices A-E)."""
