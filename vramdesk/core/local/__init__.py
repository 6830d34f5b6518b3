"""On this machine: local model files (importers), discovery of local models, NVML."""
