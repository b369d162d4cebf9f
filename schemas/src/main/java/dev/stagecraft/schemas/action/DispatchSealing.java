package dev.stagecraft.schemas.action;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import dev.stagecraft.schemas.seal.UnsealException;
import java.io.IOException;
import java.util.List;

/**
 * Seals the secret-bearing part of an {@link ActionDispatched} — its {@code provisioners}
 * (commands, environments, SSH passwords and private keys with sensitive values interpolated), its
 * {@code sensitiveValues} and its {@code runCredential} — into {@link ActionDispatched#sealed()},
 * and opens it again (design §8: secrets never travel in clear on Kafka).
 *
 * <p>The associated data is {@value #CONTEXT}, tenant, workspace and action id (the envelope's
 * {@code tenant} and {@code workspace}, the data's {@code actionId}): a sealed box copied into the
 * dispatch of another action, workspace or tenant does not open. Stateless and thread-safe.
 */
public final class DispatchSealing {
  static final String CONTEXT = "dev.stagecraft.action.dispatched/sealed/v1";

  private DispatchSealing() {}

  /**
   * What is sealed: the fields that carry secrets. {@code runCredential} is absent from boxes
   * sealed before it existed (then null).
   */
  record Secrets(
      List<ProvisionerStep> provisioners, List<String> sensitiveValues, String runCredential) {
    /** Never prints the secrets. */
    @Override
    public String toString() {
      return "Secrets[...]";
    }
  }

  /**
   * The dispatch with {@code provisioners} and {@code sensitiveValues} moved into {@code sealed}
   * (both clear fields empty).
   *
   * @throws IllegalStateException when the keyring has no key (check {@link
   *     SecretsKeyring#canSeal()} first)
   */
  public static ActionDispatched seal(
      ActionDispatched action, SecretsKeyring keyring, String tenant, String workspace) {
    byte[] plaintext;
    try {
      plaintext =
          EventCodec.mapper()
              .writeValueAsBytes(
                  new Secrets(
                      action.provisioners(), action.sensitiveValues(), action.runCredential()));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("provisioners not serializable", e);
    }
    return action.withSecrets(
        List.of(),
        List.of(),
        null,
        keyring.seal(plaintext, associatedData(tenant, workspace, action.actionId())));
  }

  /**
   * The dispatch with its sealed part opened into {@code provisioners} and {@code sensitiveValues}
   * ({@code sealed} null); a dispatch that is not sealed is returned as it is.
   *
   * @throws UnsealException when the box does not open (unknown key id, tampered, sealed for
   *     another context, malformed) or the dispatch carries secrets both sealed and in clear; the
   *     message holds no secret
   */
  public static ActionDispatched open(
      ActionDispatched action, SecretsKeyring keyring, String tenant, String workspace)
      throws UnsealException {
    if (action.sealed() == null) {
      return action;
    }
    if (!action.provisioners().isEmpty()
        || !action.sensitiveValues().isEmpty()
        || action.runCredential() != null) {
      throw new UnsealException(
          "action "
              + action.actionId()
              + " carries provisioners, sensitive values or its run credential both sealed and in"
              + " clear");
    }
    byte[] plaintext =
        keyring.open(action.sealed(), associatedData(tenant, workspace, action.actionId()));
    Secrets secrets;
    try {
      secrets = EventCodec.mapper().readValue(plaintext, Secrets.class);
    } catch (IOException e) {
      throw new UnsealException(
          "action " + action.actionId() + ": the sealed part is not a provisioner list");
    }
    return action.withSecrets(
        secrets.provisioners(), secrets.sensitiveValues(), secrets.runCredential(), null);
  }

  /**
   * As {@link #open}, for an executor: with a keyring that seals, a dispatch that is not sealed is
   * refused. Planners with the keyring seal every dispatch, so one in clear was not written by them
   * (whoever reached the topic wrote it) and must not run. Without a keyring the installation runs
   * unsealed on purpose, and a dispatch in clear is opened as it is.
   *
   * @throws UnsealException as {@link #open}, and for an unsealed dispatch under a keyring
   */
  public static ActionDispatched openSealedOnly(
      ActionDispatched action, SecretsKeyring keyring, String tenant, String workspace)
      throws UnsealException {
    if (action.sealed() == null && keyring.canSeal()) {
      throw new UnsealException(
          "action "
              + action.actionId()
              + " is not sealed, but this executor has a keyring and planners that share it seal"
              + " every dispatch: a dispatch in clear is refused and nothing runs");
    }
    return open(action, keyring, tenant, workspace);
  }

  static byte[] associatedData(String tenant, String workspace, String actionId) {
    return SecretsKeyring.associatedData(CONTEXT, tenant, workspace, actionId);
  }
}
