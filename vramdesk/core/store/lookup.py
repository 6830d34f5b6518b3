"""A model preset by name: a bundled one first, then the user's saved model or scenario preset.

:func:`saved_scenario` gives what a saved scenario sets beyond its model (workload, runtime,
target), for the command line's ``--preset``.
"""

from __future__ import annotations

from vramdesk.core.errors import InputError


def resolve_model_preset(name: str):
    """A bundled model preset by name or slug, else a saved (user) model or scenario preset.

    Returns
    -------
    vramdesk.core.store.bundled.ModelPreset

    Raises
    ------
    InputError
        ``preset``: no bundled or saved preset of that name.
    """
    # on first use: the preset store loads only when a preset is looked up
    from vramdesk.core.store.bundled import find_model

    try:
        return find_model(name)
    except InputError as bundled_error:
        # on first use: the preset store loads only when a preset is looked up
        from vramdesk.core.store.presets import PresetStore, model_preset

        try:
            user = PresetStore().find(name)
        except InputError:
            raise bundled_error from None
        if user.kind not in ("model", "scenario"):
            raise InputError(
                "preset", f"{name!r} is a saved {user.kind} preset, not a model", "wrong_kind"
            ) from None
        return model_preset(user)


def saved_scenario(name: str):
    """What the saved scenario preset ``name`` sets, when ``--preset NAME`` names one.

    Returns
    -------
    vramdesk.core.store.applied.AppliedPreset or None
        None when a bundled model has that name (bundled presets come first, as
        :func:`resolve_model_preset`), when no saved preset has it, or when the saved preset
        is not a scenario (a model preset sets the model only).
    """
    # on first use: the preset store loads only when a preset is looked up
    from vramdesk.core.store.bundled import find_model

    try:
        find_model(name)
    except InputError:
        pass
    else:
        return None
    # on first use: the preset store loads only when a preset is looked up
    from vramdesk.core.store.applied import applied_preset
    from vramdesk.core.store.presets import PresetStore

    try:
        user = PresetStore().find(name)
    except InputError:
        return None  # resolve_model_preset says why
    return applied_preset(user) if user.kind == "scenario" else None
