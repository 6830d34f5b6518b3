"""``load_model``: a config.json, a model folder, a ``.safetensors`` or a ``.gguf`` file."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

from vramdesk.core.errors import FileReadError
from vramdesk.core.files import CONFIG_LIMIT_BYTES, Monitor, is_stdin, read_json_object
from vramdesk.core.local.importers._config import ImportedModel, model_from_config
from vramdesk.core.local.importers._safetensors import infer_shape, read_header, read_index
from vramdesk.core.model.formats import WeightSpec
from vramdesk.core.model.mtp import is_mtp_tensor
from vramdesk.core.model.spec import ModelSpec

INDEX_NAME = "model.safetensors.index.json"
#: ModelOpt's quantization file beside config.json (vLLM ``modelopt.py`` ``get_config_filenames``).
QUANT_SIDECAR = "hf_quant_config.json"
#: A sharded checkpoint without an index: at most this many shard headers are read.
MAX_SHARDS = 512
#: Header bytes and tensors over all the shards of a folder without an index (DeepSeek-V3:
#: 163 shards, 91,991 tensors, about 12 MiB of headers). The tensors bound the time: about
#: 8 us each to parse and check (issue 22), so a folder at the limit is read in about 1 s.
MAX_FOLDER_HEADER_BYTES = 64 << 20
MAX_FOLDER_TENSORS = 131_072


def load_model(path: str | Path, *, monitor: Monitor | None = None) -> ImportedModel:
    """Import a model from local files, reading only small JSON files and headers.

    Parameters
    ----------
    path : str or Path
        A ``config.json`` file; a model folder (``config.json`` plus, for the exact weight
        bytes, ``model.safetensors.index.json`` or ``*.safetensors``); a ``.safetensors``
        file (its header; ``config.json`` beside it when present); or a ``.gguf`` file.
        ``-`` is a config.json on standard input (a GGUF there: ``load_gguf(Path("-"))``).

    Returns
    -------
    ImportedModel
        With ``model.checkpoint_bytes`` / ``checkpoint_format`` set when the files state the
        exact weight bytes (index ``metadata.total_size``, safetensors ``data_offsets``,
        GGUF tensor table).

    Raises
    ------
    FileReadError
        ``path`` or ``config``: missing, too large (config.json 4 MiB, index 64 MiB,
        safetensors header 100,000,000 bytes), not JSON, or a folder without config.json.
    UnsupportedModelError
        ``architectures``: Mamba/SSM/linear-attention layers.
    InputError
        A required config key is missing or invalid, named.
    ImportCancelled
        ``monitor.cancelled()`` returned True.
    """
    if is_stdin(path):  # `--config -`: a config.json on standard input
        return _config_file(Path(path), "stdin")
    p = Path(path).expanduser()
    if not p.exists():
        raise FileReadError("path", f"{p} does not exist", "missing", {"path": str(p)})
    if p.is_dir():
        return _folder(p, monitor)
    suffix = p.suffix.lower()
    if suffix == ".gguf":
        # on first use: the file readers load only when a model file is read
        from vramdesk.core.local.importers._gguf import load_gguf

        return load_gguf(p, monitor)
    if suffix == ".safetensors":
        return _safetensors_file(p, monitor)
    if suffix == ".json":  # config.json is named by its folder, any other file by itself
        return _config_file(p, p.parent.name if p.name == "config.json" else p.stem)
    raise FileReadError(
        "path",
        f"{p.name}: unknown file type; give a config.json, a model folder, "
        "a .safetensors or a .gguf file",
        "unknown_type",
    )


def _config_file(path: Path, name: str) -> ImportedModel:
    if path.name == INDEX_NAME:
        raise FileReadError(
            "config",
            f"{path.name} is a weight index; give config.json or the model folder",
            "not_config",
        )
    cfg = read_json_object(path, CONFIG_LIMIT_BYTES, "config")
    sidecar = path.parent / QUANT_SIDECAR
    if "quantization_config" not in cfg and sidecar.is_file():
        # ModelOpt exports keep their quantization in hf_quant_config.json (vLLM reads it)
        cfg["quantization_config"] = read_json_object(sidecar, CONFIG_LIMIT_BYTES, "config")
    imported = model_from_config(cfg, name=str(cfg.get("_name_or_path") or name))
    return _with(imported, source=str(path))


def _with(
    imported: ImportedModel, *, source: str, nbytes: int | None = None, notes: tuple[str, ...] = ()
) -> ImportedModel:
    changes: dict[str, object] = {"source": source}
    if nbytes is not None:
        changes.update(checkpoint_bytes=nbytes, checkpoint_format=imported.weights.storage_key())
        fmt, m = imported.weights.format, imported.model
        recurrent = m.recurrent_params_per_layer is None and "recurrent" in m.resolved_layer_types()
        if recurrent and m.params is None and not fmt.quantized:
            # the recurrent mixers are not counted from config.json: the checkpoint says
            changes["params"] = nbytes * 8 // int(fmt.bits)
            notes += (
                f"params = checkpoint bytes / {int(fmt.bits) // 8} = {changes['params']:,} "
                f"({fmt.label}; the recurrent layers are not counted from config.json)",
            )
    model = imported.model.replace(**changes)
    return dataclasses.replace(imported, model=model, notes=imported.notes + notes, source=source)


def _folder(folder: Path, monitor: Monitor | None = None) -> ImportedModel:
    config = folder / "config.json"
    ggufs = sorted(folder.glob("*.gguf"))[:2]
    if not config.is_file() and len(ggufs) == 1:
        return load_model(ggufs[0], monitor=monitor)
    if not config.is_file():
        raise FileReadError(
            "path", f"folder {folder.name} has no config.json", "no_config", {"path": str(folder)}
        )
    imported = _config_file(config, folder.name)
    nbytes, note = _folder_bytes(folder, imported.model, monitor=monitor)
    return _with(imported, source=str(folder), nbytes=nbytes, notes=(note,))


def _folder_bytes(
    folder: Path, model: ModelSpec, chosen: Path | None = None, monitor: Monitor | None = None
) -> tuple[int | None, str]:
    """Exact bytes of the checkpoint the engine loads: the index's total_size, else the headers.

    Multi-token-prediction tensors (:func:`vramdesk.core.model.mtp.is_mtp_tensor`, when the
    model's config declares ``num_nextn_predict_layers``) are left out: engines load them
    only for speculative decoding. With an index, their bytes come from the headers of the
    shards that hold them; when one of those shards is absent the exact figure is unknown and
    None is returned (the weights are then computed from the architecture, which leaves the
    MTP layers out too).
    """
    is_mtp = _mtp_test(model)
    index = folder / INDEX_NAME
    if index.is_file():
        total, weight_map = read_index(index)
        note = f"{INDEX_NAME} metadata.total_size = {total:,} bytes"
        mtp = {name: shard for name, shard in weight_map.items() if is_mtp(name)}
        if not mtp:
            return total, note
        files = sorted(set(mtp.values()))
        if not all((folder / f).is_file() for f in files):
            return None, (
                f"{note}, with {len(mtp):,} multi-token-prediction tensors (loaded only for "
                f"speculative decoding) in {', '.join(files)}, not in this folder: the weights "
                "are computed from the architecture"
            )
        mtp_bytes = 0
        for f in files:
            header = read_header(folder / f)
            for name in (n for n, shard in mtp.items() if shard == f):
                if name not in header.tensors:
                    raise FileReadError(
                        "path",
                        f"{INDEX_NAME}: weight_map puts {name!r} in {f}, whose header has no "
                        "such tensor",
                        "inconsistent",
                    )
                mtp_bytes += _tensor_bytes(header.tensors[name])
        if mtp_bytes > total:
            raise FileReadError(
                "path",
                f"{INDEX_NAME}: metadata.total_size ({total:,} bytes) is less than its "
                f"multi-token-prediction tensors alone ({mtp_bytes:,} bytes)",
                "inconsistent",
            )
        return total - mtp_bytes, (
            f"{note}, less {mtp_bytes:,} bytes of {len(mtp):,} multi-token-prediction tensors "
            "(loaded only for speculative decoding)"
        )
    if chosen is not None:
        shards = [chosen]
    elif (folder / "model.safetensors").is_file():
        shards = [folder / "model.safetensors"]
    else:
        shards = sorted(folder.glob("*.safetensors"))[: MAX_SHARDS + 1]
    if not shards:
        return None, "no safetensors files: weight bytes are computed from the architecture"
    if len(shards) > MAX_SHARDS:
        raise FileReadError(
            "path",
            f"{folder.name} has more than {MAX_SHARDS} safetensors files and no index",
            "too_many",
        )
    total = header_bytes = tensors = mtp_bytes = mtp_tensors = 0
    for i, shard in enumerate(shards):
        if monitor is not None:
            monitor.step(i, len(shards))
        quiet = None if monitor is None else Monitor(cancelled=monitor.cancelled)
        header = read_header(shard, quiet)
        total += header.data_bytes
        header_bytes += header.header_bytes
        tensors += len(header.tensors)
        if header_bytes > MAX_FOLDER_HEADER_BYTES or tensors > MAX_FOLDER_TENSORS:
            raise FileReadError(
                "path",
                f"{folder.name}: the headers of its first {i + 1} safetensors files already "
                f"hold {tensors:,} tensors in {header_bytes:,} bytes (real checkpoints: at "
                f"most about 100,000 tensors; limits {MAX_FOLDER_TENSORS:,} tensors, "
                f"{MAX_FOLDER_HEADER_BYTES:,} bytes)",
                "too_many",
            )
        for name, entry in header.tensors.items():
            if is_mtp(name):
                mtp_bytes += _tensor_bytes(entry)
                mtp_tensors += 1
    note = f"safetensors headers of {len(shards)} file(s): {total:,} bytes of tensors"
    if mtp_tensors:
        note += (
            f", less {mtp_bytes:,} bytes of {mtp_tensors:,} multi-token-prediction tensors "
            "(loaded only for speculative decoding)"
        )
    return total - mtp_bytes, note


def _tensor_bytes(entry: dict[str, Any]) -> int:
    """Bytes of one header entry (``data_offsets`` end - start, checked by ``read_header``)."""
    start, end = entry["data_offsets"]
    return end - start


def _mtp_test(model: ModelSpec) -> Callable[[str], bool]:
    """Which tensor names are MTP tensors: none unless the config declares MTP layers."""
    if not model.num_nextn_predict_layers:
        return lambda name: False
    return lambda name: is_mtp_tensor(name, model.num_hidden_layers)


def _safetensors_file(path: Path, monitor: Monitor | None = None) -> ImportedModel:
    if (path.parent / "config.json").is_file():
        imported = _config_file(path.parent / "config.json", path.parent.name)
        nbytes, note = _folder_bytes(path.parent, imported.model, chosen=path, monitor=monitor)
        return _with(imported, source=str(path), nbytes=nbytes, notes=(note,))
    header = read_header(path, monitor)
    fields, notes = infer_shape(header, path.name)
    if header.dominant is None:
        raise FileReadError(
            "path", f"{path.name} holds no floating-point or int8 tensors", "not_model"
        )
    params = header.elements if header.all_float else None
    model = ModelSpec(
        name=path.stem,
        params=params,
        checkpoint_bytes=header.data_bytes,
        checkpoint_format=WeightSpec(header.dominant).storage_key(),
        source=str(path),
        **fields,
    ).validate()
    notes.append(
        f"{len(header.tensors)} tensors: {header.data_bytes:,} bytes"
        + (f", {params:,} parameters (exact)" if params else "")
    )
    return ImportedModel(
        model=model, weights=WeightSpec(header.dominant), notes=tuple(notes), source=str(path)
    )
