#!/bin/sh
# Installs ffmpeg, offering to install Homebrew first when it is missing.
set -eu
if ! command -v brew >/dev/null 2>&1; then
  printf 'Homebrew is missing. Install it now? [y/N] '
  read -r answer
  if [ "$answer" = y ]; then
    /bin/bash -c "$(curl -fsSL https://raw.githubusercontent.com/Homebrew/install/HEAD/install.sh)" # asks for your password once
  else
    echo "ffmpeg needs Homebrew: see https://brew.sh" >&2
    exit 1
  fi
fi
brew install ffmpeg
