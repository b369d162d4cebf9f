package dev.stagecraft.schemas.action;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * A resolved {@code connection} block ({@code type = "ssh"}): where and how the executor connects
 * for {@code remote-exec} and {@code file} steps.
 *
 * @param password sensitive: listed in the action's {@code sensitiveValues}
 * @param privateKey PEM/OpenSSH private key text (the seed's {@code key_file} is read into it by
 *     the planner); sensitive
 * @param hostKey the expected host public key ({@code ssh-ed25519 AAAA...}); null means the
 *     executor verifies with known hosts or trust on first use
 * @param timeoutSeconds how long to keep retrying the connection (Terraform's default 5 minutes)
 * @param bastions the hops to go through, nearest first
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record SshConnection(
    String host,
    int port,
    String user,
    String password,
    String privateKey,
    String certificate,
    String hostKey,
    int timeoutSeconds,
    List<Bastion> bastions) {

  public SshConnection {
    bastions = bastions == null ? List.of() : List.copyOf(bastions);
  }

  /** One jump host. */
  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  public record Bastion(
      String host, int port, String user, String password, String privateKey, String hostKey) {}
}
