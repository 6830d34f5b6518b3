"""vramdesk's parameter count against an independent one, over the whole config corpus.

The oracle (``tests/data/param-oracle.json``, written by ``tools/param_oracle.py``) is
transformers' own model built on PyTorch's meta device from each config: ``sum(p.numel())``
over ``model.parameters()``, tied weights once. For every corpus config vramdesk's
:func:`total_params` of :func:`model_from_config` must equal the oracle's ``params``, or
``params + buffers`` (persistent buffers that the checkpoint stores as tensors but
transformers registers as buffers, e.g. DeepSeek-V3's ``e_score_correction_bias``: 58 MoE
layers x 256 experts = 14,848), or appear in :data:`DIFFERENCES` with the figure vramdesk
gives today and the reason. An entry whose figure starts to match the oracle fails too, so
that the table only ever shrinks.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import DATA
from vramdesk.core import InputError, UnsupportedModelError
from vramdesk.core.local.importers import model_from_config
from vramdesk.core.model.spec import total_params

ORACLE = json.loads((DATA / "param-oracle.json").read_text(encoding="utf-8"))
ROOT = DATA.parents[1]
OR = "tests/data/configs/oracle/"
REFUSED = "refused"
ENC_DEC = (
    "encoder-decoder: the decoder's self-attention cache per generated token and its "
    "cross-attention cache per encoder token are not modelled, so it is refused"
)

#: config -> (vramdesk's figure today, or REFUSED, or None when transformers cannot build it;
#: the reason). Differences in parameters are (ours - oracle).
DIFFERENCES: dict[str, tuple[int | str, str]] = {
    # -- configs transformers cannot build (no class for the model_type): ours is unchecked --
    OR + "kimi-k2-instruct.json": (
        1_026_408_232_448,
        "model_type kimi_k2 unknown to transformers 5.24 (remote code only); ours is the "
        "DeepSeek-V3 layout it declares, unchecked",
    ),
    OR + "mimo-7b-base.json": (
        7_622_766_592,
        "model_type mimo unknown to transformers (remote code); ours is the Qwen2 layout it "
        "declares, unchecked (its MTP layer, 210,794,496 by mtp_params, is not in the total: "
        "engines load it only for speculative decoding)",
    ),
    OR + "minimax-m3.json": (
        425_440_794_624,
        "model_type minimax_m3 unknown to transformers; ours reads the 0/1 moe_layer_freq list "
        "(3 dense layers), unchecked",
    ),
    # -- families vramdesk refuses or cannot count from config.json alone --
    OR + "albert-base-v2-seqcls.json": (
        REFUSED,
        "ALBERT shares one layer across all 12 and factorizes the embedding (embedding_size "
        "128): refused in one line (it was counted as 12 BERT layers, +147,654,903)",
    ),
    OR + "t5-small.json": (REFUSED, ENC_DEC),
    OR + "flan-t5-base.json": (REFUSED, ENC_DEC),
    OR + "bart-large-cnn.json": (REFUSED, ENC_DEC),
    OR + "whisper-small.json": (REFUSED, ENC_DEC),
    # -- counted, but a part is missing or wrong --
    OR + "step-3.7-flash.json": (
        195_844_508_736,
        "-1,452,712,896: this copy is flat (aiconfigurator keeps the text keys at the top "
        "level), and Step3p7Config reads only text_config / vision_config, so transformers "
        "builds the class defaults: AutoModel's Step3p7Model has a default Step3p7VisionConfig "
        "tower of 1,955,848,960 and a projector of 25,165,824 that the copy does not describe, "
        "vocab 128,815 instead of 128,896 (-331,776) and no lm_head (-527,958,016); its "
        "e_score_correction_bias (12,096) is a buffer there. The layers (g_proj, q/k norms, "
        "42 MoE layers of 288 experts) match: test_family_params.py",
    ),
}


def _ours(path: str) -> int | str:
    config = json.loads((ROOT / path).read_text(encoding="utf-8"))
    try:
        return total_params(model_from_config(config).model)
    except (InputError, UnsupportedModelError):
        return REFUSED


def _corpus() -> list[str]:
    folders = [DATA / "configs", DATA / "configs" / "oracle", DATA / "configs" / "class-defaults"]
    found = [p for d in folders for p in d.glob("*.json")]
    found += (DATA / "reference" / "models").glob("*/config.json")
    return sorted(p.relative_to(ROOT).as_posix() for p in found)


def test_the_oracle_covers_the_whole_corpus() -> None:
    # The corpus (88 configs) and the oracle file move together: rerun tools/param_oracle.py.
    assert sorted(ORACLE["configs"]) == _corpus()
    assert len(ORACLE["configs"]) >= 60
    types = {v["model_type"] for v in ORACLE["configs"].values()}
    types |= {
        json.loads((ROOT / k).read_text(encoding="utf-8")).get("model_type")
        for k, v in ORACLE["configs"].items()
        if v["model_type"] is None
    }
    assert len(types) >= 40, sorted(t for t in types if t)
    assert ORACLE["transformers"] and ORACLE["torch"]


@pytest.mark.parametrize("path", sorted(ORACLE["configs"]))
def test_param_count_matches_the_oracle(path: str) -> None:
    oracle = ORACLE["configs"][path]
    ours = _ours(path)
    if path in DIFFERENCES:
        expected, reason = DIFFERENCES[path]
        assert ours == expected, f"{path}: the listed difference moved ({reason})"
        assert ours not in (oracle["params"], (oracle["params"] or 0) + (oracle["buffers"] or 0))
        return
    assert oracle["params"] is not None, f"{path}: not built by the oracle ({oracle['note']})"
    assert ours in (oracle["params"], oracle["params"] + oracle["buffers"]), (
        f"{path}: ours {ours} vs oracle {oracle['params']} (+{oracle['buffers']} buffers)"
    )


def test_the_difference_table_names_only_corpus_configs() -> None:
    assert set(DIFFERENCES) <= set(ORACLE["configs"])


@pytest.mark.parametrize(
    "name", ["t5-small.json", "flan-t5-base.json", "bart-large-cnn.json", "whisper-small.json"]
)
def test_encoder_decoders_are_refused_in_one_line_naming_the_decode_caches(name: str) -> None:
    config = json.loads((ROOT / OR / name).read_text(encoding="utf-8"))
    with pytest.raises(UnsupportedModelError) as err:
        model_from_config(config)
    text = str(err.value)
    assert err.value.field == "architectures" and "\n" not in text
    assert text.endswith("is not supported: encoder-decoder decode caches are not modelled")


def test_distilbert_is_an_encoder_read_from_dim_n_layers_hidden_dim_n_heads() -> None:
    config = json.loads((ROOT / OR / "distilbert-base-uncased-mlm.json").read_text("utf-8"))
    m = model_from_config(config).model
    # configuration_distilbert.py: dim 768, n_layers 6, hidden_dim 3072, n_heads 12
    assert (m.hidden_size, m.num_hidden_layers, m.intermediate_size) == (768, 6, 3072)
    assert m.num_attention_heads == 12 and not m.causal
    # modeling_distilbert.py: word 30522 * 768 = 23,440,896 + positions 512 * 768 = 393,216
    # + LayerNorm 1,536; per layer q/k/v/out 4 * (768^2 + 768) = 2,362,368, lin1 + lin2
    # 2 * 768 * 3072 + 3072 + 768 = 4,722,432, two LayerNorms 3,072 -> 7,087,872 x 6; no token
    # types; DistilBertForMaskedLM vocab_transform 768^2 + 768, vocab_layer_norm 1,536 and the
    # vocab_projector bias 30,522 (its weight tied) = 622,650
    assert total_params(m) == 23_440_896 + 393_216 + 1_536 + 6 * 7_087_872 + 622_650
    assert total_params(m) == ORACLE["configs"][OR + "distilbert-base-uncased-mlm.json"]["params"]


def test_a_decoder_classifier_head_replaces_the_output_head() -> None:
    config = json.loads((ROOT / OR / "gpt2-seqcls-finetune.json").read_text("utf-8"))
    imported = model_from_config(config)
    # modeling_gpt2.py GPT2ForSequenceClassification: score 768 x 7 labels (len(id2label)),
    # no bias, no lm_head: 5,376 beside GPT-2's 124,440,576
    assert total_params(imported.model) == 124_440_576 + 5_376
    assert any("768 x 7 labels" in n for n in imported.notes)
    del config["id2label"]
    assert total_params(model_from_config(config).model) == 124_440_576
