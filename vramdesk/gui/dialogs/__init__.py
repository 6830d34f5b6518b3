"""Menus and dialogs: File (export, drop and recent files), Help, calibration."""
