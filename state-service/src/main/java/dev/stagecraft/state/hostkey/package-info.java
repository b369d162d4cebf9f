/**
 * Host key trust, the domain part: what a valid SSH public key and host:port are, and the rules for
 * which stored keys a run must enforce (ADR "Host key trust"). Plain Java only — an architecture
 * test keeps it so; storage is {@code adapter.db.HostKeyStore}.
 */
package dev.stagecraft.state.hostkey;
