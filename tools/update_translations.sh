#!/usr/bin/env bash
# Refresh the Japanese translation: lupdate collects every tr()/translate() string of the
# window into resources/i18n/vramdesk_ja.ts (new ones marked unfinished, for Qt Linguist or an
# editor), then lrelease compiles the .qm the window loads. Run from the repository root with
# the project's venv:  tools/update_translations.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${VENV:-.venv}/bin
"$bin/pyside6-lupdate" -no-obsolete $(find vramdesk/gui -name "*.py" | sort) -ts resources/i18n/vramdesk_ja.ts
"$bin/pyside6-lrelease" resources/i18n/vramdesk_ja.ts -qm resources/i18n/vramdesk_ja.qm
grep -c 'type="unfinished"' resources/i18n/vramdesk_ja.ts | sed 's/^/unfinished: /' || true
