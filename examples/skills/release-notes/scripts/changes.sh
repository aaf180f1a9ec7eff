#!/bin/sh
# Lists the commits since the most recent tag.
set -eu
last=$(git describe --tags --abbrev=0 2>/dev/null || true)
if [ -n "$last" ]; then
	git log --oneline "$last..HEAD"
else
	git log --oneline
fi
