"""Number formats: how many bits a weight or a KV-cache element takes.

Bits are exact :class:`fractions.Fraction` values; byte counts are rounded once,
up to whole bytes, where a tensor group's size is computed (:mod:`.estimate`).

Sources
-------
* ggml block sizes: ``ggml/src/ggml-common.h`` (``block_q4_0`` = fp16 scale + 32 x 4 bit
  = 18 bytes per 32 weights = 4.5 bits; ``block_q8_0`` = 34 bytes per 32 = 8.5 bits;
  ``block_q4_K`` = 144 bytes per 256 = 4.5 bits; ``block_q6_K`` = 210 per 256 = 6.5625 bits;
  ...). The ``gguf`` package's ``GGML_QUANT_SIZES`` holds the same table and a test checks
  that ours agrees with it.
* MXFP4 (OCP Microscaling spec v1.0): 32 FP4 values share one 8-bit E8M0 scale, 17 bytes per 32.
* bitsandbytes NF4 as ``Linear4bit`` stores it by default (``bnb_4bit_use_double_quant``
  false): 4 bits + an fp32 absmax per block of 64 = 4 + 32/64 = 4.5 bits (``bnb-nf4``).
  With double quantisation (QLoRA paper, Dettmers et al. 2023, §3): 4 bits + 8-bit absmax
  per 64 + fp32 second-level constant per 256 blocks = 4 + 8/64 + 32/(64*256) = 4.127 bits
  (``bnb-nf4-dq``).
* ``int4`` is the AWQ/GPTQ layout by default: groups of 128 with a 16-bit scale and a
  16-bit zero point (4.25 bits, :data:`DEFAULT_GROUP`); ``int4-ideal`` is the source
  documents' idealized 0.5 byte per parameter, every tensor included.
* Embeddings and the output head stay 16-bit for every quantized format unless the format
  says otherwise (``int4-ideal``; GGUF types, which are per tensor).
* Mixed llama.cpp file types (Q4_K_M, ...) have no single bit width: the values here are
  the bits per weight llama.cpp's ``quantize`` reports for Llama-3.1-8B and are labelled
  approximate; reading the file's tensor table gives the exact size.
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass
from fractions import Fraction

from vramdesk.core.errors import InputError
from vramdesk.core.limits import check_int

F = Fraction


class WeightFormat(enum.Enum):
    """Storage format of model weights, with its exact bits per weight."""

    # label, bits per weight, quantized, exact (False: a mixed file type, approximate)
    FP32 = ("fp32", F(32), False, True)
    BF16 = ("bf16", F(16), False, True)
    FP16 = ("fp16", F(16), False, True)
    FP8 = ("fp8", F(8), True, True)
    INT8 = ("int8", F(8), True, True)
    INT4 = ("int4", F(4), True, True)
    INT4_IDEAL = ("int4-ideal", F(4), True, True)
    NF4 = ("bnb-nf4", F(4) + F(32, 64), True, True)
    NF4_DQ = ("bnb-nf4-dq", F(4) + F(8, 64) + F(32, 64 * 256), True, True)
    MXFP4 = ("mxfp4", F(17 * 8, 32), True, True)
    # ggml block types (exact)
    Q8_0 = ("Q8_0", F(34 * 8, 32), True, True)
    Q4_0 = ("Q4_0", F(18 * 8, 32), True, True)
    Q4_1 = ("Q4_1", F(20 * 8, 32), True, True)
    Q5_0 = ("Q5_0", F(22 * 8, 32), True, True)
    Q5_1 = ("Q5_1", F(24 * 8, 32), True, True)
    Q2_K = ("Q2_K", F(84 * 8, 256), True, True)
    Q3_K = ("Q3_K", F(110 * 8, 256), True, True)
    Q4_K = ("Q4_K", F(144 * 8, 256), True, True)
    Q5_K = ("Q5_K", F(176 * 8, 256), True, True)
    Q6_K = ("Q6_K", F(210 * 8, 256), True, True)
    IQ4_XS = ("IQ4_XS", F(136 * 8, 256), True, True)
    IQ4_NL = ("IQ4_NL", F(18 * 8, 32), True, True)
    IQ3_XXS = ("IQ3_XXS", F(98 * 8, 256), True, True)
    IQ3_S = ("IQ3_S", F(110 * 8, 256), True, True)
    IQ2_XXS = ("IQ2_XXS", F(66 * 8, 256), True, True)
    IQ2_XS = ("IQ2_XS", F(74 * 8, 256), True, True)
    IQ2_S = ("IQ2_S", F(82 * 8, 256), True, True)
    IQ1_S = ("IQ1_S", F(50 * 8, 256), True, True)
    IQ1_M = ("IQ1_M", F(56 * 8, 256), True, True)
    TQ1_0 = ("TQ1_0", F(54 * 8, 256), True, True)
    TQ2_0 = ("TQ2_0", F(66 * 8, 256), True, True)
    Q8_1 = ("Q8_1", F(40 * 8, 32), True, True)
    Q8_K = ("Q8_K", F(292 * 8, 256), True, True)
    Q1_0 = ("Q1_0", F(18 * 8, 128), True, True)
    Q2_0 = ("Q2_0", F(18 * 8, 64), True, True)
    NVFP4 = ("NVFP4", F(36 * 8, 64), True, True)
    # llama.cpp mixed file types: approximate bits per weight (see module docstring)
    Q2_K_MIX = ("Q2_K (mix)", F("3.00"), True, False)
    Q2_K_S = ("Q2_K_S", F("2.96"), True, False)
    IQ2_M = ("IQ2_M", F("2.70"), True, False)
    IQ3_XS = ("IQ3_XS", F("3.30"), True, False)
    IQ3_M = ("IQ3_M", F("3.66"), True, False)
    Q3_K_S = ("Q3_K_S", F("3.64"), True, False)
    Q3_K_M = ("Q3_K_M", F("4.00"), True, False)
    Q3_K_L = ("Q3_K_L", F("4.30"), True, False)
    Q4_K_S = ("Q4_K_S", F("4.67"), True, False)
    Q4_K_M = ("Q4_K_M", F("4.89"), True, False)
    Q5_K_S = ("Q5_K_S", F("5.57"), True, False)
    Q5_K_M = ("Q5_K_M", F("5.70"), True, False)
    #: llama.cpp ``LLAMA_FTYPE_MOSTLY_MXFP4_MOE``: routed experts MXFP4, every other 2-D tensor
    #: Q8_0 (``src/llama-quant.cpp``); 4.25 bits is the experts' width, used when the recipe
    #: cannot be built for the model
    MXFP4_MOE = ("MXFP4_MOE", F(17 * 8, 32), True, False)

    def __init__(self, label: str, bits: Fraction, quantized: bool, exact: bool) -> None:
        self.label = label
        self.bits = bits
        self.quantized = quantized
        self.exact = exact

    @property
    def is_gguf(self) -> bool:
        """True for llama.cpp block formats and mixed file types.

        Not mxfp4 (read from safetensors checkpoints too), nor the float and torch formats;
        ``MXFP4_MOE`` (llama.cpp's file type of that name) is one.
        """
        return self.label[:1] in ("Q", "I", "T", "N") or self.label == "MXFP4_MOE"

    @classmethod
    def parse(cls, text: str, field: str = "weights") -> WeightFormat:
        """Return the format named ``text`` (case-insensitive; ``gguf:`` prefix allowed).

        Accepts ``fp16``/``float16``/``f16``/``half``, ``bf16``/``bfloat16``, ``fp32``/
        ``float32``/``f32``, ``fp8``, ``int8``, ``int4``, ``nf4``, ``mxfp4`` and ggml type
        names such as ``Q4_K_M`` or ``gguf:Q8_0``.

        Raises
        ------
        InputError
            ``field``: unknown format.
        """
        key = str(text).strip().lower().removeprefix("gguf:")
        aliases = {
            "float32": "fp32",
            "f32": "fp32",
            "float": "fp32",
            "float16": "fp16",
            "f16": "fp16",
            "half": "fp16",
            "bfloat16": "bf16",
            "float8": "fp8",
            "f8": "fp8",
            "fp8_e4m3": "fp8",
            "e4m3": "fp8",
            "w8a8-int8": "int8",
            "bnb-int8": "int8",
            "int8_weight": "int8",
            "nf4": "bnb-nf4",
            "nf4-dq": "bnb-nf4-dq",
            "bnb-nf4-double-quant": "bnb-nf4-dq",
            "int4-flat": "int4-ideal",
            "q2_k_mix": "q2_k (mix)",
        }
        key = aliases.get(key, key)
        for member in cls:
            if member.label.lower() == key:
                return member
        names = ", ".join(m.label for m in cls)
        raise InputError(
            field,
            f"unknown weight format {text!r}; known: {names}",
            "unknown_choice",
            {"value": text},
        )


#: Bytes per element of the recurrent-state dtypes vLLM takes for ``mamba_cache_dtype`` and
#: ``mamba_ssm_cache_dtype`` (``MambaDType`` of ``vllm/config/cache.py``: ``auto``, ``float32``;
#: ``float16`` from vllm-project/vllm#29978; ``bfloat16`` in the newest releases). ``auto`` (or
#: ``None``) is the model's 16-bit dtype.
MAMBA_DTYPE_BYTES: dict[str, int] = {"float32": 4, "float16": 2, "bfloat16": 2}


def check_mamba_dtype(field: str, value: str | None) -> None:
    """Refuse a recurrent-state dtype other than ``None``, ``auto`` or a known one.

    Raises
    ------
    InputError
        ``field``: "must be auto, float32, float16 or bfloat16, got 'fp8'".
    """
    if value is None or value == "auto" or value in MAMBA_DTYPE_BYTES:
        return
    raise InputError(
        field,
        f"must be auto, float32, float16 or bfloat16, got {str(value)[:40]!r}",
        "unknown_choice",
        {"allowed": ["auto", *MAMBA_DTYPE_BYTES]},
    )


class KVDtype(enum.Enum):
    """Element type of the KV cache, with its exact bytes per element.

    llama.cpp cache types are ggml block types: ``q8_0`` stores 32 values in
    34 bytes, ``q4_0`` 32 values in 18 bytes (``ggml-common.h``).
    """

    FP32 = ("fp32", F(4))
    FP16 = ("fp16", F(2))
    BF16 = ("bf16", F(2))
    FP8 = ("fp8", F(1))
    INT8 = ("int8", F(1))
    Q8_0 = ("q8_0", F(34, 32))
    Q5_1 = ("q5_1", F(24, 32))
    Q5_0 = ("q5_0", F(22, 32))
    Q4_1 = ("q4_1", F(20, 32))
    Q4_0 = ("q4_0", F(18, 32))
    IQ4_NL = ("iq4_nl", F(18, 32))

    def __init__(self, label: str, bytes_per_element: Fraction) -> None:
        self.label = label
        self.bytes_per_element = bytes_per_element

    @classmethod
    def parse(cls, text: str, field: str = "kv_dtype") -> KVDtype:
        """Return the KV dtype named ``text`` (``fp16``, ``bf16``, ``fp8``, ``q8_0``, ...).

        Raises
        ------
        InputError
            ``field``: unknown dtype.
        """
        key = str(text).strip().lower()
        aliases = {
            "f16": "fp16",
            "float16": "fp16",
            "half": "fp16",
            "auto": "fp16",
            "bfloat16": "bf16",
            "f32": "fp32",
            "float32": "fp32",
            "fp8_e4m3": "fp8",
            "fp8_e5m2": "fp8",
            "float8": "fp8",
            "e4m3": "fp8",
        }
        key = aliases.get(key, key)
        for member in cls:
            if member.label == key:
                return member
        names = ", ".join(m.label for m in cls)
        raise InputError(
            field,
            f"unknown KV cache dtype {text!r}; known: {names}",
            "unknown_choice",
            {"value": text},
        )


def group_quant_bits(
    bits: int | Fraction, group_size: int, scale_bits: int = 16, zero_bits: int = 16
) -> Fraction:
    """Bits per weight of a group-quantized format (GPTQ/AWQ style).

    ``bpw = bits + (scale_bits + zero_bits) / group_size``: each group of
    ``group_size`` weights stores one scale and one zero point. With int4, an fp16
    scale and an fp16 zero at group 128: 4 + 32/128 = 4.25 bits = 0.53125 bytes per
    weight (the source article's "about 0.53 bytes").

    Raises
    ------
    InputError
        ``group_size`` is not positive.
    """
    if group_size <= 0:
        raise InputError("group_size", f"must be positive, got {group_size}", "too_small")
    return Fraction(bits) + Fraction(scale_bits + zero_bits, group_size)


#: Group size a format uses when none is given: AWQ/GPTQ int4 quantize groups of 128
#: (AutoAWQ ``q_group_size`` and GPTQ ``group_size`` defaults). ``group_size=0`` asks for
#: no group scales (per-channel).
DEFAULT_GROUP = {WeightFormat.INT4: 128}


@dataclass(frozen=True, slots=True)
class WeightSpec:
    """How the weights are stored.

    Attributes
    ----------
    format : WeightFormat
        Format of the linear layers (attention, MLP, experts).
    group_size : int or None
        Group quantization (GPTQ/AWQ, fp8 block scales): each group of ``group_size``
        weights adds ``scale_bits + zero_bits`` bits (:func:`group_quant_bits`). ``None``:
        the format's default (:data:`DEFAULT_GROUP`: int4 128); ``0``: no group scales.
    scale_bits, zero_bits : int
        Bits of each group's scale and zero point (fp16: 16 each; symmetric formats
        have no zero point: 0).
    embeddings_unquantized : bool or None
        Keep the embedding and lm_head in 16 bits. ``None``: yes for every quantized format
        (AWQ, GPTQ, bitsandbytes, fp8 and MXFP4 checkpoints keep them 16-bit), except
        ``int4-ideal`` and the GGUF types (a GGUF file says per tensor).
    experts_only : bool
        Only the routed experts use ``format``; everything else stays 16-bit
        (gpt-oss MXFP4 checkpoints). Always True for ``mxfp4``: the name means that layout
        wherever it is given (vLLM ``quantization/mxfp4.py`` ``Mxfp4Config.get_quant_method``
        quantizes ``FusedMoE`` layers only; linear layers stay unquantized), so ``--weights
        mxfp4`` and a preset's own mxfp4 size the same tensors alike.
    unquantized_modules : tuple of str or None
        The checkpoint's own list of modules stored unquantized (``modules_to_not_convert``,
        ``ignore``, ``exclude_modules``, ``llm_int8_skip_modules``; see
        :mod:`vramdesk.core.model.modules`). When given, every linear module it does not
        match is at ``format`` (lm_head included) and every one it matches 16-bit; embeddings,
        norms, routers and a vision tower stay 16-bit. ``None``: the group rules above.
    """

    format: WeightFormat = WeightFormat.BF16
    group_size: int | None = None
    scale_bits: int = 16
    zero_bits: int = 16
    embeddings_unquantized: bool | None = None
    experts_only: bool = False
    unquantized_modules: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        """``mxfp4`` is the experts-only layout (see ``experts_only``)."""
        if self.format is WeightFormat.MXFP4 and not self.experts_only:
            object.__setattr__(self, "experts_only", True)

    @property
    def effective_group_size(self) -> int | None:
        """``group_size``, the format's default when None (:data:`DEFAULT_GROUP`), None for 0."""
        group = DEFAULT_GROUP.get(self.format) if self.group_size is None else self.group_size
        return group or None

    @property
    def bits_per_weight(self) -> Fraction:
        """Exact bits per quantized weight, including group scales and zero points."""
        group = self.effective_group_size
        if group is None:
            return self.format.bits
        return group_quant_bits(self.format.bits, group, self.scale_bits, self.zero_bits)

    @property
    def keeps_embeddings(self) -> bool:
        """Whether embedding and lm_head stay 16-bit (resolves the ``None`` default)."""
        if not self.format.quantized:
            return False
        if self.embeddings_unquantized is None:
            return not self.format.is_gguf and self.format is not WeightFormat.INT4_IDEAL
        return self.embeddings_unquantized

    def storage_key(self) -> str:
        """A string that is equal for two specs exactly when they store weights alike.

        Recorded as ``ModelSpec.checkpoint_format`` by the importers, so that the estimate can
        use a checkpoint's exact byte size only while the user keeps the checkpoint's format.
        """
        return "|".join(
            str(v)
            for v in (
                self.format.label,
                self.effective_group_size,
                self.scale_bits,
                self.zero_bits,
                self.keeps_embeddings,
                self.experts_only,
                *(self.unquantized_modules or ()),
            )
        )

    def label(self) -> str:
        """A short human label, e.g. ``"int4 (g128, 4.25 bpw)"``."""
        text = self.format.label
        if self.effective_group_size is not None:
            text += f" (g{self.effective_group_size}, {float(self.bits_per_weight):g} bpw)"
        elif self.format is not WeightFormat.INT4_IDEAL and self.format.bits.denominator != 1:
            text += f" ({float(self.bits_per_weight):g} bpw)"
        if not self.format.exact:
            text += " (approx.)"
        return text

    def validate(self) -> WeightSpec:
        """Check the fields; return ``self``.

        Raises
        ------
        InputError
            ``group_size``, ``scale_bits`` or ``zero_bits`` out of range.
        """
        check_int("group_size", self.group_size, optional=True)
        check_int("scale_bits", self.scale_bits)
        check_int("zero_bits", self.zero_bits)
        if self.group_size and not self.format.quantized:
            raise InputError(
                "group_size",
                f"applies to quantized formats, not {self.format.label}",
                "not_applicable",
            )
        return self

    def replace(self, **changes: object) -> WeightSpec:
        """Return a copy with ``changes`` applied (not validated)."""
        return dataclasses.replace(self, **changes)
