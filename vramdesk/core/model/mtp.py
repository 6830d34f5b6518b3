"""Multi-token-prediction (MTP) layers: stored in the checkpoint, loaded only for speculation.

DeepSeek-V3 and its successors, GLM-4.5/5, MiMo, Step-3.x, Qwen3-Next / Qwen3.5 and
Nemotron-3 ship ``num_nextn_predict_layers`` (Qwen: ``mtp_num_hidden_layers``) extra decoder
layers that draft the next tokens. transformers does not build them, and vLLM and SGLang skip
their tensors when they load the model (vLLM ``deepseek_v2.py`` ``load_weights``: a weight of
``get_spec_layer_idx_from_weight_name`` is skipped; ``qwen3_next.py``: ``mtp.`` names are
skipped); only speculative decoding with the MTP method loads them, as a draft model
(``deepseek_mtp.py``, ``qwen3_next_mtp.py``). So they are not in the parameter count or in the
weights of an estimate; this module says how much of a checkpoint they are and which of its
tensors belong to them.

One MTP layer (vLLM ``DeepSeekMultiTokenPredictorLayer``; ``Qwen3NextMultiTokenPredictor``;
MiMo's ``MiMoMultiTokenPredictorLayer``): two norms of ``hidden_size`` on the embedding and on
the previous hidden state, a projection ``2 * hidden_size -> hidden_size`` without bias
(``eh_proj`` / ``fc`` / ``input_proj``), one decoder layer with full attention and the
model's last feed-forward block (MoE when the model has experts), and a final norm
(``shared_head.norm`` / ``norm`` / ``final_layernorm``). DeepSeek-V3-layout checkpoints also
store a copy of the embedding and of the output head in each MTP layer
(``model.layers.61.embed_tokens.weight``, ``model.layers.61.shared_head.head.weight``):
``ModelSpec.mtp_embeddings``.
"""

from __future__ import annotations

import re

from vramdesk.core._memo import memo
from vramdesk.core.errors import InputError
from vramdesk.core.model.spec import FULL, ModelSpec, count_params

#: Tensor names of MTP layers by name alone: an ``mtp`` path component (Qwen3.5 ``mtp.fc``,
#: MiMo ``model.mtp_layers.0``).
_MTP_NAME = re.compile(r"(^|\.)mtp(_layers)?\.")
#: ``model.layers.N.`` (DeepSeek-V3's MTP layer is ``model.layers.61``, past its 61 layers).
_LAYER = re.compile(r"^model\.layers\.(\d+)\.")


def is_mtp_tensor(name: str, num_hidden_layers: int) -> bool:
    """True for a checkpoint tensor of an MTP layer.

    An ``mtp`` path component, or ``model.layers.N.`` with ``N >= num_hidden_layers`` (the
    layers past the model's own, as DeepSeek-V3 and GLM-4.5 number their MTP layers).
    """
    if _MTP_NAME.search(name):
        return True
    m = _LAYER.match(name)
    return m is not None and int(m.group(1)) >= num_hidden_layers


@memo
def mtp_params(m: ModelSpec) -> int | None:
    """Parameters of the checkpoint's MTP layers (0 when it has none).

    Per layer: one decoder layer with full attention and the feed-forward block of the
    model's last layer (:func:`count_params` of a one-layer copy, less its embedding, output
    head and final norm), the ``2 * hidden_size x hidden_size`` projection and three norms of
    ``hidden_size``; with ``mtp_embeddings`` also ``2 * vocab_size * hidden_size`` (the
    embedding and output-head copies). DeepSeek-V3: 11,507,286,272 + 102,781,952 +
    1,853,358,080 = 13,463,426,304 (``tests/core/model/test_mtp.py`` closes the checkpoint's
    published 684,531,386,000 elements with it).

    Returns
    -------
    int or None
        None when the layout of the layers is not one this formula knows: a model of
        single-operation blocks (Nemotron-H / Nemotron-3, whose MTP layers follow their own
        ``mtp_hybrid_override_pattern``), or one without a full shape (``params`` typed in
        place of it).
    """
    n = m.num_nextn_predict_layers
    if not n:
        return 0
    if m.single_op_blocks or not (m.hidden_size and m.vocab_size):
        return None
    h = m.hidden_size
    one = m.replace(
        params=None,
        num_hidden_layers=1,
        first_k_dense_replace=0 if m.first_k_dense_replace < m.num_hidden_layers else 1,
        layer_types=(FULL,),
        sliding_window=None,
        attention_chunk_size=None,
        layer_kv_heads=None,
        num_kv_shared_layers=0,
        sparse_indexer_params=m.sparse_indexer_params // m.num_hidden_layers,
        encoder_params=0,
        learned_position_embeddings=False,
        parallel_ssm=False,
        tie_word_embeddings=True,
        lm_head_bias=False,
    )
    try:
        counts = count_params(one)
    except InputError:  # a shape field the count needs is missing
        return None
    norm = 2 * h if m.norm_bias else h
    layer = counts.total - counts.embedding - norm
    per_mtp = layer + 2 * h * h + 3 * norm
    if m.mtp_embeddings:
        per_mtp += 2 * m.vocab_size * h
    return n * per_mtp


#: llama.cpp and Ollama: whether a GGUF holds the MTP block depends on its converter (GLM-4.5's
#: keeps it as NextN layers that llama.cpp loads but does not run; DeepSeek's drops it).
GGUF_MTP_NOTE = (
    "a GGUF that keeps the multi-token-prediction block (GLM-4.5's NextN layers) loads it too: "
    "import the .gguf for its exact size"
)


def mtp_note(m: ModelSpec) -> str | None:
    """The weights' note on MTP layers left out, with their parameters; None without any.

    Engines load them only for MTP speculative decoding (vLLM ``--speculative-config``
    method ``mtp``; SGLang ``--speculative-algorithm NEXTN``), which vramdesk does not model.
    """
    n = m.num_nextn_predict_layers
    if not n:
        return None
    params = mtp_params(m)
    if params:
        return (
            f"not counted: the checkpoint's {n} multi-token-prediction layer(s) ({params:,} "
            "parameters), loaded only for MTP speculative decoding"
        )
    return (
        f"not counted: the checkpoint's {n} multi-token-prediction layer(s), loaded only for "
        "MTP speculative decoding"
    )
