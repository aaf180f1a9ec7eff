#!/bin/sh
printf '\033[0;32mok\033[0m\n'
