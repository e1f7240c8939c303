"""Helpers shared by several test areas (fixture loaders)."""
