"""How the numbers are computed: the formulas, in one text for the README and the window.

:data:`HOW_COMPUTED` is Markdown. The README's section "How the numbers are computed" holds it
verbatim (tests/test_readme.py checks), and the window's Help -> How the numbers are computed
shows it. Change the formulas here and paste the text into the README.
"""

# ruff: noqa: E501 - Markdown table rows are one line each, as in the README

HOW_COMPUTED = """\
Bytes are exact integers; GiB = 2^30, GB = 10^9 (`--units GB` switches the display; the ~7 %
gap is the gap between nvidia-smi and a spec sheet). Catalog GPUs carry the MiB that nvidia-smi
reports (an "80 GB" H100 is 81,559 MiB).

| term | formula | notes |
| --- | --- | --- |
| weights | `sum over tensor groups of params * bits_per_weight / 8`, `/ (TP * PP)` | group quantization `bits + (scale_bits + zero_bits) / group_size` (int4 g128 = 4.25 bits); GGUF block types at their exact ggml sizes (Q4_0 4.5, Q8_0 8.5, Q4_K 4.5, Q6_K 6.5625 ...); embeddings may stay 16-bit; tied embeddings counted once; every MoE expert is resident; a checkpoint's own byte size is used when its format is kept |
| KV cache | `sum over layers of per_token_per_layer * tokens_cached(layer)` | `2 * kv_heads * head_dim * e` per token per layer; MLA caches `kv_lora_rank + qk_rope_head_dim`; sliding-window layers cache at most the window; `max(1, kv_heads // TP)` heads per GPU; paged blocks round each sequence up; a shared prefix is stored once |
| activations | `tokens_in_flight * (hidden + intermediate) * 2 * live_buffers + logits` | prefill peak, off unless `--prompt-len` is given; `live_buffers` (default 4) is an assumption to calibrate; chunked prefill caps `tokens_in_flight` |
| overhead | multiplier `(w + kv + act) * 1.15 + 1 GiB`, or workspace `w * 0.05` | both forms from the source documents |
"""
