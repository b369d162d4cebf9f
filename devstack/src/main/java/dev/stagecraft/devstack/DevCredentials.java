package dev.stagecraft.devstack;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/** Contents of {@code credentials.json}: the dev tenant's admin API token. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record DevCredentials(String tenant, String token) {}
