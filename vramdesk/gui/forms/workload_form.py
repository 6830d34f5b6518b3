"""The weight-format and workload forms (SPEC §7, left column)."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from vramdesk.core.limits import INT_LIMITS
from vramdesk.core.model.formats import KVDtype, WeightFormat
from vramdesk.gui.controller import ScenarioController
from vramdesk.gui.forms.binding import BoundForm


class WeightsForm(BoundForm):
    """Weight storage format: format, group size, embeddings kept in 16 bits."""

    def __init__(self, controller: ScenarioController, parent: QWidget | None = None) -> None:
        super().__init__(self.tr("Weight format"), controller, parent)
        formats = [(f.label + ("" if f.exact else self.tr(" (approx.)")), f) for f in WeightFormat]
        self.add_choice("format", self.tr("Format"), formats)
        self.add_int("group_size", self.tr("Group size"), self.tr("none"))
        self.add_int("scale_bits", self.tr("Scale bits per group"))
        self.add_int("zero_bits", self.tr("Zero-point bits per group"))
        embed = [
            (self.tr("auto (16-bit when group-quantized)"), None),
            (self.tr("yes"), True),
            (self.tr("no"), False),
        ]
        self.add_choice("embeddings_unquantized", self.tr("Embeddings unquantized"), embed)
        self.add_check("experts_only", self.tr("Only experts quantized"))
        self.sync()


class WorkloadForm(BoundForm):
    """Context, concurrency (or live tokens in all), prompt, chunk and KV dtype."""

    def __init__(self, controller: ScenarioController, parent: QWidget | None = None) -> None:
        super().__init__(self.tr("Workload"), controller, parent)
        context = self.add_int("context_tokens", self.tr("Context (tokens per sequence)"))
        # the command line's grammar (core/fields.py parse_tokens_text): 8k is 8,192 tokens
        hint = str(context.property("hint")) + self.tr("; 8k = 8,192 tokens")
        context.setProperty("hint", hint)
        context.setToolTip(hint)
        self.add_int("batch", self.tr("Concurrent sequences"))
        self.add_int(
            "live_tokens",
            self.tr("or live tokens in all"),
            limits=(1, INT_LIMITS["context_tokens"][1] * INT_LIMITS["batch"][1]),
        )
        self.add_int("prompt_len", self.tr("Prompt length (prefill)"), self.tr("no prefill"))
        self.add_int("chunk_tokens", self.tr("Prefill chunk (tokens)"), self.tr("off"))
        self.add_int("live_buffers", self.tr("Live activation buffers"))
        self.add_check("all_logits", self.tr("Logits for every position"))
        self.add_choice("kv_dtype", self.tr("KV cache dtype"), [(d.label, d) for d in KVDtype])
        self.sync()

    def current(self, name: str) -> object:
        """Draft value; live tokens are the workload's ``live_tokens`` (context x concurrency)."""
        if name == "live_tokens":
            return self.controller.draft("workload").live_tokens
        return super().current(name)
