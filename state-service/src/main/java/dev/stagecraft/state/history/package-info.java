/**
 * The state history domain: a workspace's state is a fold of append-only {@link
 * dev.stagecraft.state.history.StateEvent}s; {@link dev.stagecraft.state.history.StateDecider}
 * turns an action result into new events. Plain Java only (no framework, no JDBC, no Kafka) — an
 * architecture test keeps it so.
 */
package dev.stagecraft.state.history;
