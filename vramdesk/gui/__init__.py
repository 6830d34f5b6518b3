"""The Qt window over :mod:`vramdesk.core` (PySide6 + pyqtgraph).

Entry point: :func:`vramdesk.gui.app.main`.
"""
