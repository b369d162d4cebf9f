#!/bin/bash
# /opt/kafka/bin/<tool>.sh (written by dev/images): the tool's main class on the broker's class path.
exec java ${KAFKA_HEAP_OPTS:-@HEAP@} @OPTS@ -Dlogback.configurationFile=/opt/kafka/config/logback.xml \
  -cp '/opt/kafka/libs/*' @MAIN@ "$@"
