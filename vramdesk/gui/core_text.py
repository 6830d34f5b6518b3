"""Translation of the text the core produces (context ``Core``).

The core writes English and gives each sentence a stable code and its parameters
(:class:`vramdesk.core.verdict.Sentence`); titles and labels are fixed strings. The window
shows them through :func:`tr_core` and :func:`sentence_text`, which look them up in the
``Core`` context of the installed translator (English where there is none).

:data:`MARKED` lists every such string literally so that ``pyside6-lupdate`` finds them;
``tests/gui/test_japanese.py`` checks it against the core's tables, so none is missed.
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from vramdesk.core.verdict import TEMPLATES, Sentence

CONTEXT = "Core"

#: Every core string the window may show (generated from the core's tables; see the test).
MARKED = [
    QT_TRANSLATE_NOOP("Core", 'Fits: {shape} need {need} of the {budget} KV budget ({spare} to spare)'),
    QT_TRANSLATE_NOOP("Core", 'Tight: {shape} fit the {budget} KV budget, but the estimated total {total} exceeds the {capacity} card'),
    QT_TRANSLATE_NOOP("Core", 'Tight: {shape} fit the {budget} KV budget with only {spare} to spare'),
    QT_TRANSLATE_NOOP("Core", 'Does not fit: {shape} need {need}, the KV budget is {budget} ({short} short)'),
    QT_TRANSLATE_NOOP("Core", 'Does not fit: the weights alone ({weights}) exceed the {capacity} card by {over}'),
    QT_TRANSLATE_NOOP("Core", 'Does not fit: weights and reserved memory leave no room for the KV cache ({over} over what the engine may use)'),
    QT_TRANSLATE_NOOP("Core", 'Estimated total {total} vs capacity {capacity}: {relation} (forward estimate, overhead included)'),
    QT_TRANSLATE_NOOP("Core", 'within the card'),
    QT_TRANSLATE_NOOP("Core", 'over the card'),
    QT_TRANSLATE_NOOP("Core", '{usable} for KV cache and activations'),
    QT_TRANSLATE_NOOP("Core", 'none: the weights alone ({weights}) exceed the {capacity} card by {over}'),
    QT_TRANSLATE_NOOP("Core", 'none: weights and reserved memory exceed what the engine may use by {over}'),
    QT_TRANSLATE_NOOP("Core", 'Store the KV cache in {value}'),
    QT_TRANSLATE_NOOP("Core", 'Cap the context at {value} tokens'),
    QT_TRANSLATE_NOOP("Core", 'Cap concurrency at {value} sequences'),
    QT_TRANSLATE_NOOP("Core", 'Quantize the weights to {value}'),
    QT_TRANSLATE_NOOP("Core", 'Quantizing the weights to {value}'),
    QT_TRANSLATE_NOOP("Core", 'Shard over {value} GPUs (tensor parallel)'),
    QT_TRANSLATE_NOOP("Core", '{action}: saves {saves}'),
    QT_TRANSLATE_NOOP("Core", '{action}: saves {saves} per GPU'),
    QT_TRANSLATE_NOOP("Core", '{action} saves {saves} but is not enough: the fixed overhead alone exceeds the usable memory'),
    QT_TRANSLATE_NOOP("Core", '{action} saves {saves} but is not enough: the KV cache and activations alone ({need}) exceed the {room} left after overhead'),
    QT_TRANSLATE_NOOP("Core", '{action}: saves {saves} (not enough alone)'),
    QT_TRANSLATE_NOOP("Core", 'KV cache dtype'),
    QT_TRANSLATE_NOOP("Core", 'Context'),
    QT_TRANSLATE_NOOP("Core", 'Concurrency'),
    QT_TRANSLATE_NOOP("Core", 'Weight format'),
    QT_TRANSLATE_NOOP("Core", 'Tensor parallel'),
    QT_TRANSLATE_NOOP("Core", 'memory'),
    QT_TRANSLATE_NOOP("Core", 'max_position_embeddings'),
    QT_TRANSLATE_NOOP("Core", 'the largest context vramdesk accepts'),
    QT_TRANSLATE_NOOP("Core", 'Weights'),
    QT_TRANSLATE_NOOP("Core", 'KV cache'),
    QT_TRANSLATE_NOOP("Core", 'Activations'),
    QT_TRANSLATE_NOOP("Core", 'Overhead'),
    QT_TRANSLATE_NOOP("Core", 'Total'),
    QT_TRANSLATE_NOOP("Core", 'Recurrent state'),
    QT_TRANSLATE_NOOP("Core", 'Activation peak'),
    QT_TRANSLATE_NOOP("Core", 'Compute buffer'),
    QT_TRANSLATE_NOOP("Core", 'Dequantization buffer'),
    QT_TRANSLATE_NOOP("Core", 'KV cache (device)'),
    QT_TRANSLATE_NOOP("Core", 'Non-torch memory'),
    QT_TRANSLATE_NOOP("Core", 'Ollama reserve'),
    QT_TRANSLATE_NOOP("Core", 'Overhead (multiplier)'),
    QT_TRANSLATE_NOOP("Core", 'Overhead (workspace)'),
    QT_TRANSLATE_NOOP("Core", 'Weights (device)'),
    QT_TRANSLATE_NOOP("Core", 'The NVIDIA binding (the nvidia-ml-py package, module pynvml) is not installed. vramdesk works without a GPU; estimates are unaffected.'),
    QT_TRANSLATE_NOOP("Core", 'No NVIDIA driver found: the NVML library (libnvidia-ml.so.1) is not installed. vramdesk works without a GPU; estimates are unaffected.'),
    QT_TRANSLATE_NOOP("Core", 'The NVIDIA driver is installed but not loaded (is the kernel module running?). vramdesk works without a GPU; estimates are unaffected.'),
    QT_TRANSLATE_NOOP("Core", 'The NVIDIA driver and its NVML library differ in version (a driver update without a reboot?). Reboot or reload the driver to read the GPUs.'),
    QT_TRANSLATE_NOOP("Core", 'Permission denied reading the NVIDIA GPUs (check access to /dev/nvidia*).'),
    QT_TRANSLATE_NOOP("Core", 'The NVIDIA driver is loaded but reports no GPU.'),
    QT_TRANSLATE_NOOP("Core", 'A GPU stopped answering (NVML: GPU is lost or needs a reset).'),
    QT_TRANSLATE_NOOP("Core", 'This GPU or driver does not report memory through NVML.'),
    QT_TRANSLATE_NOOP("Core", 'NVML failed with an unexpected error.'),
]


def tr_core(text: str) -> str:
    """``text`` from the core in the UI language (itself where untranslated)."""
    return QCoreApplication.translate(CONTEXT, text)


def sentence_text(sentence: Sentence) -> str:
    """``sentence`` in the UI language, its sentence parameters translated too."""
    params = {
        k: sentence_text(v) if isinstance(v, Sentence) else v for k, v in sentence.params.items()
    }
    return tr_core(TEMPLATES[sentence.code]).format(**params)
