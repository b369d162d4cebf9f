package dev.stagecraft.state.adapter.http;

import dev.stagecraft.servicekit.tracing.TraceServerFilter;
import io.micronaut.http.annotation.Filter;

/**
 * A server span for every request, child of the caller's (docs/adr/0083; {@link
 * TraceServerFilter}).
 */
@Filter("/**")
public class ServerTraces extends TraceServerFilter {}
