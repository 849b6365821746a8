"""Pure metric functions: numbers in, numbers out. No models, no files."""
