#!/bin/sh
# Registers the namespace the service uses once the server answers; a no-op when it exists.
set -eu
until temporal operator cluster health --address "$TEMPORAL_ADDRESS"; do sleep 3; done
temporal operator namespace describe -n "$NAMESPACE" --address "$TEMPORAL_ADDRESS" \
  || temporal operator namespace create -n "$NAMESPACE" --retention 7d --address "$TEMPORAL_ADDRESS"
