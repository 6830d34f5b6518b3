"""A model preset by name: a bundled one first, then the user's saved model or scenario preset."""

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
