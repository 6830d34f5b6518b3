"""Engine-neutral arithmetic: weights, activations, overhead, KV bytes of a layer, state."""
