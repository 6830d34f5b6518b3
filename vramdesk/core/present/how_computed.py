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
| weights | `sum over tensor groups of params * bits_per_weight / 8`, `/ (TP * PP)` | group quantization `bits + (scale_bits + zero_bits) / group_size`; `int4` is AWQ/GPTQ's g128 (4.25 bits), `int4-ideal` the source documents' flat 0.5 byte/param, `nf4` bitsandbytes' default 4.5 bits (`nf4-dq` with double quantization, 4.127); embeddings and lm_head stay 16-bit for every quantized format except `int4-ideal` and GGUF; every ggml type at its exact block size (Q4_0 4.5, Q8_0 8.5, Q4_K 4.5, Q6_K 6.5625, IQ2_XXS 2.0625, TQ1_0 1.6875 ...); a llama.cpp file type (Q4_K_M, IQ3_M, Q2_0, NVFP4 ...) is the recipe of tensor types `llama-quantize` picks (output Q6_K, attn_v/ffn_down more bits on some layers, 1-D tensors F32; `MXFP4_MOE`: the routed experts MXFP4, every other tensor Q8_0); `mxfp4` is the MXFP4 checkpoint layout wherever it is named (routed experts MXFP4, the rest 16-bit; refused for a model without experts); vLLM and SGLang load a float32 checkpoint in 16 bits; tied embeddings counted once; every MoE expert is resident; a checkpoint's own byte size is used when its format is kept, less its multi-token-prediction layers (DeepSeek-V3, GLM, Qwen3.5: loaded only for speculative decoding, so never in the weights; their size is in the notes); a multimodal model's vision and audio towers are in the weights where the engine loads them (vLLM `--language-model-only` leaves them out; llama.cpp reads them from the `--mmproj` file, its own part) |
| KV cache | `sum over layers of per_token(layer) * tokens_cached(kind)` | the model is described layer by layer: kind (full, sliding with its window, chunked local attention with its chunk, recurrent, no cache), KV heads, K and V head dims, and the earlier layer whose cache it reuses (Gemma-3n); `2 * kv_heads * head_dim * e` per token per layer (global layers of Gemma-4-class models their own heads and dims); MLA caches `kv_lora_rank + qk_rope_head_dim` (llama.cpp builds before the MLA cache: per head); sliding-window layers cache at most the window, chunked layers (Llama-4) at most the chunk (vLLM: one chunk plus a step's tokens, where its release gives them their own spec; llama.cpp: the iSWA cells); encoders (BERT, XLM-R) cache nothing; `max(1, kv_heads // TP)` heads per GPU; paged blocks round each sequence up; a shared prefix is stored once. "KV cache per token" is printed per kind of layer with the effective bytes at the context when layers differ |
| recurrent state | `sequences * recurrent_layers * (conv * e_conv + ssm * e_ssm) / TP` | Mamba / Mamba-2 / gated-DeltaNet layers (Jamba, Nemotron-H, Falcon-H1, Granite-4.0-H, Bamba, Qwen3-Next) keep a constant state per sequence, never per token: in vLLM the dtypes of `--mamba-cache-dtype` / `--mamba-ssm-cache-dtype` (auto: 16-bit, or the model's hook: Nemotron-H float32 from 0.19), each state padded to the attention page of the raised hybrid block; 16-bit in SGLang, f32 in llama.cpp with one state per slot; `state_bytes` in JSON |
| activations | `tokens_in_flight * (hidden + intermediate) * 2 * live_buffers + logits` | prefill peak, off unless `--prompt-len` is given; `live_buffers` (default 4) is an assumption to calibrate; chunked prefill caps `tokens_in_flight` |
| overhead | multiplier `(w + kv + act) * 1.15 + 1 GiB`, or workspace `w * 0.05` | both forms from the source documents |
"""
