"""Presets: user preset files, the lock, bundled data, serialization."""
