"""``python -m vramdesk`` runs the command line (no arguments opens the window)."""

from vramdesk.cli import main

raise SystemExit(main())
