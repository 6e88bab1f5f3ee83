"""Persistence layer: in-memory repositories with a common base."""
