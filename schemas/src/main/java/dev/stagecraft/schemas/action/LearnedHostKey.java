package dev.stagecraft.schemas.action;

/**
 * A host key an executor accepted on first use during an action: no key was pinned or known for
 * {@code host:port}, so the executor trusted the one the host offered and reports it in {@code
 * action.finished}. The state service records it for the action's workspace; later runs of that
 * workspace then require exactly this key (see docs/adr, "Host key trust").
 *
 * @param host the host name or address as written in the connection (or bastion) block
 * @param port the SSH port actually used (22 when the block had none)
 * @param publicKey the key as {@code <type> <base64>} ({@code ssh-ed25519 AAAA...}), no comment
 * @param fingerprint OpenSSH's {@code SHA256:...} fingerprint of the key
 */
public record LearnedHostKey(String host, int port, String publicKey, String fingerprint) {}
