"""The llama.cpp profile: the parts of :mod:`vramdesk.core.engines.llamacpp` put together."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

from vramdesk.core.engines.base import check_kv_dtype, measured_part, with_parts
from vramdesk.core.engines.formula import FormulaProfile
from vramdesk.core.engines.llamacpp.build import (
    build_number,
    check_build,
    mla_cache_for,
)
from vramdesk.core.engines.llamacpp.compute import (
    OFFLOAD_MIN_BATCH,
    compute_buffer_bytes,
    expert_copy_bytes,
    flash_attention,
    output_copy_bytes,
)
from vramdesk.core.engines.llamacpp.kv_cache import (
    CELL_PAD,
    LLAMACPP_KV_DTYPES,
    cache_types,
    is_quantized,
    kv_bytes_per_cell,
    kv_split,
    ollama_drops_quantized_cache,
    slots,
)
from vramdesk.core.engines.llamacpp.offload import weight_split
from vramdesk.core.errors import InputError
from vramdesk.core.model.formats import KVDtype, WeightSpec
from vramdesk.core.model.runtime import Engine, Runtime
from vramdesk.core.model.spec import CHUNKED, ModelSpec
from vramdesk.core.model.workload import Workload
from vramdesk.core.terms.breakdown import Breakdown, Part
from vramdesk.core.terms.state import state_part

#: Published image compute buffers of ``clip.cpp`` (``alloc_compute_meta``, the warmup image):
#: the projector part names them rather than model them (see :func:`_projector`).
IMAGE_BUFFER_EXAMPLES = (
    "Qwen3-VL 1024-wide encoder, 1472x1472 warmup image: 223.30 MiB; 1152-wide: 372.08 MiB "
    "(ggml-org/llama.cpp issue #18181, PR #22673 logs)"
)


def _projector(weight_bytes: int) -> Part:
    """The vision projector's weights on the GPU (``--mmproj``; ``tools/mtmd/clip.cpp``).

    ``clip_model_loader`` loads every tensor of the projector file onto the GPU (unless
    ``--no-mmproj-offload``): its bytes are the file's tensor table. Not counted: the image
    compute buffer that ``alloc_compute_meta`` reserves for the warmup image, whose graph
    depends on the projector type, the warmup size and flash attention (see
    :data:`IMAGE_BUFFER_EXAMPLES`); calibrate it from the log's ``compute buffer size``.
    """
    return Part(
        "projector",
        "Vision projector",
        weight_bytes,
        "sum of the projector file's tensor bytes",
        f"{weight_bytes:,}",
        (
            "the image compute buffer (clip.cpp alloc_compute_meta) is not counted: "
            + IMAGE_BUFFER_EXAMPLES,
        ),
    )


def _experts_flag(runtime: Runtime) -> str:
    """The llama.cpp flag that keeps the experts on the host, as typed."""
    return "--cpu-moe" if runtime.cpu_moe else f"--n-cpu-moe {runtime.n_cpu_moe}"


#: Bytes of one f32 recurrent-state element (``type_r``/``type_s``).
STATE_F32 = Fraction(4)


#: llama.cpp runs DeepSeek sparse attention from build b9411 (``LLM_ARCH_DEEPSEEK32``, its own
#: indexer cache in ``src/llama-kv-cache-dsa.h``), whose layout was not read: said, not sized.
DSA_NOT_COUNTED = (
    "sparse attention: llama.cpp's indexer key cache (llama-kv-cache-dsa) is not counted; "
    "the KV figure is the MLA cache alone"
)


class LlamaCppProfile(FormulaProfile):
    """llama.cpp (and forks): see the module docstring for the engine sources followed."""

    engine = Engine.LLAMA_CPP

    #: llama.cpp splits layers (``--split-mode layer``) rather than sharding heads.
    shards_heads = False
    compact_kv_dtype = KVDtype.Q8_0
    #: Cache types this engine stores (Ollama narrows them).
    kv_dtypes: tuple[KVDtype, ...] = LLAMACPP_KV_DTYPES

    def check_engine_version(self, version: str | None) -> None:
        """Refuse a version without a build number (:func:`check_build`)."""
        check_build(version)

    def validate(
        self, model: ModelSpec, weights: WeightSpec, workload: Workload, runtime: Runtime
    ) -> None:
        """Check the version and refuse a multi-GPU split this profile does not model.

        Raises
        ------
        InputError
            ``tensor_parallel_size`` > 1: llama.cpp has no tensor parallelism in vLLM's sense
            (``--split-mode layer`` puts whole layers on each GPU, ``src/llama-model.cpp``);
            ``pipeline_parallel_size`` > 1: that layer split is not modelled (the weights and
            KV of every layer would be counted on each GPU).
        kv_dtype, cache_type_k, cache_type_v
            A type outside :attr:`kv_dtypes` (fp8, int8).
        flash_attn
            llama.cpp with a quantized V cache and flash attention off (explicitly, or the
            default of builds before :data:`FA_AUTO_SINCE_BUILD`): the engine refuses to start
            ("quantized V cache requires flash_attn", ``src/llama-context.cpp``). A quantized
            K cache alone is allowed. Ollama does not refuse: it falls back to f16.
        """
        super().validate(model, weights, workload, runtime)
        name = "Ollama" if self.engine is Engine.OLLAMA else "llama.cpp"
        check_kv_dtype(name, workload.kv_dtype, self.kv_dtypes)
        for field in ("cache_type_k", "cache_type_v"):
            if getattr(runtime, field) is not None:
                check_kv_dtype(name, getattr(runtime, field), self.kv_dtypes, field)
        _, type_v = cache_types(workload, runtime)
        if self.engine is Engine.LLAMA_CPP and is_quantized(type_v):
            if not flash_attention(runtime, workload):
                how = (
                    "--flash-attn off"
                    if runtime.flash_attn is False
                    else f"build {build_number(runtime.engine_version)}'s default (off)"
                )
                raise InputError(
                    "flash_attn",
                    f"llama.cpp refuses a quantized V cache ({type_v.label}) without flash "
                    f"attention ({how}; src/llama-context.cpp): use --flash-attn on or an f16 "
                    "V cache",
                    "unsupported",
                )
        if self.engine is Engine.OLLAMA and (runtime.cpu_moe or runtime.n_cpu_moe):
            raise InputError(
                "n_cpu_moe",
                "Ollama has no --n-cpu-moe / -ot (it places whole layers with num_gpu); "
                "use --engine llama.cpp",
                "unsupported",
            )
        if runtime.tensor_parallel_size > 1:
            raise InputError(
                "tensor_parallel_size",
                "llama.cpp splits layers across GPUs rather than sharding heads; "
                "estimate one GPU holding all layers (--tp 1)",
                "unsupported",
            )
        if runtime.pipeline_parallel_size > 1:
            raise InputError(
                "pipeline_parallel_size",
                "llama.cpp's layer split across GPUs is not modelled yet; estimate one GPU "
                "holding all layers (--pp 1)",
                "unsupported",
            )

    def estimate(
        self, model: ModelSpec, weights: WeightSpec, workload: Workload, runtime: Runtime
    ) -> Breakdown:
        """Device weights, device KV cache, compute buffer; no fixed overhead is printed.

        llama.cpp does not page its cache (cells, padded to 256): ``block_size`` is not one of
        its options (:data:`vramdesk.core.model.runtime.ENGINE_OPTION_GROUPS`), so a set one is
        refused by :meth:`Runtime.validate`.
        """
        if model.is_mla:
            runtime = runtime.replace(mla_cache=mla_cache_for(runtime))
        warnings = []
        if ollama_drops_quantized_cache(workload, runtime):
            warnings.append(
                "Ollama stores a quantized cache only with flash attention on: with it off it "
                "falls back to f16 (llm/server.go), as counted here"
            )
            workload = workload.replace(kv_dtype=KVDtype.FP16)
        if model.index_head_dim:
            warnings.append(DSA_NOT_COUNTED)
        base = super().estimate(model, weights, workload, runtime.replace(block_size=None))
        split = kv_split(model, workload, runtime)
        w = weight_split(model, weights, runtime)
        split["weights_bytes_host"] = w["host"]
        split["experts_bytes_host"] = w["experts_host"]
        split["host_bytes"] = w["host"] + split["kv_cache_bytes_host"]
        state = state_part(
            model,
            max(1, slots(workload, runtime)),
            runtime,
            STATE_F32,
            STATE_F32,
            "llama.cpp keeps f32 r/s states, one per sequence slot (-np)",
        )
        if state is not None:
            base = dataclasses.replace(base, state=state)
        if runtime.mmproj_bytes:
            base = dataclasses.replace(base, projector=_projector(runtime.mmproj_bytes))
        return with_parts(
            base,
            warnings=tuple(warnings),
            weights=self._weights(model, weights, runtime),
            kv_cache=self._kv(split, chunked=CHUNKED in model.resolved_layer_types()),
            activations=self._compute(model, weights, workload, runtime),
            overhead=Part(
                "overhead",
                "Overhead",
                0,
                "0 (not in llama.cpp's buffers)",
                "0",
                ("the CUDA context (about 0.3-0.5 GiB) is outside llama.cpp's buffers",),
            ),
            extras=split,
        )

    def usable_bytes(self, breakdown: Breakdown, capacity_bytes: int, runtime: Runtime) -> int:
        """Return ``capacity - reserved - weights``: llama.cpp has no utilization fraction.

        Its buffers are sized exactly and allocated up front; whatever else the GPU holds
        is the user's concern, so ``gpu_memory_utilization`` does not apply.
        """
        return capacity_bytes - self.reserved_bytes(breakdown, runtime) - breakdown.weights.bytes

    def reserved_bytes(self, breakdown: Breakdown, runtime: Runtime) -> int:
        """Return the overhead part (0 for llama.cpp; Ollama's minimum memory) + a projector."""
        projector = breakdown.projector.bytes if breakdown.projector is not None else 0
        return breakdown.overhead.bytes + projector

    def kv_capacity(
        self,
        breakdown: Breakdown,
        model: ModelSpec,
        workload: Workload,
        runtime: Runtime,
        kv_budget_bytes: int,
    ) -> tuple[int, int | None, Fraction]:
        """Cells that fit the budget, in whole 256-cell pads (no blocks), and cells / context.

        A cell costs K + V of one token on every device layer (sliding layers counted at full
        size, as for the other engines' "tokens").
        """
        per_cell = kv_bytes_per_cell(model, workload, runtime)
        fit = max(0, kv_budget_bytes) // per_cell // CELL_PAD * CELL_PAD if per_cell else 0
        return fit, None, Fraction(fit, workload.context_tokens)

    def at_point(
        self, workload: Workload, runtime: Runtime, batch: int, context: int
    ) -> tuple[Workload, Runtime]:
        """``batch`` sequences are ``batch`` slots: a set ``n_parallel`` moves with it."""
        wl = workload.replace(batch=batch, context_tokens=context)
        return wl, runtime if runtime.n_parallel is None else runtime.replace(n_parallel=batch)

    @staticmethod
    def _weights(model: ModelSpec, spec: WeightSpec, runtime: Runtime) -> Part:
        if runtime.loaded_weights_bytes is not None:
            return measured_part(
                "weights", "Weights", runtime.loaded_weights_bytes, "model buffer size"
            )
        w = weight_split(model, spec, runtime)
        return Part(
            "weights",
            "Weights (device)",
            w["device"],
            "repeating_layers * offloaded / num_hidden_layers + output_matrix"
            + (" - experts_on_host" if w["experts_host"] else ""),
            f"{w['layers']:,} * {w['on']} / {model.num_hidden_layers} + {w['output']:,}"
            + (f" - {w['experts_host']:,}" if w["experts_host"] else ""),
            (f"the input embedding ({w['embedding']:,} bytes) stays in host memory",)
            + (
                (
                    f"routed experts kept in host memory ({_experts_flag(runtime)}): "
                    f"{w['experts_host']:,} bytes",
                )
                if w["experts_host"]
                else ()
            )
            + (
                (f"{_experts_flag(runtime)} has no effect: the model has no routed experts",)
                if (runtime.cpu_moe or runtime.n_cpu_moe) and not model.is_moe
                else ()
            )
            + (
                (
                    f"the multimodal encoders ({model.encoder_params:,} parameters) are not in "
                    "the model's GGUF: the projector file (--mmproj) holds them",
                )
                if model.encoder_params
                else ()
            ),
        )

    @staticmethod
    def _kv(split: dict[str, int], chunked: bool = False) -> Part:
        k, v = split["kv_cache_bytes_k"], split["kv_cache_bytes_v"]
        notes = [f"{split['kv_cache_cells']:,} cells (padded to {CELL_PAD})"]
        if chunked and split["kv_cache_cells_swa"]:
            notes.append(
                f"chunked local-attention layers: {split['kv_cache_cells_swa']:,} cells of the "
                "iSWA cache (min(cells, chunk * (unified ? sequences : 1) + n_ubatch), padded to "
                "256; "
                "llama-kv-cache-iswa.cpp)"
            )
        return Part(
            "kv_cache",
            "KV cache (device)",
            k + v,
            "sum over device layers of cells * (row_k + row_v)",
            f"{k:,} (K) + {v:,} (V)",
            tuple(notes),
        )

    @staticmethod
    def _compute(
        model: ModelSpec, weights: WeightSpec, workload: Workload, runtime: Runtime
    ) -> Part:
        if runtime.compute_buffer_bytes is not None:
            return measured_part(
                "activations", "Compute buffer", runtime.compute_buffer_bytes, "compute buffer size"
            )
        graph = compute_buffer_bytes(model, workload, runtime)
        copy = output_copy_bytes(model, weights, runtime)
        experts = expert_copy_bytes(model, weights, runtime)
        fa = flash_attention(runtime, workload)
        notes = [
            "flash attention on: no f32 KQ scores in the compute buffer"
            if fa
            else "flash attention off: the f32 KQ scores are in the compute buffer",
            "modelled within about 15 %: calibrate from the log's compute buffer line",
        ]
        if copy:
            notes.insert(
                0,
                "the output layer stays in host memory (n_gpu_layers <= num_hidden_layers): its "
                f"matrix ({copy:,} bytes) is copied into the compute buffer for batches of "
                f"{OFFLOAD_MIN_BATCH}+ tokens (ggml-backend.cpp scheduler)",
            )
        if experts:
            notes.insert(
                0,
                "routed experts in host memory: one layer's experts "
                f"({experts:,} bytes) are copied into the compute buffer for batches of "
                f"{OFFLOAD_MIN_BATCH}+ tokens (ggml-cuda.cu offload_op, ggml-backend.cpp)",
            )
        return Part(
            "activations",
            "Compute buffer",
            graph + copy + experts,
            "max(n_head * cells * n_ubatch * 4 [no FA], n_ubatch * vocab * 4)"
            " + n_ubatch * (hidden + ffn) * 4"
            + (" + output_matrix [output on host]" if copy else "")
            + (" + one_layer_experts [experts on host]" if experts else ""),
            f"{graph:,}"
            + (f" + {copy:,}" if copy else "")
            + (f" + {experts:,}" if experts else ""),
            tuple(notes),
        )

    def breakdown_figures(
        self, b: Breakdown, model: ModelSpec, workload: Workload, runtime: Runtime
    ) -> dict[str, int | Fraction]:
        """Cells, K/V and full/SWA splits, device weights and compute buffer."""
        return {
            **b.extras,
            "weights_bytes": b.weights.bytes,
            "kv_cache_bytes": b.kv_cache.bytes,
            "compute_buffer_bytes": b.activations.bytes,
            "output_buffer_bytes": slots(workload, runtime) * (model.vocab_size or 0) * 4,
        }

    def capacity_figures(
        self,
        b: Breakdown,
        model: ModelSpec,
        workload: Workload,
        runtime: Runtime,
        counts: dict[str, int],
        gpu_total_bytes: int | None,
    ) -> dict[str, int | Fraction]:
        """None: llama.cpp sizes its cache from ``-c``, not from a budget."""
        return {}
