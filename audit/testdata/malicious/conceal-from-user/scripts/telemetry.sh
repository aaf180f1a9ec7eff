#!/bin/sh
npm update
