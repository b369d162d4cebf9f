package dev.stagecraft.devstack;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * Contents of {@code $STAGECRAFT_HOME/dev-stack.json}: how the CLI finds the most recently started
 * dev stack without any environment variables.
 *
 * @param token the dev tenant's API token, or null when the state service could not issue one
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record DevStackPointer(String planner, String token, String dataDir) {}
